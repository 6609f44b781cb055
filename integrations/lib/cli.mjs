#!/usr/bin/env node
// The posture CLI of this checkout, ready to run in a CI job (integrations/github/run.mjs,
// integrations/shell/posture-ci.sh): this repository's own when its dependencies resolve, else a copy
// with only the CLI's dependencies installed, at the versions this checkout's package.json pins (the
// service's many others are not needed). Run directly, prints the path of the CLI to run.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The bare package names the CLI imports (node: builtins left out), read from its sources.
 * @param {string} root
 */
export function cliDependencies(root = ROOT) {
  const names = new Set();
  const files = [path.join(root, 'cli/posture.mjs'), ...readdirSync(path.join(root, 'cli/lib')).filter((f) => f.endsWith('.mjs')).map((f) => path.join(root, 'cli/lib', f))];
  for (const file of files) {
    for (const m of readFileSync(file, 'utf8').matchAll(/(?:from|import\()\s*'([^'.][^']*)'/g)) {
      const spec = m[1];
      if (spec.startsWith('node:')) continue;
      names.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
    }
  }
  return [...names].sort();
}

/**
 * The CLI to run: this checkout's, when its dependencies resolve (a repository with node_modules);
 * else a copy in the runner's temp directory with only the CLI's dependencies installed, at the
 * versions this checkout's package.json pins.
 * @param {string} [temp]
 * @param {(line: string) => void} [log]
 */
export function prepareCli(temp = tmpdir(), log = (line) => process.stderr.write(`${line}\n`)) {
  const deps = cliDependencies();
  const missing = deps.filter((name) => {
    try {
      import.meta.resolve(name);
      return false;
    } catch {
      return true;
    }
  });
  if (!missing.length) return path.join(ROOT, 'cli/posture.mjs');
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const dir = mkdtempSync(path.join(temp, 'posture-cli-'));
  cpSync(path.join(ROOT, 'cli'), path.join(dir, 'cli'), { recursive: true });
  const dependencies = Object.fromEntries(deps.map((name) => [name, pkg.dependencies?.[name] ?? 'latest']));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'posture-cli', version: pkg.version, private: true, type: 'module', dependencies }, null, 2));
  log(`installing the CLI's dependencies: ${Object.entries(dependencies).map(([n, v]) => `${n}@${v}`).join(' ')}`);
  const npm = spawnSync('npm', ['install', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--no-package-lock'], { cwd: dir, stdio: ['ignore', 2, 2] });
  if (npm.status !== 0) throw new Error(`npm install of the CLI's dependencies failed (exit ${npm.status})`);
  return path.join(dir, 'cli/posture.mjs');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    process.stdout.write(`${prepareCli(process.env.RUNNER_TEMP || process.env.TMPDIR || tmpdir())}\n`);
  } catch (err) {
    process.stderr.write(`posture: ${/** @type {Error} */ (err).message}\n`);
    process.exit(1);
  }
}

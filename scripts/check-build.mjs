#!/usr/bin/env node
// npm run check:build (CI, .ci/run): the production build and the D1 migrations, offline.
//
// 1. [env.production] repeats every binding and variable of the top level (wrangler inherits none of
//    them into an environment: the keys config-schema.json marks "not automatically inherited").
// 2. `wrangler deploy --dry-run --env production` bundles the Worker without configuration warnings;
//    the gzipped size of what it would upload (the modules in the outdir, source maps aside, gzipped
//    together as wrangler does) is printed and must stay within 3 MiB (the Workers Free limit).
// 3. `wrangler d1 migrations apply DB --local` applies every migration to an empty database, and
//    none is left afterwards.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ENV = 'production';
const LIMIT_BYTES = 3 * 1024 * 1024;
const wranglerBin = join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
const childEnv = { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true', FORCE_COLOR: '0', NO_COLOR: '1' };
delete childEnv.CLOUDFLARE_ENV;

const kib = (bytes) => `${(bytes / 1024).toFixed(2)} KiB`;

function wrangler(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [wranglerBin, ...args], { cwd: root, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(output) : reject(new Error(`wrangler ${args.join(' ')} failed (exit ${code}):\n${output.trim()}`))));
  });
}

/** What names a binding (or variable) of one key of the configuration, for comparison. */
function names(value) {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'object' && v ? v.binding ?? v.name ?? v.queue ?? JSON.stringify(v) : String(v)));
  if (typeof value !== 'object') return [String(value)];
  if ('binding' in value && typeof value.binding === 'string') return [value.binding];
  // vars, define: their keys; durable_objects { bindings }, queues { producers, consumers }: per list
  return Object.entries(value).flatMap(([k, v]) => (Array.isArray(v) ? names(v).map((n) => `${k}.${n}`) : [k]));
}

async function checkBindings() {
  const { unstable_readConfig } = await import('wrangler');
  const schema = JSON.parse(readFileSync(join(root, 'node_modules/wrangler/config-schema.json'), 'utf8'));
  const properties = schema.definitions.RawEnvironment.properties;
  const notInherited = Object.keys(properties).filter((k) => /not automatically inherited/i.test(properties[k].description ?? ''));
  const config = join(root, 'wrangler.toml');
  const top = unstable_readConfig({ config, env: '' }, { hideWarnings: true });
  const prod = unstable_readConfig({ config, env: ENV }, { hideWarnings: true });
  if (!prod.definedEnvironments?.includes(ENV)) throw new Error(`wrangler.toml has no [env.${ENV}] section.`);
  const missing = [];
  for (const key of notInherited) {
    const have = new Set(names(prod[key]));
    for (const name of names(top[key])) if (!have.has(name)) missing.push(`${key}: ${name}`);
  }
  if (missing.length) throw new Error(`[env.${ENV}] lacks what the top level has (wrangler does not inherit it):\n  ${missing.join('\n  ')}`);
  if (prod.vars && 'DEV_SECRET' in prod.vars) throw new Error(`[env.${ENV}] must not define DEV_SECRET.`);
  console.log(`[env.${ENV}] repeats every binding and variable of the top level (${notInherited.filter((k) => names(top[k]).length).join(', ')}).`);
}

async function checkBundle(outdir) {
  const output = await wrangler(['deploy', '--dry-run', '--env', ENV, '--outdir', outdir]);
  const configWarnings = output.split(/\n(?=\S*▲|\s*▲)/).filter((block) => /\[WARNING\][^\n]*configuration/i.test(block));
  if (configWarnings.length) throw new Error(`wrangler warns about the configuration of the ${ENV} build:\n${configWarnings.join('\n').trim()}`);
  // The upload: every module wrangler wrote (the entry point last, as it counts them), not the source maps.
  const files = readdirSync(outdir).filter((f) => !f.endsWith('.map') && f !== 'README.md').sort((a, b) => (a === 'index.js') - (b === 'index.js') || a.localeCompare(b));
  if (!files.includes('index.js')) throw new Error(`wrangler wrote no index.js to ${outdir}.`);
  const contents = files.map((f) => readFileSync(join(outdir, f)));
  const size = contents.reduce((sum, c) => sum + c.length, 0);
  const gzip = gzipSync(Buffer.concat(contents)).length;
  const reported = /Total Upload: ([\d.]+ KiB) \/ gzip: ([\d.]+ KiB)/.exec(output);
  console.log(`Production Worker: ${files.length} modules, ${kib(size)}, gzip ${kib(gzip)} (limit ${kib(LIMIT_BYTES)}; wrangler reports ${reported ? `${reported[1]} / gzip ${reported[2]}` : 'no size'}).`);
  if (gzip > LIMIT_BYTES) throw new Error(`The production Worker is ${kib(gzip)} gzipped, over the ${kib(LIMIT_BYTES)} limit.`);
}

async function checkMigrations(persistTo) {
  const migrations = readdirSync(join(root, 'migrations')).filter((f) => f.endsWith('.sql'));
  await wrangler(['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', persistTo, '--env', ENV]);
  const left = await wrangler(['d1', 'migrations', 'list', 'DB', '--local', '--persist-to', persistTo, '--env', ENV]);
  if (!/No migrations to apply/.test(left)) throw new Error(`Migrations are left after applying them all:\n${left.trim()}`);
  console.log(`D1 migrations: all ${migrations.length} apply to an empty database.`);
}

const temp = mkdtempSync(join(tmpdir(), 'check-build-'));
try {
  await checkBindings();
  await checkBundle(join(temp, 'out'));
  await checkMigrations(join(temp, 'state'));
} catch (error) {
  console.error(`check:build: ${error.message}`);
  process.exitCode = 1;
} finally {
  rmSync(temp, { recursive: true, force: true });
}

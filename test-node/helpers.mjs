// Running the CLI as a user would (a child process) and making bundles on disk for it.
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { list } from 'tar';

export const CLI = path.resolve(import.meta.dirname, '../cli/posture.mjs');
export const MiB = 1024 * 1024;

/**
 * Runs `posture` with only the environment given (none of the machine's CI variables leak in).
 * @param {string[]} args
 * @param {Record<string, string>} [env]
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string, lines: () => any[] }>}
 */
export function runCli(args, env = {}) {
  return finished(spawnCli(args, env));
}

/** @param {string[]} args @param {Record<string, string>} [env] */
export function spawnCli(args, env = {}) {
  return spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', TMPDIR: tmpdir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * @param {import('node:child_process').ChildProcessWithoutNullStreams | import('node:child_process').ChildProcess} child
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string, lines: () => any[] }>}
 */
export function finished(child) {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (c) => (stdout += c));
    child.stderr?.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({
      code, stdout, stderr,
      lines: () => stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)),
    }));
  });
}

export async function tempDir() {
  return mkdtemp(path.join(tmpdir(), 'posture-test-'));
}

/** A file of `mib` MiB, each MiB different, written without holding it in memory. */
export async function bigFile(dir, name, mib, extraBytes = 0) {
  const file = path.join(dir, name);
  const out = createWriteStream(file);
  for (let i = 0; i < mib; i++) if (!out.write(randomBytes(MiB))) await once(out, 'drain');
  if (extraBytes) out.write(randomBytes(extraBytes));
  out.end();
  await once(out, 'close');
  return file;
}

/** A small CycloneDX document. */
export function bom(name) {
  return JSON.stringify({
    bomFormat: 'CycloneDX', specVersion: '1.6', version: 1,
    metadata: { component: { type: 'application', name } }, components: [],
  });
}

/** Writes `files` ({ relativePath: content }) under `dir`. */
export async function writeTree(dir, files) {
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), content);
  }
}

/** The entries of a .tar.gz held in memory, { path: content }, read through a file in `dir`. */
export async function untarEntries(dir, data) {
  const file = path.join(dir, `${randomUUID()}.tar.gz`);
  await writeFile(file, data);
  /** @type {Record<string, string>} */
  const entries = {};
  await list({
    file,
    onReadEntry: (entry) => {
      let text = '';
      entry.on('data', (c) => (text += c));
      entry.on('end', () => (entries[entry.path] = text));
    },
  });
  return entries;
}

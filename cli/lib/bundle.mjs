// Turning PATH into one bundle file on disk with its SHA-256 and size, computed while the bytes
// stream past (a bundle may be gigabytes: it is never held in memory).
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, rmSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Header, Pack, ReadEntry } from 'tar';
import { UsageError } from './errors.mjs';
import { VERSION } from './version.mjs';

export const MAX_BUNDLE_BYTES = 5 * 1024 ** 3;
// Folders that hold tooling rather than bundle documents (node_modules alone has thousands of .json).
const SKIPPED_DIRS = new Set(['node_modules']);

/**
 * @typedef {object} Manifest
 * @property {string} [subject]
 * @property {string} [tag]
 * @property {{ runId?: string, url?: string }} [ci]
 * @property {{ name: string, version: string }} tool
 * @property {boolean} [runtime]
 */
/**
 * @typedef {object} ManifestInput
 * @property {string} [target]
 * @property {string} [tag]
 * @property {string} [ciRunId]
 * @property {string} [ciUrl]
 * @property {boolean} [runtime]
 */
/**
 * @typedef {object} Bundle
 * @property {string} file the bytes to upload
 * @property {number} size
 * @property {string} sha256 lowercase hex
 * @property {string[] | null} files what was packed (null: PATH was uploaded as is)
 * @property {Manifest | null} manifest
 * @property {() => Promise<void>} cleanup
 */

/**
 * The archive's manifest.json: a manifest.json already at the directory root is the base, the
 * flags win over it, and `tool` always names this client.
 * @param {ManifestInput} input
 * @param {Record<string, unknown>} [base]
 * @returns {Manifest}
 */
export function buildManifest({ target, tag, ciRunId, ciUrl, runtime }, base = {}) {
  /** @type {any} */
  const manifest = { ...base };
  if (target) manifest.subject = target;
  if (tag) manifest.tag = tag;
  if (ciRunId || ciUrl) {
    /** @type {{ runId?: string, url?: string }} */
    const ci = typeof base.ci === 'object' && base.ci !== null ? { ...base.ci } : {};
    if (ciRunId) ci.runId = ciRunId;
    if (ciUrl) ci.url = ciUrl;
    manifest.ci = ci;
  }
  manifest.tool = { name: 'posture-cli', version: VERSION };
  if (runtime) manifest.runtime = true;
  return manifest;
}

/**
 * The files a directory bundle holds, as sorted POSIX paths relative to `dir`: every `*.json`
 * below it (not the root manifest.json, which is generated; not in dot-folders or node_modules)
 * and `runtime/*.jsonl`.
 * @param {string} dir
 */
export async function collectFiles(dir) {
  /** @type {string[]} */
  const found = [];
  /** @param {string} rel */
  async function walk(rel) {
    const entries = await readdir(path.join(dir, rel), { withFileTypes: true });
    for (const entry of entries) {
      const relPath = rel ? `${rel}/${entry.name}` : entry.name;
      // Symbolic links are followed to files only: a linked folder could loop.
      const isDir = entry.isDirectory();
      const isFile = entry.isFile() || (entry.isSymbolicLink() && (await stat(path.join(dir, relPath)).catch(() => null))?.isFile());
      if (isDir) {
        if (!entry.name.startsWith('.') && !SKIPPED_DIRS.has(entry.name)) await walk(relPath);
      } else if (isFile) {
        const lower = entry.name.toLowerCase();
        if (lower.endsWith('.json') && relPath !== 'manifest.json') found.push(relPath);
        else if (lower.endsWith('.jsonl') && rel === 'runtime') found.push(relPath);
      }
    }
  }
  await walk('');
  return found.sort();
}

/**
 * SHA-256 and size of a file, read as a stream.
 * @param {string} file
 * @returns {Promise<{ sha256: string, size: number }>}
 */
export async function hashFile(file) {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { sha256: hash.digest('hex'), size };
}

/**
 * Packs `files` of `dir` and a generated manifest.json into a .tar.gz at `outFile`, hashing the
 * archive as it is written.
 * @param {string} dir
 * @param {string[]} files relative paths from collectFiles
 * @param {Manifest} manifest
 * @param {string} outFile
 */
export async function packDirectory(dir, files, manifest, outFile) {
  const digest = digesting();
  // strict: an unreadable file fails the pack instead of being left out with a warning.
  const pack = new Pack({ cwd: dir, gzip: true, portable: true, follow: true, strict: true });
  const written = pipeline(digest.stream, createWriteStream(outFile));
  pack.on('error', (/** @type {unknown} */ err) => { digest.stream.destroy(/** @type {Error} */ (err)); });
  pack.pipe(digest.stream);
  pack.add(memoryEntry('manifest.json', Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`)));
  for (const file of files) pack.add(file);
  pack.end();
  await written;
  return digest.result();
}

/**
 * PATH as a bundle: a file is uploaded as is; a directory is packed into a temporary .tar.gz
 * (removed by `cleanup`).
 * @param {string} inputPath
 * @param {ManifestInput} manifestInput
 * @returns {Promise<Bundle>}
 */
export async function prepareBundle(inputPath, manifestInput) {
  const info = await stat(inputPath).catch(() => null);
  if (!info) throw new UsageError(`${inputPath}: no such file or directory`);
  if (info.isFile()) {
    if (info.size === 0) throw new UsageError(`${inputPath}: the file is empty`);
    checkSize(info.size);
    const { sha256, size } = await hashFile(inputPath).catch(unreadable(inputPath));
    return { file: inputPath, size, sha256, files: null, manifest: null, cleanup: async () => {} };
  }
  if (!info.isDirectory()) throw new UsageError(`${inputPath}: not a file or a directory`);
  const files = await collectFiles(inputPath).catch(unreadable(inputPath));
  if (!files.some((f) => f.endsWith('.json'))) throw new UsageError(`${inputPath}: no .json files in the directory`);
  const manifest = buildManifest(manifestInput, await readBaseManifest(inputPath));
  const tempDir = await mkdtemp(path.join(tmpdir(), 'posture-'));
  tempDirs.add(tempDir);
  const cleanup = async () => {
    tempDirs.delete(tempDir);
    await rm(tempDir, { recursive: true, force: true });
  };
  try {
    const file = path.join(tempDir, 'bundle.tar.gz');
    const { sha256, size } = await packDirectory(inputPath, files, manifest, file).catch(unreadable(inputPath));
    checkSize(size);
    return { file, size, sha256, files, manifest, cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/** Temporary folders still on disk, for removal when the process is interrupted. */
export const tempDirs = new Set();

export function removeTempDirsSync() {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

/** @param {number} size */
function checkSize(size) {
  if (size > MAX_BUNDLE_BYTES) {
    throw new UsageError(`the bundle is ${(size / 1024 ** 3).toFixed(1)} GiB, more than the 5 GiB maximum`);
  }
}

/** A file that cannot be read is the caller's to fix, like a wrong path. @param {string} inputPath */
function unreadable(inputPath) {
  return (/** @type {Error} */ err) => {
    throw new UsageError(`${inputPath}: cannot read: ${err.message}`);
  };
}

/** @param {string} dir @returns {Promise<Record<string, unknown>>} */
async function readBaseManifest(dir) {
  const text = await readFile(path.join(dir, 'manifest.json'), 'utf8').catch(() => null);
  if (text === null) return {};
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`${path.join(dir, 'manifest.json')}: not valid JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`${path.join(dir, 'manifest.json')}: not a JSON object`);
  }
  return value;
}

/** A tar entry whose bytes come from memory (node-tar packs files from disk otherwise). */
function memoryEntry(/** @type {string} */ name, /** @type {Buffer} */ data) {
  const header = new Header({ path: name, type: 'File', size: data.length, mode: 0o644, mtime: new Date() });
  const entry = new ReadEntry(header);
  entry.end(data);
  return entry;
}

/** A pass-through stream that hashes and counts what flows through it. */
function digesting() {
  const hash = createHash('sha256');
  let size = 0;
  const stream = new Transform({
    transform(chunk, _encoding, callback) {
      hash.update(chunk);
      size += chunk.length;
      callback(null, chunk);
    },
  });
  return { stream, result: () => ({ sha256: hash.digest('hex'), size }) };
}

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
import { CliError, UsageError } from './errors.mjs';
import { applyRuntimeSettings } from './runtime.mjs';
import { VERSION } from './version.mjs';

// The service's MAX_BUNDLE_BYTES default (src/routes/bundles/bundles.service.ts), used without runtime settings.
export const MAX_BUNDLE_BYTES = 200 * 1024 ** 2;
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
 * @property {import('./runtime.mjs').RuntimeSummary | null} runtime what the runtime settings did to
 *   the directory's records (null: no settings, or PATH is a file)
 * @property {() => Promise<void>} cleanup
 */
/**
 * @typedef {object} BundleOptions
 * @property {import('./runtime.mjs').RuntimeSettings} [runtime] a runtime survey's settings: applied
 *   to a directory's records, and its `upload.maxBundleBytes` bounds the bundle
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
 * and `runtime/*.jsonl` (`runtimeDir`: the runtime settings' `record.directory`).
 * @param {string} dir
 * @param {string} [runtimeDir]
 */
export async function collectFiles(dir, runtimeDir = 'runtime') {
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
        else if (lower.endsWith('.jsonl') && rel === runtimeDir) found.push(relPath);
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
 * archive as it is written. A file named in `replaced` is packed under its own relative path, its
 * bytes read from the file `replaced` names (the runtime records the settings rewrote).
 * @param {string} dir
 * @param {string[]} files relative paths from collectFiles
 * @param {Manifest} manifest
 * @param {string} outFile
 * @param {Map<string, string>} [replaced]
 */
export async function packDirectory(dir, files, manifest, outFile, replaced = new Map()) {
  const digest = digesting();
  // strict: an unreadable file fails the pack instead of being left out with a warning.
  const pack = new Pack({ cwd: dir, gzip: true, portable: true, follow: true, strict: true });
  const written = pipeline(digest.stream, createWriteStream(outFile));
  pack.on('error', (/** @type {unknown} */ err) => { digest.stream.destroy(/** @type {Error} */ (err)); });
  pack.pipe(digest.stream);
  pack.add(memoryEntry('manifest.json', Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`)));
  for (const file of files) {
    const source = replaced.get(file);
    pack.add(source ? await fileEntry(file, source) : file);
  }
  pack.end();
  await written;
  return digest.result();
}

/**
 * PATH as a bundle: a file is uploaded as is; a directory is packed into a temporary .tar.gz
 * (removed by `cleanup`). With runtime settings, a directory's runtime records are packed as the
 * settings leave them (lib/runtime.mjs) and the bundle may be at most `upload.maxBundleBytes`.
 * @param {string} inputPath
 * @param {ManifestInput} manifestInput
 * @param {BundleOptions} [options]
 * @returns {Promise<Bundle>}
 */
export async function prepareBundle(inputPath, manifestInput, { runtime } = {}) {
  const maxBytes = runtime?.upload.maxBundleBytes ?? MAX_BUNDLE_BYTES;
  const info = await stat(inputPath).catch(() => null);
  if (!info) throw new UsageError(`${inputPath}: no such file or directory`);
  if (info.isFile()) {
    if (info.size === 0) throw new UsageError(`${inputPath}: the file is empty`);
    checkSize(info.size, maxBytes, runtime);
    const { sha256, size } = await hashFile(inputPath).catch(unreadable(inputPath));
    return { file: inputPath, size, sha256, files: null, manifest: null, runtime: null, cleanup: async () => {} };
  }
  if (!info.isDirectory()) throw new UsageError(`${inputPath}: not a file or a directory`);
  const runtimeDir = runtime?.record.directory ?? 'runtime';
  let files = await collectFiles(inputPath, runtimeDir).catch(unreadable(inputPath));
  const isRecords = (/** @type {string} */ f) => f.startsWith(`${runtimeDir}/`) && f.endsWith('.jsonl');
  const hasDocuments = files.some((f) => f.endsWith('.json'));
  // Without settings a directory needs a document; a runtime survey may carry records alone.
  if (!hasDocuments && !(runtime && files.some(isRecords))) {
    throw new UsageError(`${inputPath}: no .json files in the directory${runtime ? ` and no ${runtimeDir}/*.jsonl records` : ''}`);
  }
  const manifest = buildManifest(manifestInput, await readBaseManifest(inputPath));
  const tempDir = await mkdtemp(path.join(tmpdir(), 'posture-'));
  tempDirs.add(tempDir);
  const cleanup = async () => {
    tempDirs.delete(tempDir);
    await rm(tempDir, { recursive: true, force: true });
  };
  try {
    /** @type {Map<string, string>} */
    let replaced = new Map();
    /** @type {import('./runtime.mjs').RuntimeSummary | null} */
    let summary = null;
    if (runtime) {
      const records = files.filter(isRecords);
      const applied = await applyRuntimeSettings(inputPath, records, runtime, path.join(tempDir, 'runtime-records')).catch((err) => {
        if (err instanceof CliError) throw err; // a record the service would refuse, named by file and line
        return unreadable(inputPath)(err);
      });
      replaced = applied.written;
      summary = applied.summary;
      // A file the settings emptied is left out.
      files = files.filter((f) => !isRecords(f) || replaced.has(f));
      if (!hasDocuments && replaced.size === 0) {
        throw new UsageError(`${inputPath}: no .json files in the directory, and the runtime settings left none of its ${summary.read} records (${summary.excluded} excluded)`);
      }
    }
    const file = path.join(tempDir, 'bundle.tar.gz');
    const { sha256, size } = await packDirectory(inputPath, files, manifest, file, replaced).catch(unreadable(inputPath));
    checkSize(size, maxBytes, runtime);
    return { file, size, sha256, files, manifest, runtime: summary, cleanup };
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

/**
 * @param {number} size
 * @param {number} max
 * @param {unknown} [fromSettings] the maximum is the runtime settings' `upload.maxBundleBytes`
 */
function checkSize(size, max, fromSettings) {
  if (size <= max) return;
  if (!fromSettings) throw new UsageError(`the bundle is ${(size / 1024 ** 2).toFixed(1)} MiB, more than the ${max / 1024 ** 2} MiB maximum`);
  throw new UsageError(`the bundle is ${size} bytes, more than the ${max} bytes the runtime settings allow (upload.maxBundleBytes)`);
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

/**
 * A tar entry whose bytes stream from `source` (a file of this run's temporary folder).
 * @param {string} name the path in the archive
 * @param {string} source
 */
async function fileEntry(name, source) {
  const { size } = await stat(source);
  const header = new Header({ path: name, type: 'File', size, mode: 0o644, mtime: new Date() });
  const entry = new ReadEntry(header);
  createReadStream(source).pipe(/** @type {any} */ (entry));
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

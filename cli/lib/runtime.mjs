// A runtime survey's settings: the document of `GET P/bundle/upload/runtime-config` (spec 4.7), read
// with the pass before anything is packed, and applied to a directory's runtime records
// (`record.directory`, `*.jsonl`) as they stream past: `exclude`, `capture` and `record.fields`,
// then `sampling.maxObservations`. The service reads the result as any other records
// (src/analysis/runtime.ts); what it cannot apply here (the collector's `flushSeconds` and
// `maxDurationSeconds`) is the collector's to honour.
import { createReadStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { CliError, UsageError } from './errors.mjs';

/** The layout of the document this client knows. */
export const RUNTIME_CONFIG_VERSION = 1;

/** The `capture` flag that decides whether each observation field is filled. */
export const CAPTURE_FLAGS = /** @type {const} */ ({
  algorithm: 'algorithms', keySize: 'keySizes', protocol: 'protocols', cipherSuite: 'cipherSuites', group: 'groups', library: 'libraries',
});

// What the service accepts in each field (src/analysis/runtime.ts, ObservationSchema): checked here
// so a bad record is named by its own file and line, not by a line of the rewritten file.
const LABEL_FIELDS = new Set(['algorithm', 'protocol', 'cipherSuite', 'group', 'library']);
const MAX_LABEL = 256;

/**
 * @typedef {object} RuntimeSettings
 * @property {number} version
 * @property {{ maxObservations: number, flushSeconds?: number, maxDurationSeconds?: number }} sampling
 * @property {Record<string, boolean>} capture
 * @property {string[]} exclude
 * @property {{ directory: string, format: 'jsonl', fields: string[] }} record `directory` without
 *   its trailing slash ("runtime")
 * @property {{ partSizeBytes: number, maxBundleBytes: number, maxParallelParts: number, partUrlSeconds?: number }} upload
 * @property {string[]} keptFields `record.fields` less the fields whose `capture` flag is false, in order
 */
/**
 * @typedef {object} RuntimeSummary what applying the settings did
 * @property {number} version
 * @property {number} files runtime files read
 * @property {number} read records read (blank lines are not records)
 * @property {number} excluded records dropped by `exclude`
 * @property {number} merged records that only raised the `count` of an equal record kept before
 * @property {number} overLimit records dropped because `sampling.maxObservations` records were kept already
 * @property {number} kept distinct records written
 * @property {string[]} fields the fields written
 */

/**
 * Reads the runtime settings document with the pass.
 * @param {import('./api.mjs').ServiceClient} client
 * @returns {Promise<RuntimeSettings>}
 */
export async function fetchRuntimeSettings(client) {
  return parseRuntimeSettings(await client.json('runtime settings', 'GET', 'bundle/upload/runtime-config'));
}

/**
 * Checks the document and answers it with `keptFields`; a document this client cannot apply as its
 * fields define is a failure (exit 1), never a silent upload without the settings.
 * @param {unknown} doc
 * @returns {RuntimeSettings}
 */
export function parseRuntimeSettings(doc) {
  const bad = (/** @type {string} */ why) =>
    new CliError(`runtime settings: the answer is not a runtime settings document: ${why} (invalid_answer)`, { code: 'invalid_answer' });
  const obj = (/** @type {unknown} */ v) => typeof v === 'object' && v !== null && !Array.isArray(v);
  const int = (/** @type {unknown} */ v, /** @type {number} */ min) => Number.isSafeInteger(v) && /** @type {number} */ (v) >= min;
  if (!obj(doc)) throw bad('not a JSON object');
  const d = /** @type {Record<string, any>} */ (doc);
  if (!Number.isSafeInteger(d.version)) throw bad('version is not an integer');
  if (d.version !== RUNTIME_CONFIG_VERSION) {
    throw new CliError(`runtime settings: the service sends version ${d.version} of the document; this CLI applies version ${RUNTIME_CONFIG_VERSION}: update the CLI (unsupported_runtime_config)`, { code: 'unsupported_runtime_config' });
  }
  if (!obj(d.sampling) || !int(d.sampling.maxObservations, 0)) throw bad('sampling.maxObservations is not a whole number');
  if (!obj(d.capture)) throw bad('capture is not an object');
  if (!Array.isArray(d.exclude) || !d.exclude.every((/** @type {unknown} */ e) => typeof e === 'string')) throw bad('exclude is not a list of strings');
  if (!obj(d.record) || typeof d.record.directory !== 'string' || !Array.isArray(d.record.fields) || !d.record.fields.every((/** @type {unknown} */ f) => typeof f === 'string')) {
    throw bad('record needs directory and fields');
  }
  if (d.record.format !== 'jsonl') {
    throw new CliError(`runtime settings: records in the format ${JSON.stringify(d.record.format)}; this CLI writes jsonl: update the CLI (unsupported_runtime_config)`, { code: 'unsupported_runtime_config' });
  }
  const directory = d.record.directory.replace(/^\.\//, '').replace(/\/+$/, '');
  if (directory === '' || directory.startsWith('/') || directory.split('/').some((/** @type {string} */ s) => s === '' || s === '.' || s === '..')) {
    throw bad(`record.directory ${JSON.stringify(d.record.directory)} is not a folder inside the bundle`);
  }
  const u = d.upload;
  if (!obj(u) || !int(u.partSizeBytes, 1) || !int(u.maxBundleBytes, 1) || !int(u.maxParallelParts, 1)) {
    throw bad('upload needs partSizeBytes, maxBundleBytes and maxParallelParts, each a whole number above 0');
  }
  const capture = /** @type {Record<string, boolean>} */ (d.capture);
  /** @type {string[]} */
  const fields = d.record.fields;
  const keptFields = [...new Set(fields)].filter((f) => {
    const flag = /** @type {Record<string, string>} */ (CAPTURE_FLAGS)[f];
    return flag === undefined || capture[flag] !== false;
  });
  // Every record the service reads needs its algorithm: settings that drop it leave nothing to upload.
  if (!keptFields.includes('algorithm')) {
    throw new CliError('runtime settings: they do not record `algorithm`, which every runtime record needs: the service would refuse the records (unsupported_runtime_config)', { code: 'unsupported_runtime_config' });
  }
  return {
    version: d.version, sampling: d.sampling, capture, exclude: d.exclude,
    record: { directory, format: 'jsonl', fields }, upload: u, keptFields,
  };
}

/**
 * One `exclude` entry as a test of a record's `library`. An entry without `/` and without glob
 * characters is a library name (compared without regard to case, with the whole value and with its
 * last path segment); any other entry is a path glob (`*` and `?` within a segment, `**` across
 * segments, `[...]`, a trailing `/` for everything below), matched with the whole value, or, when
 * the glob has no `/`, with its last path segment too.
 * @param {string} pattern
 * @returns {(library: string) => boolean}
 */
export function excludeRule(pattern) {
  const trimmed = pattern.trim().replace(/^\.\//, '');
  const hasSlash = trimmed.includes('/');
  const lastSegment = (/** @type {string} */ value) => value.slice(value.lastIndexOf('/') + 1);
  if (!hasSlash && !/[*?[]/.test(trimmed)) {
    const name = trimmed.toLowerCase();
    return (library) => {
      const value = library.trim().toLowerCase();
      return value === name || lastSegment(value) === name;
    };
  }
  const regex = globToRegExp(trimmed.endsWith('/') ? `${trimmed}**` : trimmed);
  return (library) => {
    const value = library.trim().replace(/^\.\//, '');
    return regex.test(value) || (!hasSlash && regex.test(lastSegment(value)));
  };
}

/**
 * A glob as an anchored regular expression.
 * @param {string} glob
 */
export function globToRegExp(glob) {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        i++;
        if (glob[i + 1] === '/') {
          i++;
          out += '(?:.*/)?'; // `**/`: any number of whole segments, none included
        } else {
          out += '.*';
        }
      } else {
        out += '[^/]*';
      }
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close === -1) {
        out += '\\[';
      } else {
        let body = glob.slice(i + 1, close);
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        out += `[${body.replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else {
      out += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
    }
  }
  return new RegExp(`^${out}$`);
}

/**
 * Applies `settings` to the runtime files `files` (paths relative to `dir`, in order) and writes
 * what is left below `outDir` with the same relative paths. Records equal in every field kept
 * (`count` aside) become one record whose `count` is their sum; once `sampling.maxObservations`
 * distinct records are kept, a record unlike all of them is dropped. A file left without records
 * is not written.
 * @param {string} dir
 * @param {string[]} files
 * @param {RuntimeSettings} settings
 * @param {string} outDir
 * @returns {Promise<{ written: Map<string, string>, summary: RuntimeSummary }>} `written`: relative
 *   path to the file written
 */
export async function applyRuntimeSettings(dir, files, settings, outDir) {
  const rules = settings.exclude.filter((p) => p.trim() !== '').map(excludeRule);
  const fields = settings.keptFields;
  const withCount = fields.includes('count');
  const { maxObservations } = settings.sampling;
  /** @type {Map<string, { file: string, record: Record<string, unknown>, count: number }>} */
  const kept = new Map();
  const summary = { version: settings.version, files: files.length, read: 0, excluded: 0, merged: 0, overLimit: 0, kept: 0, fields };

  for (const file of files) {
    const where = (/** @type {number} */ n) => `${path.join(dir, file)} line ${n}`;
    const lines = createInterface({ input: createReadStream(path.join(dir, file)), crlfDelay: Infinity });
    let n = 0;
    for await (const raw of lines) {
      n++;
      const text = (n === 1 ? raw.replace(/^\uFEFF/, '') : raw).trim();
      if (text === '') continue;
      summary.read++;
      let value;
      try {
        value = JSON.parse(text);
      } catch (err) {
        throw new UsageError(`${where(n)}: not valid JSON: ${/** @type {Error} */ (err).message}`);
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`${where(n)}: not a JSON object`);
      // A count the settings do not record is not sent: each record then stands for one use.
      const count = value.count === undefined || !withCount ? 1 : value.count;
      if (!Number.isSafeInteger(count) || count < 1) throw new UsageError(`${where(n)}: count must be a whole number above 0`);
      // Exclusion reads the library as recorded, whether or not the library is kept.
      if (typeof value.library === 'string' && rules.some((matches) => matches(value.library))) {
        summary.excluded++;
        continue;
      }
      /** @type {Record<string, unknown>} */
      const record = {};
      for (const field of fields) {
        if (field === 'count' || value[field] === undefined) continue;
        record[field] = checkField(field, value[field], where(n));
      }
      if (record.algorithm === undefined) throw new UsageError(`${where(n)}: no algorithm (every runtime record names one)`);
      const key = JSON.stringify(Object.entries(record));
      const same = kept.get(key);
      if (same) {
        same.count += count;
        summary.merged++;
      } else if (kept.size < maxObservations) {
        kept.set(key, { file, record, count });
      } else {
        summary.overLimit++;
      }
    }
  }

  /** @type {Map<string, string[]>} */
  const byFile = new Map();
  for (const { file, record, count } of kept.values()) {
    /** @type {Record<string, unknown>} */
    const line = {};
    for (const field of fields) {
      if (field === 'count') line.count = count;
      else if (record[field] !== undefined) line[field] = record[field];
    }
    if (!byFile.has(file)) byFile.set(file, []);
    /** @type {string[]} */ (byFile.get(file)).push(JSON.stringify(line));
  }
  /** @type {Map<string, string>} */
  const written = new Map();
  for (const file of files) {
    const lines = byFile.get(file);
    if (!lines) continue;
    const target = path.join(outDir, file);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, `${lines.join('\n')}\n`);
    written.set(file, target);
  }
  summary.kept = kept.size;
  return { written, summary };
}

/**
 * A kept field's value as the service will accept it (labels trimmed), or a usage error naming the
 * record. Fields the service does not know are passed on as they are.
 * @param {string} field
 * @param {unknown} value
 * @param {string} where
 */
function checkField(field, value, where) {
  if (LABEL_FIELDS.has(field)) {
    const label = typeof value === 'string' ? value.trim() : '';
    if (label === '' || label.length > MAX_LABEL) throw new UsageError(`${where}: ${field} must be a text of 1 to ${MAX_LABEL} characters`);
    return label;
  }
  if (field === 'keySize' && !(Number.isSafeInteger(value) && /** @type {number} */ (value) > 0)) {
    throw new UsageError(`${where}: keySize must be a whole number of bits above 0`);
  }
  return value;
}

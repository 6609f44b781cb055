// A runtime survey (--runtime) applies the service's runtime settings document
// (`GET P/bundle/upload/runtime-config`): exclude, capture and record.fields, sampling, and the upload
// settings; any other upload never reads it.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { applyRuntimeSettings, excludeRule, globToRegExp, parseRuntimeSettings } from '../cli/lib/runtime.mjs';
import { partsPlan } from '../cli/lib/upload.mjs';
import { RUNTIME_CONFIG, mintPass, startFake } from './fake-service.mjs';
import { MiB, bom, runCli, tempDir, untarEntries, writeTree } from './helpers.mjs';

const PROJECT = randomUUID();
const CONFIG_PATH = `/api/v1/project/${PROJECT}/bundle/upload/runtime-config`;
/** @type {string} */ let dir;
/** @type {string} */ let pass;
/** @type {Awaited<ReturnType<typeof startFake>> | null} */ let fake = null;

beforeAll(async () => {
  dir = await tempDir();
  pass = await mintPass(PROJECT);
});
afterEach(async () => {
  await fake?.close();
  fake = null;
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The service's document with `changes` merged in, one level deep. */
function config(/** @type {Record<string, any>} */ changes = {}) {
  /** @type {Record<string, any>} */
  const doc = structuredClone(RUNTIME_CONFIG);
  for (const [key, value] of Object.entries(changes)) {
    doc[key] = typeof value === 'object' && value !== null && !Array.isArray(value) ? { ...doc[key], ...value } : value;
  }
  return doc;
}

/** @param {Partial<import('./fake-service.mjs').FakeOptions>} [options] */
async function serve(options = {}) {
  fake = await startFake({ projectId: PROJECT, ...options });
  return fake;
}
const env = () => ({ POSTURE_API: fake?.url ?? '', POSTURE_PASS: pass });
const routes = (/** @type {NonNullable<typeof fake>} */ f) =>
  f.state.requests.map((r) => `${r.method} ${r.path.replace(`/api/v1/project/${PROJECT}/`, '')}`);
const jsonl = (/** @type {object[]} */ records) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

const untar = (/** @type {Buffer} */ data) => untarEntries(dir, data);
const lines = (/** @type {string} */ text) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l));

describe('a runtime upload applies the settings to the records', () => {
  it('reads the settings with the pass before anything else, then drops excluded libraries, keeps the recorded fields and merges equal records', async () => {
    const f = await serve({
      runtimeConfig: config({
        exclude: ['BouncyCastle', '/opt/legacy/**', 'libcrypto.so.1*'],
        capture: { keySizes: false },
        record: { fields: ['algorithm', 'keySize', 'cipherSuite', 'group', 'library', 'count'] },
      }),
    });
    const src = path.join(dir, 'apply');
    await writeTree(src, {
      'sbom.json': bom('svc'),
      'runtime/tls.jsonl': jsonl([
        { algorithm: 'ECDHE', protocol: 'TLSv1.3', group: 'X25519MLKEM768', library: 'openssl', count: 4 },
        { algorithm: 'RSA', keySize: 2048, library: 'bouncycastle', count: 9 }, // a library name, any case
        { algorithm: 'ECDHE', protocol: 'TLSv1.2', group: 'X25519MLKEM768', library: 'openssl', pid: 41 }, // equal once protocol and pid go
        { algorithm: 'AES-128-CBC', library: '/opt/legacy/lib/libssl.so.1.0.0' }, // a path glob
        { algorithm: 'SHA-1', library: '/usr/lib/x86_64-linux-gnu/libcrypto.so.1.1' }, // a glob of the last segment
      ]),
      'runtime/jvm.jsonl': '\uFEFF' + jsonl([
        { algorithm: 'RSA', keySize: 3072, cipherSuite: 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', library: 'SunJSSE', count: 2 },
        { algorithm: 'RSA', keySize: 4096, cipherSuite: 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', library: 'SunJSSE' }, // keySize not captured: equal
        { algorithm: 'ECDHE', group: 'X25519MLKEM768', library: 'openssl', count: 5 }, // equal to a record of tls.jsonl
      ]) + '\n\n',
    });
    const res = await runCli(['upload', src, '--runtime'], env());
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(routes(f).slice(0, 2)).toEqual(['GET bundle/upload/runtime-config', 'POST survey']);
    expect(f.state.requests[0].headers.authorization).toBe(`Bearer ${pass}`);
    expect(f.state.surveyRequests.get([...f.state.surveys.keys()][0])).toEqual({ jobType: 'RUNTIME_SURVEY' });

    const entries = await untar(f.state.bundles[0].data);
    // tls.jsonl is left out: its records were excluded or merged into those of jvm.jsonl.
    expect(Object.keys(entries)).toEqual(['manifest.json', 'runtime/jvm.jsonl', 'sbom.json']);
    expect(entries['sbom.json']).toBe(bom('svc'));
    expect(JSON.parse(entries['manifest.json']).runtime).toBe(true);
    // Files are read in order (jvm before tls); a record's first file keeps it, with every count added.
    expect(lines(entries['runtime/jvm.jsonl'])).toEqual([
      { algorithm: 'RSA', cipherSuite: 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', library: 'SunJSSE', count: 3 },
      { algorithm: 'ECDHE', group: 'X25519MLKEM768', library: 'openssl', count: 10 },
    ]);
    expect(res.stdout).toContain('runtime settings v1: 8 records in 2 files: 3 excluded, 3 merged into the count of an equal record, '
      + '0 over the 100000-record limit; 2 kept (algorithm, cipherSuite, group, library, count)\n');
  });

  it('keeps at most sampling.maxObservations distinct records: later uses of a kept one raise its count, new ones are dropped (--json reports it)', async () => {
    const f = await serve({ runtimeConfig: config({ sampling: { maxObservations: 2 } }) });
    const src = path.join(dir, 'sampling');
    await writeTree(src, {
      'runtime/a.jsonl': jsonl([
        { algorithm: 'ECDSA', keySize: 256 },
        { algorithm: 'RSA', keySize: 2048, count: 3 },
        { algorithm: 'MD5' }, // a third distinct record: over the limit
        { algorithm: 'ECDSA', keySize: 256, count: 6 }, // kept already: raises the count
        { algorithm: 'SHA-1', count: 2 }, // over the limit
      ]),
    });
    const res = await runCli(['upload', src, '--runtime', '--json'], env());
    expect(res.code).toBe(0);
    const entries = await untar(f.state.bundles[0].data);
    // A runtime survey may carry records alone: no .json document is needed.
    expect(Object.keys(entries)).toEqual(['manifest.json', 'runtime/a.jsonl']);
    expect(lines(entries['runtime/a.jsonl'])).toEqual([{ algorithm: 'ECDSA', keySize: 256, count: 7 }, { algorithm: 'RSA', keySize: 2048, count: 3 }]);
    expect(res.lines()[0]).toEqual({
      event: 'runtime', version: 1, applied: true, files: 1, read: 5, excluded: 0, merged: 1, overLimit: 2, kept: 2,
      fields: RUNTIME_CONFIG.record.fields, maxObservations: 2,
      upload: { partSizeBytes: RUNTIME_CONFIG.upload.partSizeBytes, maxParallelParts: 4, maxBundleBytes: RUNTIME_CONFIG.upload.maxBundleBytes },
    });
    expect(res.lines()[1].event).toBe('survey');
  });

  it('reads the records from record.directory and leaves out a file the settings emptied', async () => {
    const f = await serve({ runtimeConfig: config({ exclude: ['node_modules/'], record: { directory: 'observations/' } }) });
    const src = path.join(dir, 'directory');
    await writeTree(src, {
      'sbom.json': bom('svc'),
      'observations/app.jsonl': jsonl([{ algorithm: 'HMAC-SHA256', library: 'node:crypto' }]),
      'observations/deps.jsonl': jsonl([{ algorithm: 'SHA-1', library: 'node_modules/legacy-jwt/index.js' }]),
      'runtime/ignored.jsonl': jsonl([{ algorithm: 'MD5' }]), // not the settings' directory
    });
    const res = await runCli(['upload', src, '--runtime'], env());
    expect(res.code).toBe(0);
    const entries = await untar(f.state.bundles[0].data);
    expect(Object.keys(entries)).toEqual(['manifest.json', 'observations/app.jsonl', 'sbom.json']);
    expect(lines(entries['observations/app.jsonl'])).toEqual([{ algorithm: 'HMAC-SHA256', library: 'node:crypto', count: 1 }]);
    expect(res.stdout).toContain('packed 2 files from');
  });

  it('refuses a record the service would refuse, naming its file and line, before a survey is started (exit 2)', async () => {
    const cases = [
      ['{"algorithm":"RSA"}\nnot json\n', 'line 2: not valid JSON'],
      ['{"algorithm":"RSA"}\n\n{"keySize":2048}\n', 'line 3: no algorithm (every runtime record names one)'],
      ['{"algorithm":"RSA","count":0}\n', 'line 1: count must be a whole number above 0'],
      ['{"algorithm":"RSA","keySize":"2048"}\n', 'line 1: keySize must be a whole number of bits above 0'],
      ['[1,2]\n', 'line 1: not a JSON object'],
    ];
    for (const [content, message] of cases) {
      const f = await serve();
      const src = path.join(dir, `bad-${randomUUID()}`);
      await writeTree(src, { 'sbom.json': bom('svc'), 'runtime/x.jsonl': content });
      const res = await runCli(['upload', src, '--runtime'], env());
      expect(res.code).toBe(2);
      expect(res.stderr).toContain(`posture: ${path.join(src, 'runtime/x.jsonl')} ${message}`);
      expect(routes(f)).toEqual(['GET bundle/upload/runtime-config']);
      await f.close();
      fake = null;
    }
  });

  it('a directory whose records were all excluded and that has no document uploads nothing (exit 2)', async () => {
    const f = await serve({ runtimeConfig: config({ exclude: ['openssl'] }) });
    const src = path.join(dir, 'all-excluded');
    await writeTree(src, { 'runtime/x.jsonl': jsonl([{ algorithm: 'RSA', library: 'OpenSSL' }]) });
    const res = await runCli(['upload', src, '--runtime'], env());
    expect(res.code).toBe(2);
    expect(res.stderr).toBe(`posture: ${src}: no .json files in the directory, and the runtime settings left none of its 1 records (1 excluded)\n`);
    expect(routes(f)).toEqual(['GET bundle/upload/runtime-config']);
  });
});

describe('a runtime upload uses the upload settings', () => {
  it('sends upload.maxParallelParts parts at once and says how the parts of upload.partSizeBytes go', async () => {
    const f = await serve({
      partSize: 1 * MiB, partDelayMs: 150,
      runtimeConfig: config({ upload: { partSizeBytes: 1 * MiB, maxParallelParts: 1 } }),
    });
    const src = path.join(dir, 'parts');
    // Random bytes do not compress: the archive is a little over 2.5 MiB, 3 parts of 1 MiB.
    await writeTree(src, { 'runtime/x.jsonl': jsonl([{ algorithm: 'RSA' }]), 'noise.json': randomBytes(2.5 * MiB) });
    const res = await runCli(['upload', src, '--runtime'], env());
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(f.state.parts.map((p) => p.partNumber).sort()).toEqual([1, 2, 3]);
    expect(f.state.parts.filter((p) => p.partNumber < 3).every((p) => p.size === MiB)).toBe(true);
    expect(f.state.maxInFlightParts).toBe(1);
    expect(res.stdout).toMatch(/\nuploading 3 parts of 1 MiB \(the last \d+ bytes\), 1 at a time \(runtime settings\)\n/);
  });

  it('says so when the service answers parts of another size than its settings name, and sends the parts it answered', async () => {
    const f = await serve({ partSize: 2 * MiB, runtimeConfig: config({ upload: { partSizeBytes: 1 * MiB, maxParallelParts: 3 } }) });
    const src = path.join(dir, 'other-size');
    await writeTree(src, { 'runtime/x.jsonl': jsonl([{ algorithm: 'RSA' }]), 'noise.json': randomBytes(3 * MiB) });
    const res = await runCli(['upload', src, '--runtime'], env());
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/\nuploading 2 parts of 2 MiB \(the last \d+ bytes\), 3 at a time \(runtime settings\); the runtime settings name 1 MiB parts, the service answered 2 MiB\n/);
    expect(f.state.completions).toBe(1);
  });

  it('refuses a bundle over upload.maxBundleBytes before a survey is started (exit 2)', async () => {
    const f = await serve({ runtimeConfig: config({ upload: { maxBundleBytes: 100 } }) });
    const src = path.join(dir, 'too-big');
    await writeTree(src, { 'sbom.json': bom('svc'), 'runtime/x.jsonl': jsonl([{ algorithm: 'RSA' }]) });
    const res = await runCli(['upload', src, '--runtime'], env());
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/^posture: the bundle is \d+ bytes, more than the 100 bytes the runtime settings allow \(upload\.maxBundleBytes\)\n$/);
    expect(routes(f)).toEqual(['GET bundle/upload/runtime-config']);
  });

  it('uploads a file PATH as is, saying that its records are not rewritten, with the upload settings', async () => {
    const f = await serve({ runtimeConfig: config({ upload: { maxParallelParts: 2 } }) });
    const file = path.join(dir, 'as-is.cdx.json');
    await writeFile(file, bom('svc'));
    const res = await runCli(['upload', file, '--runtime'], env());
    expect(res.code).toBe(0);
    expect(f.state.bundles[0].data.toString()).toBe(bom('svc'));
    expect(res.stdout).toContain(`runtime settings v1: ${file} is uploaded as is (records inside a file are not rewritten; upload a directory to apply exclude, fields and sampling)\n`);
    expect(res.stdout).toContain('uploading 1 part of');
    expect(res.stdout).toContain(', 2 at a time (runtime settings)\n');
  });
});

describe('which uploads read the settings', () => {
  it('an inventory upload (no --runtime) never reads them, and packs runtime records byte for byte', async () => {
    const f = await serve({ runtimeConfig: config({ exclude: ['openssl'] }) });
    const src = path.join(dir, 'inventory');
    const records = '{"algorithm":"RSA","library":"openssl","pid":7}\n{"algorithm":"RSA","library":"openssl","pid":7}\n';
    await writeTree(src, { 'sbom.json': bom('svc'), 'runtime/x.jsonl': records });
    const res = await runCli(['upload', src], env());
    expect(res.code).toBe(0);
    expect(f.state.requests.some((r) => r.path === CONFIG_PATH)).toBe(false);
    expect((await untar(f.state.bundles[0].data))['runtime/x.jsonl']).toBe(records);
    expect(res.stdout).not.toContain('runtime settings');
  });

  it('a file upload without --runtime never reads them either', async () => {
    const f = await serve();
    const file = path.join(dir, 'plain.cdx.json');
    await writeFile(file, bom('svc'));
    expect((await runCli(['upload', file], env())).code).toBe(0);
    expect(f.state.requests.some((r) => r.path === CONFIG_PATH)).toBe(false);
  });

  it('a mistyped PATH is a usage error before the settings are read', async () => {
    const f = await serve();
    const missing = path.join(dir, 'no-such-dir');
    expect(await runCli(['upload', missing, '--runtime'], env())).toMatchObject({ code: 2, stderr: `posture: ${missing}: no such file or directory\n` });
    expect(f.state.requests).toEqual([]);
  });

  it('retries the settings on a 503 like any call', async () => {
    const f = await serve({ fail: { 'runtime-config': [{ status: 503, retryAfter: '0' }] } });
    const file = path.join(dir, 'retry.cdx.json');
    await writeFile(file, bom('svc'));
    const res = await runCli(['upload', file, '--runtime'], env());
    expect(res.code).toBe(0);
    expect(routes(f).slice(0, 3)).toEqual(['GET bundle/upload/runtime-config', 'GET bundle/upload/runtime-config', 'POST survey']);
  });

  it('settings it cannot apply, or none, stop the run before a survey is started (exit 1)', async () => {
    const file = path.join(dir, 'unusable.cdx.json');
    await writeFile(file, bom('svc'));
    const cases = [
      [{ runtimeConfig: config({ version: 2 }) },
        'runtime settings: the service sends version 2 of the document; this CLI applies version 1: update the CLI (unsupported_runtime_config)'],
      [{ runtimeConfig: config({ record: { format: 'csv' } }) },
        'runtime settings: records in the format "csv"; this CLI writes jsonl: update the CLI (unsupported_runtime_config)'],
      [{ runtimeConfig: config({ capture: { algorithms: false } }) },
        'runtime settings: they do not record `algorithm`, which every runtime record needs: the service would refuse the records (unsupported_runtime_config)'],
      [{ runtimeConfig: config({ upload: { maxParallelParts: 0 } }) },
        'runtime settings: the answer is not a runtime settings document: upload needs partSizeBytes, maxBundleBytes and maxParallelParts, each a whole number above 0 (invalid_answer)'],
      [{ runtimeConfig: [] }, 'runtime settings: the answer is not a runtime settings document: not a JSON object (invalid_answer)'],
      [{ fail: { 'runtime-config': [{ status: 404, code: 'not_found' }] } }, 'runtime settings: injected 404 (not_found)'],
    ];
    for (const [options, message] of cases) {
      const f = await serve(/** @type {any} */ (options));
      const res = await runCli(['upload', file, '--runtime'], env());
      expect(res).toMatchObject({ code: 1, stderr: `posture: ${message}\n` });
      expect(routes(f)).toEqual(['GET bundle/upload/runtime-config']);
      await f.close();
      fake = null;
    }
  });
});

describe('units', () => {
  it("the fake serves the service's own document, and the CLI can apply it", async () => {
    const { runtimeConfig } = await import('../src/routes/bundles/bundles.service.ts');
    const served = runtimeConfig(/** @type {any} */ ({ MAX_BUNDLE_BYTES: '209715200' }));
    expect(RUNTIME_CONFIG).toEqual(served);
    expect(parseRuntimeSettings(served).keptFields).toEqual(served.record.fields);
  });

  it('parseRuntimeSettings keeps record.fields whose capture flag is not false, in order, and the directory without its slash', () => {
    const settings = parseRuntimeSettings(config({ capture: { protocols: false, libraries: false }, record: { fields: ['count', 'algorithm', 'library', 'protocol', 'keySize', 'thread'] } }));
    expect(settings.keptFields).toEqual(['count', 'algorithm', 'keySize', 'thread']);
    expect(settings.record.directory).toBe('runtime');
    expect(() => parseRuntimeSettings(config({ record: { directory: '../x/' } }))).toThrow(/record.directory "..\/x\/" is not a folder inside the bundle/);
  });

  it('excludeRule: names without regard to case, globs by segment, a trailing slash for everything below', () => {
    const matches = (/** @type {string} */ pattern, /** @type {string} */ library) => excludeRule(pattern)(library);
    expect(matches('BouncyCastle', 'bouncycastle')).toBe(true);
    expect(matches('bouncycastle', 'bouncycastle-fips')).toBe(false);
    expect(matches('libssl.so.3', '/usr/lib/libssl.so.3')).toBe(true); // a name is also a last segment
    expect(matches('libcrypto.so.*', '/usr/lib/libcrypto.so.3')).toBe(true);
    expect(matches('/usr/lib/*.so', '/usr/lib/x86_64/libssl.so')).toBe(false); // `*` stays within a segment
    expect(matches('/usr/lib/**/*.so', '/usr/lib/x86_64/libssl.so')).toBe(true);
    expect(matches('/usr/lib/**/*.so', '/usr/lib/libssl.so')).toBe(true);
    expect(matches('vendor/', 'vendor/acme/crypto.go')).toBe(true);
    expect(matches('vendor/', 'src/vendor/acme/crypto.go')).toBe(false);
    expect(matches('lib?ssl', 'libressl')).toBe(false);
    expect(matches('lib[!x]sl', 'libssl')).toBe(true);
    expect(globToRegExp('a.b+c(d)').test('a.b+c(d)')).toBe(true);
    expect(globToRegExp('a[b').test('a[b')).toBe(true);
  });

  it('applyRuntimeSettings without count among the fields writes each distinct record once, without count', async () => {
    const src = path.join(dir, 'no-count');
    await writeTree(src, { 'runtime/a.jsonl': jsonl([{ algorithm: 'RSA', count: 5 }, { algorithm: ' RSA ', count: 'many' }, { algorithm: 'MD5' }]) });
    const settings = parseRuntimeSettings(config({ record: { fields: ['algorithm'] } }));
    const { written, summary } = await applyRuntimeSettings(src, ['runtime/a.jsonl'], settings, path.join(src, 'out'));
    expect(lines(await readFile(/** @type {string} */ (written.get('runtime/a.jsonl')), 'utf8'))).toEqual([{ algorithm: 'RSA' }, { algorithm: 'MD5' }]);
    expect(summary).toMatchObject({ read: 3, merged: 1, kept: 2, fields: ['algorithm'] });
  });

  it('partsPlan names the part count, size, last part and parallelism', () => {
    const parts = [{ size: 16 * MiB }, { size: 16 * MiB }, { size: 8 * MiB }].map((p, i) => ({ ...p, partNumber: i + 1, offset: 0, presignedUrl: '' }));
    expect(partsPlan(parts, 16 * MiB, 4)).toBe('uploading 3 parts of 16 MiB (the last 8 MiB), 4 at a time (runtime settings)');
    expect(partsPlan(parts.slice(0, 1), 32 * MiB, 2)).toBe('uploading 1 part of 16 MiB, 2 at a time (runtime settings)');
  });
});

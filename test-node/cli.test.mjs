// The upload CLI against a fake of the service's upload protocol (test-node/fake-service.mjs).
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { collectFiles, hashFile, prepareBundle } from '../cli/lib/bundle.mjs';
import { VERSION } from '../cli/lib/version.mjs';
import { PART_SIZE, mintPass, startFake } from './fake-service.mjs';
import { MiB, bigFile, bom, finished, runCli, spawnCli, tempDir, untarEntries, writeTree } from './helpers.mjs';

const PROJECT = randomUUID();
/** @type {string} */ let dir;
/** @type {string} */ let pass;
/** @type {string} */ let bomFile;
/** @type {string} */ let file40;
/** @type {Awaited<ReturnType<typeof startFake>> | null} */ let fake = null;

beforeAll(async () => {
  dir = await tempDir();
  pass = await mintPass(PROJECT);
  bomFile = path.join(dir, 'app.cdx.json');
  await writeFile(bomFile, bom('payments-api'));
  file40 = await bigFile(dir, 'forty.bin', 40);
});
afterEach(async () => {
  await fake?.close();
  fake = null;
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** @param {Partial<import('./fake-service.mjs').FakeOptions>} [options] */
async function serve(options = {}) {
  fake = await startFake({ projectId: PROJECT, ...options });
  return fake;
}
const env = (/** @type {Record<string, string>} */ extra = {}) => ({ POSTURE_API: fake?.url ?? '', POSTURE_PASS: pass, ...extra });
const sha = (/** @type {Buffer} */ data) => createHash('sha256').update(data).digest('hex');

const untar = (/** @type {Buffer} */ data) => untarEntries(dir, data);

describe('bundles: packing and hashing', () => {
  it('packs a directory into a .tar.gz: generated manifest.json at the root, *.json files (paths kept), runtime/*.jsonl', async () => {
    const src = path.join(dir, 'pack-src');
    await writeTree(src, {
      'sbom.json': bom('web'), 'nested/deeper/cbom.json': bom('web-crypto'), 'runtime/tls.jsonl': '{"algorithm":"ECDHE"}\n',
      'README.md': 'not packed', 'runtime/notes.txt': 'not packed', 'nested/runtime/x.jsonl': 'not packed: only the root runtime/',
      '.git/config.json': '{}', 'node_modules/pkg/package.json': '{}',
    });
    expect(await collectFiles(src)).toEqual(['nested/deeper/cbom.json', 'runtime/tls.jsonl', 'sbom.json']);
    const bundle = await prepareBundle(src, { target: 'web', tag: 'v1.2.3', ciRunId: '42', runtime: true });
    try {
      const data = await readFile(bundle.file);
      expect(bundle.size).toBe(data.length);
      expect(bundle.sha256).toBe(sha(data));
      const entries = await untar(data);
      expect(Object.keys(entries)).toEqual(['manifest.json', 'nested/deeper/cbom.json', 'runtime/tls.jsonl', 'sbom.json']);
      expect(JSON.parse(entries['manifest.json'])).toEqual({
        subject: 'web', tag: 'v1.2.3', ci: { runId: '42' }, tool: { name: 'posture-cli', version: VERSION }, runtime: true,
      });
      expect(entries['sbom.json']).toBe(bom('web'));
    } finally {
      await bundle.cleanup();
    }
    await expect(readFile(bundle.file)).rejects.toThrow();
  });

  it('keeps a manifest.json already at the directory root as the base, the flags winning', async () => {
    const src = path.join(dir, 'pack-manifest');
    await writeTree(src, { 'a.json': bom('a'), 'manifest.json': JSON.stringify({ subject: 'old', ci: { url: 'https://ci/1' }, extra: 1 }) });
    const bundle = await prepareBundle(src, { target: 'new' });
    const entries = await untar(await readFile(bundle.file));
    await bundle.cleanup();
    expect(Object.keys(entries)).toEqual(['manifest.json', 'a.json']);
    expect(JSON.parse(entries['manifest.json'])).toEqual({
      subject: 'new', ci: { url: 'https://ci/1' }, extra: 1, tool: { name: 'posture-cli', version: VERSION },
    });
  });

  it('hashes a 40 MiB file while streaming it (SHA-256 and size)', async () => {
    const { sha256, size } = await hashFile(file40);
    expect(size).toBe(40 * MiB);
    expect(sha256).toBe(sha(await readFile(file40)));
  });

  it('uploads a file PATH as is, byte for byte', async () => {
    await serve();
    const res = await runCli(['upload', bomFile, '--project', PROJECT], env());
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(fake?.state.bundles[0].data.toString()).toBe(bom('payments-api'));
  });
});

describe('upload protocol', () => {
  it('starts the survey, answers the challenge at init, uploads, completes (pass from POSTURE_PASS, project from the pass)', async () => {
    const f = await serve();
    const res = await runCli(['upload', bomFile], env());
    expect(res.code).toBe(0);
    const paths = f.state.requests.map((r) => `${r.method} ${r.path.replace(`/api/v1/project/${PROJECT}/`, '')}`);
    expect(paths[0]).toBe('POST survey');
    expect(paths[1]).toBe('POST bundle/upload/init');
    expect(paths.at(-1)).toBe('POST bundle/upload/complete');
    const [surveyId] = f.state.surveys.keys();
    expect(f.state.surveyRequests.get(surveyId)).toEqual({ jobType: 'INVENTORY_SURVEY' });
    expect(f.state.completions).toBe(1);
    expect(res.stdout).toContain(`survey ${surveyId} started`);
    expect(res.stdout).toContain(`bundle ${f.state.bundles[0].bundleId} uploaded; survey ${surveyId} queued`);
    // Part URLs carry their own token: the pass never goes to them.
    expect(f.state.requests.filter((r) => r.path.endsWith('/part')).every((r) => !r.headers.authorization)).toBe(true);
  });

  it('packs a directory and sends --runtime, --target, --tag and the CI run id (GITHUB_RUN_ID) in the survey and manifest', async () => {
    const f = await serve();
    const src = path.join(dir, 'cli-src');
    await writeTree(src, { 'sbom.json': bom('svc'), 'deps/cbom.json': bom('svc-crypto'), 'runtime/obs.jsonl': '{"algorithm":"RSA","keySize":2048}\n' });
    const res = await runCli(['upload', src, '--runtime', '--target', 'svc', '--tag', 'release-7'],
      env({ GITHUB_RUN_ID: '9001', GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'acme/svc', POSTURE_PROJECT: PROJECT }));
    expect(res.code).toBe(0);
    const [surveyId] = f.state.surveys.keys();
    expect(f.state.surveyRequests.get(surveyId)).toEqual({
      jobType: 'RUNTIME_SURVEY', target: 'svc', tag: 'release-7', jsonTags: { ci_run_id: '9001' },
    });
    const entries = await untar(f.state.bundles[0].data);
    expect(Object.keys(entries).sort()).toEqual(['deps/cbom.json', 'manifest.json', 'runtime/obs.jsonl', 'sbom.json']);
    expect(JSON.parse(entries['manifest.json'])).toEqual({
      subject: 'svc', tag: 'release-7', runtime: true, tool: { name: 'posture-cli', version: VERSION },
      ci: { runId: '9001', url: 'https://github.com/acme/svc/actions/runs/9001' },
    });
  });

  it('uploads a 40 MiB file as 3 parts of 16/16/8 MiB in parallel, each from its own range, and the service gets the same SHA-256', async () => {
    const f = await serve({ partDelayMs: 200 });
    const res = await runCli(['upload', file40, '--project', PROJECT], env());
    expect(res.code).toBe(0);
    const parts = [...f.state.parts].sort((a, b) => a.partNumber - b.partNumber);
    expect(parts.map((p) => [p.partNumber, p.offset, p.size])).toEqual([[1, 0, 16 * MiB], [2, 16 * MiB, 16 * MiB], [3, 32 * MiB, 8 * MiB]]);
    const original = await readFile(file40);
    parts.forEach((p) => expect(p.sha256).toBe(sha(original.subarray(p.offset, p.offset + p.size))));
    expect(f.state.maxInFlightParts).toBe(3);
    expect(sha(f.state.bundles[0].data)).toBe(sha(original));
  });

  it('keeps at most 4 parts in flight', async () => {
    const f = await serve({ partDelayMs: 150 });
    const file = await bigFile(dir, 'hundred.bin', 100, 123);
    const res = await runCli(['upload', file, '--project', PROJECT], env());
    await rm(file);
    expect(res.code).toBe(0);
    expect(f.state.parts).toHaveLength(7);
    expect(f.state.parts.find((p) => p.partNumber === 7)?.size).toBe(100 * MiB + 123 - 6 * PART_SIZE);
    expect(f.state.maxInFlightParts).toBe(4);
  });

  it('retries a part that answers 503 twice (Retry-After honoured), then succeeds', async () => {
    const f = await serve({ fail: { 'part:2': [{ status: 503, code: 'unavailable', retryAfter: '0' }, { status: 503, code: 'try_again' }] } });
    const res = await runCli(['upload', file40, '--project', PROJECT], env());
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(f.state.partAttempts.get(2)).toBe(3);
    expect(f.state.partAttempts.get(1)).toBe(1);
    expect(f.state.completions).toBe(1);
  });

  it('retries a part whose connection drops', async () => {
    const f = await serve({ fail: { 'part:1': ['drop'] } });
    const res = await runCli(['upload', bomFile, '--project', PROJECT], env());
    expect(res.code).toBe(0);
    expect(f.state.partAttempts.get(1)).toBe(2);
  });

  it('does not retry a 400, and exits 1 naming the step, the error and its code', async () => {
    const f = await serve({ fail: { 'part:1': [{ status: 400, code: 'invalid_request' }] } });
    const res = await runCli(['upload', bomFile, '--project', PROJECT], env());
    expect(res.code).toBe(1);
    expect(res.stderr).toBe('posture: upload part 1: injected 400 (invalid_request)\n');
    expect(f.state.partAttempts.get(1)).toBe(1);
    expect(f.state.completions).toBe(0);
  });

  it('gives up after 5 attempts of a call that keeps answering 503', async () => {
    const busy = { status: 503, code: 'starting', retryAfter: '0' };
    const f = await serve({ fail: { init: [busy, busy, busy, busy, busy] } });
    const res = await runCli(['upload', bomFile, '--project', PROJECT], env());
    expect(res.code).toBe(1);
    expect(res.stderr).toBe('posture: upload init (gave up after 5 attempts): injected 503 (starting)\n');
    expect(f.state.keys.init).toHaveLength(5);
  });

  it('reuses the idempotency key when retrying a complete whose answer was lost: the bundle completes once', async () => {
    const f = await serve({ fail: { complete: ['lose-answer'] } });
    const res = await runCli(['upload', bomFile, '--project', PROJECT, '--json'], env());
    expect(res.code).toBe(0);
    expect(f.state.keys.complete).toHaveLength(2);
    expect(f.state.keys.complete[1]).toBe(f.state.keys.complete[0]);
    expect(f.state.completions).toBe(1);
    expect(res.lines().find((l) => l.event === 'completed').bundleId).toBe(f.state.bundles[0].bundleId);
  });

  it('reuses the survey key when retrying a start survey: one survey', async () => {
    const f = await serve({ fail: { survey: ['lose-answer', { status: 429, code: 'rate_limited', retryAfter: '0' }] } });
    const res = await runCli(['upload', bomFile, '--project', PROJECT], env());
    expect(res.code).toBe(0);
    expect(f.state.keys.survey).toHaveLength(3);
    expect(new Set(f.state.keys.survey).size).toBe(1);
    expect(f.state.surveys.size).toBe(1);
    expect(new Set([...f.state.keys.survey, ...f.state.keys.init, ...f.state.keys.complete]).size).toBe(3);
  });

  it('reports progress to the service: the survey job, rising, at most once a second, 100 last and before complete', async () => {
    const f = await serve({ partDelayMs: 1300 });
    const res = await runCli(['upload', file40, '--project', PROJECT], env());
    expect(res.code).toBe(0);
    const reports = f.state.progress;
    const [surveyId] = f.state.surveys.keys();
    expect(reports.length).toBeGreaterThanOrEqual(2);
    expect(reports.every((r) => r.jobId === surveyId)).toBe(true);
    expect(reports.at(-1)?.progress).toBe(100);
    expect(reports.slice(0, -1).every((r) => r.progress < 100)).toBe(true);
    for (let i = 1; i < reports.length; i++) expect(reports[i].progress).toBeGreaterThanOrEqual(reports[i - 1].progress);
    for (let i = 1; i < reports.length - 1; i++) expect(reports[i].at - reports[i - 1].at).toBeGreaterThanOrEqual(750);
    const completeAt = f.state.requests.find((r) => r.path.endsWith('/complete'))?.at ?? 0;
    expect(reports.at(-1)?.at).toBeLessThanOrEqual(completeAt);
    expect(f.survey(surveyId)?.steps[0].progress).toBe(100);
  });
});

describe('output', () => {
  it('--json prints only JSON lines: survey, progress, completed, job updates, done', async () => {
    const f = await serve();
    const res = await runCli(['upload', bomFile, '--project', PROJECT, '--json', '--wait'], env());
    expect(res.code).toBe(0);
    const lines = res.lines();
    const [surveyId] = f.state.surveys.keys();
    const bundleId = f.state.bundles[0].bundleId;
    expect(lines[0]).toEqual({ event: 'survey', surveyId });
    const size = Buffer.byteLength(bom('payments-api'));
    expect(lines.filter((l) => l.event === 'progress').at(-1)).toEqual({ event: 'progress', bytes: size, total: size });
    expect(lines.find((l) => l.event === 'completed')).toEqual({ event: 'completed', bundleId, surveyId });
    expect(lines.filter((l) => l.event === 'job').map((l) => l.step ?? 'survey')).toContain('analyze');
    expect(lines.at(-1)).toEqual({
      event: 'done', status: 'COMPLETED', surveyId, bundleId, message: null,
      figures: { 'pqc-inventory': expect.any(Object), cbom: expect.any(Object), composition: expect.any(Object) },
      gate: { fail_on: [], tripped: [], passed: true, missing: [] },
    });
    expect(res.stderr).toBe('');
  });

  it('prints plain progress lines when stdout is not a terminal', async () => {
    await serve();
    const res = await runCli(['upload', file40, '--project', PROJECT], env());
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('uploading ');
    expect(res.stdout).toMatch(/^uploaded 40\.0\/40\.0 MiB \(100%\)$/m);
  });
});

describe('--wait', () => {
  it('follows the survey events and exits 0 when the survey is COMPLETED', async () => {
    const f = await serve();
    const res = await runCli(['upload', bomFile, '--project', PROJECT, '--wait'], env());
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const [surveyId] = f.state.surveys.keys();
    expect(res.stdout).toContain('  step analyze: COMPLETED');
    expect(res.stdout).toContain(`\nsurvey ${surveyId} COMPLETED\nCryptography `);
    expect(f.state.streams).toBe(1);
  });

  it('exits 1 with the job message when the survey FAILED', async () => {
    const f = await serve({ outcome: 'FAILED' });
    const res = await runCli(['upload', bomFile, '--project', PROJECT, '--wait', '--json'], env());
    expect(res.code).toBe(1);
    const [surveyId] = f.state.surveys.keys();
    expect(res.stderr).toBe(`posture: survey ${surveyId} failed: analysis failed (FAILED)\n`);
    const done = res.lines().find((l) => l.event === 'done');
    expect(done).toMatchObject({ status: 'FAILED', surveyId, message: 'analysis failed' });
    expect(res.lines().some((l) => l.event === 'job' && l.step === 'analyze' && l.status === 'FAILED')).toBe(true);
  });

  it('reconnects when the stream drops before the survey finished, sending Last-Event-ID, and resumes to the end', async () => {
    const f = await serve({ stepDelayMs: 150, dropStreamAfter: 2 });
    const res = await runCli(['upload', bomFile, '--project', PROJECT, '--wait'], env());
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(f.state.streams).toBe(2);
    expect(f.state.lastEventIds[0]).toBe(null);
    expect(f.state.lastEventIds[1]).toMatch(/^\d+$/);
    expect(res.stdout).toMatch(/ COMPLETED\nCryptography /);
  });

  it('reconnects after a 503 on the event stream', async () => {
    const f = await serve({ fail: { events: [{ status: 503, code: 'unavailable', retryAfter: '0' }] } });
    const res = await runCli(['upload', bomFile, '--project', PROJECT, '--wait'], env());
    expect(res.code).toBe(0);
    expect(f.state.streams).toBe(1);
  });

  it('exits 1 when --timeout runs out first', async () => {
    await serve({ hold: true });
    const started = Date.now();
    const res = await runCli(['upload', bomFile, '--project', PROJECT, '--wait', '--timeout', '1'], env());
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^posture: wait for survey [0-9a-f-]+: timed out after 1 s before the survey finished \(timeout\)\n$/);
    expect(Date.now() - started).toBeLessThan(8000);
  });
});

describe('usage', () => {
  const cases = [
    [[], 'missing command'],
    [['push', 'x'], "unknown command 'push'"],
    [['upload'], 'upload: missing PATH'],
    [['upload', 'a', 'b'], 'upload takes one PATH'],
    [['upload', 'x', '--bogus'], "unknown option '--bogus'"],
    [['upload', 'x', '--api'], "option '--api <value>' argument missing"],
    [['upload', 'x', '--api', 'ftp://host'], '--api: must be an http(s) URL'],
    [['upload', 'x', '--timeout', 'soon'], '--timeout: not a number of seconds above 0, at most 604800: soon'],
    [['upload', 'x', '--timeout', '0'], '--timeout: not a number'],
    [['upload', 'x', '--pass', 'not-a-jwt'], 'the pass is not an upload pass'],
    [['upload', '/definitely/not/here.json'], '/definitely/not/here.json: no such file or directory'],
  ];
  it.each(cases)('%j exits 2 with one line on stderr', async (args, message) => {
    const res = await runCli(/** @type {string[]} */ (args), { POSTURE_API: 'http://127.0.0.1:1', POSTURE_PASS: pass });
    expect(res.code).toBe(2);
    expect(res.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(res.stderr).toContain(`posture: ${message}`);
    expect(res.stdout).toBe('');
  });

  it('without --api, POSTURE_API or a pass, says which is missing', async () => {
    expect((await runCli(['upload', bomFile], { POSTURE_PASS: pass })).stderr).toBe('posture: missing --api (or POSTURE_API)\n');
    expect((await runCli(['upload', bomFile], { POSTURE_API: 'http://127.0.0.1:1' })).stderr)
      .toBe('posture: missing the upload pass: set POSTURE_PASS (or --pass)\n');
  });

  it('refuses an empty file and a directory without .json files', async () => {
    const empty = path.join(dir, 'empty.json');
    await writeFile(empty, '');
    const src = path.join(dir, 'no-json');
    await writeTree(src, { 'a.txt': 'x' });
    const e = { POSTURE_API: 'http://127.0.0.1:1', POSTURE_PASS: pass };
    expect(await runCli(['upload', empty], e)).toMatchObject({ code: 2, stderr: `posture: ${empty}: the file is empty\n` });
    expect(await runCli(['upload', src], e)).toMatchObject({ code: 2, stderr: `posture: ${src}: no .json files in the directory\n` });
  });

  it('--help and --version exit 0', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('posture upload PATH [options]');
    for (const flag of ['--api', '--project', '--pass', '--runtime', '--target', '--tag', '--ci-run-id', '--wait', '--timeout', '--json']) {
      expect(help.stdout).toContain(flag);
    }
    expect(await runCli(['--version'])).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
  });

  it('Ctrl-C during an upload removes the temporary archive and exits 130', async () => {
    await serve({ partDelayMs: 10_000 });
    const tmp = path.join(dir, 'tmp-sigint');
    await mkdir(tmp);
    const src = path.join(dir, 'sigint-src');
    await writeTree(src, { 'a.json': bom('a') });
    const child = spawnCli(['upload', src, '--project', PROJECT], { ...env(), TMPDIR: tmp });
    const result = finished(child);
    await new Promise((resolve) => child.stdout?.on('data', (c) => String(c).includes('started') && resolve(null)));
    expect(await readdir(tmp)).toHaveLength(1);
    child.kill('SIGINT');
    const res = await result;
    expect(res.code).toBe(130);
    expect(res.stderr).toContain('posture: interrupted');
    expect(await readdir(tmp)).toEqual([]);
  });

  it('a refused connection exits 1 with the network error', async () => {
    const res = await runCli(['upload', bomFile, '--project', PROJECT], { POSTURE_API: 'http://127.0.0.1:1', POSTURE_PASS: pass });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^posture: start survey \(gave up after 5 attempts\): .*ECONNREFUSED.* \(ECONNREFUSED\)\n$/);
  });

  it('a service error on the first call exits 1 with its code (pass made for another project)', async () => {
    await serve();
    const res = await runCli(['upload', bomFile, '--project', randomUUID()], env());
    expect(res.code).toBe(1);
    expect(res.stderr).toBe('posture: start survey: pass made for another project (forbidden)\n');
  });
});

// `posture decisions list` and `posture vex import` against the fake service's triage routes
// (test-node/fake-service.mjs): the token, the cursor, the idempotency key, the error lines.
import { createHash, randomUUID } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../cli/lib/version.mjs';
import { mintPass, startFake } from './fake-service.mjs';
import { runCli, tempDir } from './helpers.mjs';

const PROJECT = randomUUID();
const TOKEN = `pst_${randomUUID().replaceAll('-', '')}`;
/** @type {string} */ let dir;
/** @type {string} */ let vexFile;
/** @type {Awaited<ReturnType<typeof startFake>> | null} */ let fake = null;

/** `n` decisions, newest first, alternately about log4j in shop and about RSA in billing. */
const decisions = (/** @type {number} */ n) => Array.from({ length: n }, (_, i) => ({
  id: randomUUID(), version: 1, state: i % 2 ? 'exploitable' : 'not_affected', suppressed: i % 2 === 0,
  finding: i % 2
    ? { type: 'crypto', advisory_id: null, package: null, version: null, version_range: null, algorithm: 'RSA', asset: null, subject: 'billing' }
    : { type: 'vulnerability', advisory_id: 'CVE-2021-44228', package: 'pkg:maven/org.apache.logging.log4j/log4j-core', version: '2.14.1', version_range: null, algorithm: null, asset: null, subject: 'shop' },
  justification: null, response: [], detail: null, expires: null, source: null,
  decided_by: { id: 'u1', email: 'ana@example.com', kind: 'user' }, decided_at: new Date(Date.UTC(2026, 10, 28) - i * 60_000).toISOString(),
}));

const OPENVEX = {
  '@context': 'https://openvex.dev/ns/v0.2.0', '@id': 'https://example.com/vex/1', author: 'Acme PSIRT', timestamp: '2026-11-01T00:00:00Z', version: 1,
  statements: [
    { vulnerability: { name: 'CVE-2021-44228' }, products: [{ '@id': 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1' }], status: 'not_affected', justification: 'vulnerable_code_not_present' },
    { vulnerability: { name: 'CVE-2023-2650' }, products: [{ '@id': 'pkg:apk/alpine/libssl3@3.0.8-r3' }], status: 'fixed' },
  ],
};

beforeAll(async () => {
  dir = await tempDir();
  vexFile = path.join(dir, 'supplier.openvex.json');
  // Indented as a person writes it: the key is the file's bytes', not the JSON re-serialized.
  await writeFile(vexFile, `${JSON.stringify(OPENVEX, null, 2)}\n`);
});
afterEach(async () => {
  await fake?.close();
  fake = null;
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** @param {Partial<import('./fake-service.mjs').FakeOptions>} [options] */
async function serve(options = {}) {
  fake = await startFake({ projectId: PROJECT, apiToken: TOKEN, ...options });
  return fake;
}
const env = (/** @type {Record<string, string>} */ extra = {}) => ({ POSTURE_API: fake?.url ?? 'http://127.0.0.1:9', POSTURE_PROJECT: PROJECT, POSTURE_TOKEN: TOKEN, ...extra });
const triageRequests = () => (fake?.state.requests ?? []).filter((r) => /\/v1\/(decision|vex)$/.test(r.path));

describe('decisions list', () => {
  it('follows the cursor to the end (after = the page\'s lastId while hasMore), one JSON line per decision, with the token from POSTURE_TOKEN', async () => {
    const all = decisions(2500);
    const f = await serve({ decisions: all });
    const res = await runCli(['decisions', 'list', '--json'], env());
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.lines().map((d) => d.id)).toEqual(all.map((d) => d.id));
    expect(res.lines()[0]).toEqual(all[0]);
    expect(f.state.decisionQueries).toEqual([{ limit: '1000' }, { limit: '1000', after: all[999].id }, { limit: '1000', after: all[1999].id }]);
    for (const r of triageRequests()) {
      expect(r.method).toBe('GET');
      expect(r.path).toBe(`/api/v1/project/${PROJECT}/v1/decision`);
      expect(r.headers).toMatchObject({ authorization: `Bearer ${TOKEN}`, accept: 'application/json', 'user-agent': expect.stringContaining(VERSION) });
    }
  });

  it('passes the filters as the route\'s parameters and stops at --limit, asking the last page for only what is left (--token, --api, --project)', async () => {
    const all = decisions(3000);
    const f = await serve({ decisions: all });
    const res = await runCli(['decisions', 'list', '--api', f.url, '--project', PROJECT, '--token', TOKEN, '--limit', '1200', '--json',
      '--state', 'not_affected', '--type', 'vulnerability', '--advisory', 'CVE-2021-44228', '--package', 'pkg:maven/org.apache.logging.log4j/log4j-core', '--subject', 'shop'], {});
    expect(res.code).toBe(0);
    const shop = all.filter((d) => d.state === 'not_affected');
    expect(res.lines().map((d) => d.id)).toEqual(shop.slice(0, 1200).map((d) => d.id));
    const filters = { state: 'not_affected', type: 'vulnerability', advisory_id: 'CVE-2021-44228', package: 'pkg:maven/org.apache.logging.log4j/log4j-core', subject: 'shop' };
    expect(f.state.decisionQueries).toEqual([{ ...filters, limit: '1000' }, { ...filters, limit: '200', after: shop[999].id }]);
  });

  it('prints a table: id, state (suppressed marked), finding, the day, who decided', async () => {
    const all = decisions(3);
    all[1].source = { format: 'openvex', author: 'Acme PSIRT', document_id: 'https://example.com/vex/1', timestamp: null, version: 1 };
    await serve({ decisions: all });
    const res = await runCli(['decisions', 'list'], env());
    expect(res.code).toBe(0);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^ID {36}STATE {22}FINDING +DECIDED {5}BY$/);
    expect(lines[1]).toBe(`${all[0].id}  not_affected (suppressed)  CVE-2021-44228 in pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1 in shop  2026-11-28  ana@example.com`);
    expect(lines[2]).toMatch(new RegExp(`^${all[1].id}  exploitable {16}RSA in billing +2026-11-27  VEX Acme PSIRT$`));
    expect(lines[3].indexOf('2026-11-27')).toBe(lines[0].indexOf('DECIDED'));
  });

  it('says so when nothing matches', async () => {
    await serve({ decisions: decisions(2) });
    const res = await runCli(['decisions', 'list', '--subject', 'nowhere'], env());
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('no decisions\n');
  });

  it('retries a page that answers 503 (Retry-After honoured) from the same cursor', async () => {
    const all = decisions(1001);
    const f = await serve({ decisions: all, fail: { decision: [{ status: 503, retryAfter: '0' }] } });
    const res = await runCli(['decisions', 'list', '--json'], env());
    expect(res.code).toBe(0);
    expect(res.lines()).toHaveLength(1001);
    expect(triageRequests()).toHaveLength(3);
    expect(f.state.decisionQueries).toEqual([{ limit: '1000' }, { limit: '1000', after: all[999].id }]);
  });

  it('exits 1 with the service\'s message, permission and code when the token may not read (an upload pass)', async () => {
    await serve({ decisions: decisions(1) });
    const res = await runCli(['decisions', 'list'], env({ POSTURE_TOKEN: await mintPass(PROJECT) }));
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toBe('posture: listing decisions: This needs the permission project:view. [permission project:view] (permission_denied)\n');
  });
});

describe('vex import', () => {
  const key = async () => `vex-${createHash('sha256').update(await readFile(vexFile)).digest('hex')}`;

  it('POSTs the document as JSON with an Idempotency-Key from the file\'s SHA-256 and prints the counts', async () => {
    const f = await serve();
    const res = await runCli(['vex', 'import', vexFile], env());
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('openvex 0.2.0 from Acme PSIRT: 2 statements\n  applied 2, already in place 0, superseded 0, not matched 0\n');
    const [req] = triageRequests();
    expect(req.method).toBe('POST');
    expect(req.path).toBe(`/api/v1/project/${PROJECT}/v1/vex`);
    expect(req.headers).toMatchObject({ authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'idempotency-key': await key() });
    expect(req.headers['idempotency-key']).toMatch(/^vex-[0-9a-f]{64}$/);
    expect(f.state.vexImports).toEqual([OPENVEX]);
  });

  it('a CI retry of the same file sends the same key and is answered from the first import (applied once); another file, another key', async () => {
    const f = await serve();
    const first = await runCli(['vex', 'import', vexFile, '--json'], env());
    const again = await runCli(['vex', 'import', vexFile, '--json'], env());
    expect([first.code, again.code]).toEqual([0, 0]);
    expect(JSON.parse(again.stdout)).toEqual(JSON.parse(first.stdout));
    expect(f.state.vexImports).toHaveLength(1);
    const other = path.join(dir, 'other.openvex.json');
    await writeFile(other, JSON.stringify({ ...OPENVEX, version: 2 }));
    expect((await runCli(['vex', 'import', other], env())).code).toBe(0);
    expect(f.state.keys.vex).toEqual([await key(), await key(), `vex-${createHash('sha256').update(await readFile(other)).digest('hex')}`]);
    expect(f.state.vexImports).toHaveLength(2);
  });

  it('retries an import whose answer was lost with the same key: the document applies once', async () => {
    const f = await serve({ fail: { vex: ['lose-answer'] } });
    const res = await runCli(['vex', 'import', vexFile], env());
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('applied 2,');
    expect(f.state.keys.vex).toEqual([await key(), await key()]);
    expect(f.state.vexImports).toHaveLength(1);
  });

  it('prints the superseded and not matched statements with their reasons; --json prints the answer as it came', async () => {
    const answer = {
      format: 'cyclonedx', spec_version: '1.6', source: { author: null, document_id: 'urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79', timestamp: null, version: 2 },
      statements: 3, applied: 1, already_in_place: 0, superseded: 1, not_matched: 1, results_truncated: false,
      results: [
        { statement: 0, vulnerability: 'CVE-1', product: 'pkg:npm/a@1', outcome: 'applied', decision_id: randomUUID() },
        { statement: 1, vulnerability: 'CVE-2', product: 'pkg:npm/b@1', outcome: 'superseded', reason: 'A later document from this source decides it.' },
        { statement: 2, vulnerability: 'CVE-3', product: 'pkg:npm/c@1', outcome: 'not_matched', reason: 'No current finding of CVE-3 in pkg:npm/c@1.' },
      ],
    };
    await serve({ vexAnswer: () => answer });
    const cdx = path.join(dir, 'app.cdx.json');
    await writeFile(cdx, JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', vulnerabilities: [] }));
    const res = await runCli(['vex', 'import', cdx], env());
    expect(res.code).toBe(0);
    expect(res.stdout.split('\n')).toEqual([
      'cyclonedx 1.6 from urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79: 3 statements',
      '  applied 1, already in place 0, superseded 1, not matched 1',
      '  superseded: statement 1 (CVE-2, pkg:npm/b@1): A later document from this source decides it.',
      '  not matched: statement 2 (CVE-3, pkg:npm/c@1): No current finding of CVE-3 in pkg:npm/c@1.',
      '',
    ]);
    const json = await runCli(['vex', 'import', cdx, '--json'], env());
    expect(json.lines()).toEqual([answer]);
  });

  it('exits 1 with the service\'s reason for a document it refuses; nothing on stdout', async () => {
    const f = await serve();
    const notVex = path.join(dir, 'not-vex.json');
    await writeFile(notVex, JSON.stringify({ hello: 'world' }));
    const res = await runCli(['vex', 'import', notVex, '--json'], env());
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toBe('posture: importing the VEX document: Not a VEX document: a CycloneDX document (bomFormat) or an OpenVEX 0.2.0 document (@context). (invalid_request)\n');
    expect(f.state.vexImports).toHaveLength(0);
  });

  it('exits 1 naming the permission when the token may only view', async () => {
    await serve();
    const res = await runCli(['vex', 'import', vexFile], env({ POSTURE_TOKEN: await mintPass(PROJECT) }));
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^posture: importing the VEX document: .*\[permission project:edit\] \(permission_denied\)\n$/);
  });
});

describe('usage', () => {
  it.each([
    [['decisions', 'list'], { POSTURE_TOKEN: '' }, /^posture: decisions list needs an API token: set POSTURE_TOKEN \(or --token\)\n$/],
    [['vex', 'import', 'x.json'], { POSTURE_TOKEN: '' }, /^posture: vex import needs an API token: set POSTURE_TOKEN/],
    [['decisions', 'list'], { POSTURE_PROJECT: '' }, /missing --project \(or POSTURE_PROJECT\)/],
    [['decisions', 'list'], { POSTURE_API: '' }, /missing --api \(or POSTURE_API\)/],
    [['decisions'], {}, /decisions: expected 'decisions list'/],
    [['decisions', 'show'], {}, /decisions: expected 'decisions list', not 'show'/],
    [['decisions', 'list', 'extra'], {}, /decisions list takes no operand: extra/],
    [['vex', 'import'], {}, /vex import: missing FILE/],
    [['vex', 'export', 'x'], {}, /vex: expected 'vex import', not 'export'/],
    [['decisions', 'list', '--limit', '0'], {}, /--limit: not a whole number above 0: 0/],
    [['decisions', 'list', '--type', 'vuln'], {}, /--type: vulnerability or crypto, not vuln/],
    [['decisions', 'list', '--fail-on', 'red'], {}, /decisions list does not take --fail-on/],
    [['vex', 'import', 'x.json', '--state', 'not_affected'], {}, /vex import does not take --state/],
    [['upload', 'x.json', '--token', 't'], { POSTURE_PASS: 'p' }, /upload does not take --token/],
    [['upload', 'x.json', '--limit', '3'], { POSTURE_PASS: 'p' }, /upload does not take --limit/],
  ])('%j exits 2 with one line, sending nothing', async (args, extra, message) => {
    await serve();
    const res = await runCli(args, env(extra));
    expect(res.code).toBe(2);
    expect(res.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(res.stderr).toMatch(message);
    expect(fake?.state.requests).toEqual([]);
  });

  it('a missing or unreadable FILE, or one that is not JSON, exits 2 before anything is sent', async () => {
    await serve();
    const missing = await runCli(['vex', 'import', path.join(dir, 'nope.json')], env());
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.json: no such file/);
    const text = path.join(dir, 'notes.txt');
    await writeFile(text, 'not json');
    const notJson = await runCli(['vex', 'import', text], env());
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/notes\.txt: not JSON/);
    expect(fake?.state.requests).toEqual([]);
  });
});

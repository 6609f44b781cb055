// The CLI's small parts on their own: the event-stream parser, Retry-After, the challenge, sizes,
// the triage commands' arguments and output.
import { createHash, randomBytes } from 'node:crypto';
import { compactDecrypt } from 'jose';
import { describe, expect, it } from 'vitest';
import { encryptChallenge, readPass } from '../cli/lib/challenge.mjs';
import { SseParser } from '../cli/lib/events.mjs';
import { RETRY, retryAfterMs } from '../cli/lib/http.mjs';
import { formatPair } from '../cli/lib/progress.mjs';
import { decisionRow, findingText, parseTriageArgs, projectOfToken, rejectFlags, table, vexReport } from '../cli/lib/triage.mjs';
import { mintPass } from './fake-service.mjs';

/** Feeds `chunks` to a parser and returns what it dispatched. */
function parse(/** @type {string[]} */ chunks) {
  /** @type {import('../cli/lib/events.mjs').SseEvent[]} */
  const events = [];
  const parser = new SseParser((e) => events.push(e));
  for (const chunk of chunks) parser.feed(chunk);
  return { events, parser };
}

describe('event stream parser', () => {
  const stream = ': connected\n\nevent: job-update\ndata: {"id":"a"}\n\n: heartbeat\n\nevent: job-update\nid: 7\ndata: line 1\ndata: line 2\n\n';
  const expected = [
    { event: 'job-update', data: '{"id":"a"}', id: '' },
    { event: 'job-update', data: 'line 1\nline 2', id: '7' },
  ];

  it('reads events, skips comments, joins multi-line data', () => {
    expect(parse([stream]).events).toEqual(expected);
  });

  it('gives the same events however the bytes are cut', () => {
    expect(parse(stream.split('')).events).toEqual(expected);
    expect(parse([stream.slice(0, 30), stream.slice(30, 31), stream.slice(31)]).events).toEqual(expected);
  });

  it('accepts CRLF and CR line endings, even a CRLF split across chunks', () => {
    const crlf = stream.replaceAll('\n', '\r\n');
    expect(parse([crlf]).events).toEqual(expected);
    expect(parse(crlf.split('')).events).toEqual(expected);
    expect(parse([stream.replaceAll('\n', '\r')]).events).toEqual(expected);
  });

  it('drops an event cut off before its blank line, and one without data', () => {
    expect(parse(['event: job-update\ndata: {}\n']).events).toEqual([]);
    expect(parse(['event: job-update\n\n']).events).toEqual([]);
  });

  it('keeps the last id and the server retry delay, strips a BOM, reads "data:x" and a bare "data"', () => {
    const { events, parser } = parse(['\uFEFFretry: 250\nid: 41\ndata:x\n\ndata\n\nretry: soon\n\n']);
    expect(events).toEqual([{ event: 'message', data: 'x', id: '41' }, { event: 'message', data: '', id: '41' }]);
    expect(parser.retry).toBe(250);
    expect(parser.lastEventId).toBe('41');
  });
});

describe('Retry-After', () => {
  it('reads seconds and HTTP dates, caps long waits and ignores nonsense', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs('0')).toBe(0);
    const inTwo = retryAfterMs(new Date(Date.now() + 2000).toUTCString()) ?? -1;
    expect(inTwo).toBeGreaterThan(500);
    expect(inTwo).toBeLessThanOrEqual(2000);
    expect(retryAfterMs('86400')).toBe(RETRY.maxRetryAfterMs);
    expect(retryAfterMs('soon')).toBe(null);
    expect(retryAfterMs(undefined)).toBe(null);
  });
});

describe('the upload challenge', () => {
  it('reads chl and prj from the pass without verifying it', async () => {
    const chl = randomBytes(32).toString('base64url');
    expect(readPass(await mintPass('p1', { chl }))).toMatchObject({ chl, prj: 'p1' });
  });

  it('is a dir/A256GCM JWE under SHA-256 of the challenge bytes, naming the bundle', async () => {
    const chl = randomBytes(32).toString('base64url');
    const jwe = await encryptChallenge(chl, { sha256: 'ab'.repeat(32), sizeBytes: 12, iat: 1_700_000_000 });
    const key = createHash('sha256').update(Buffer.from(chl, 'base64url')).digest();
    const { plaintext, protectedHeader } = await compactDecrypt(jwe, new Uint8Array(key));
    expect(protectedHeader).toEqual({ alg: 'dir', enc: 'A256GCM' });
    expect(JSON.parse(new TextDecoder().decode(plaintext))).toEqual({ sha256: 'ab'.repeat(32), sizeBytes: 12, iat: 1_700_000_000 });
  });
});

describe('sizes', () => {
  it('shows both amounts in the unit of the total', () => {
    expect(formatPair(48 * 1024 ** 2, 512 * 1024 ** 2)).toBe('48/512 MiB');
    expect(formatPair(1536, 40 * 1024 ** 2)).toBe('0.0/40.0 MiB');
    expect(formatPair(300, 700)).toBe('300/700 B');
    expect(formatPair(1024 ** 3, 5 * 1024 ** 3)).toBe('1.0/5.0 GiB');
  });
});

describe('triage output', () => {
  const decision = {
    id: '0190a1b2-0000-7000-8000-000000000001', state: 'not_affected', suppressed: true, decided_at: '2026-11-28T10:00:00.000Z',
    finding: { type: 'vulnerability', advisory_id: 'CVE-2021-44228', package: 'pkg:maven/org.apache.logging.log4j/log4j-core', version: '2.14.1', version_range: null, subject: 'shop' },
    source: null, decided_by: { id: 'u1', email: 'ana@example.com', kind: 'api_token' },
  };

  it('names what a decision is about in a few words', () => {
    expect(findingText(decision.finding)).toBe('CVE-2021-44228 in pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1 in shop');
    expect(findingText({ type: 'vulnerability', advisory_id: 'GHSA-x', package: 'pkg:npm/a', version: null, version_range: 'vers:npm/<2', subject: null })).toBe('GHSA-x in pkg:npm/a vers:npm/<2');
    expect(findingText({ type: 'crypto', algorithm: 'RSA', asset: null, subject: null })).toBe('RSA');
  });

  it('lines decisions up under a header, naming a VEX source or the person', () => {
    const fromVex = { ...decision, id: 'short', state: 'in_triage', suppressed: false, source: { author: 'Supplier', format: 'openvex' } };
    const text = table([decisionRow(decision), decisionRow(fromVex)]);
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^ID {36}STATE {22}FINDING/);
    expect(lines[1]).toContain('not_affected (suppressed)  CVE-2021-44228');
    expect(lines[1].endsWith('2026-11-28  ana@example.com')).toBe(true);
    expect(lines[2].endsWith('VEX Supplier')).toBe(true);
    // Every column starts where the header's does.
    expect(lines[2].indexOf('in_triage')).toBe(lines[0].indexOf('STATE'));
  });

  it('reports an import with its counts and the reasons of what it did not apply', () => {
    const text = vexReport({
      format: 'cyclonedx', spec_version: '1.4', source: { author: null, document_id: 'urn:uuid:1' }, statements: 2,
      applied: 1, already_in_place: 0, superseded: 0, not_matched: 1, results_truncated: false,
      results: [{ statement: 0, vulnerability: 'CVE-1', product: 'a', outcome: 'applied' }, { statement: 1, vulnerability: 'CVE-2', product: 'product-X', outcome: 'not_matched', reason: 'No subject is X.' }],
    });
    expect(text.split('\n')).toEqual([
      'cyclonedx 1.4 from urn:uuid:1: 2 statements',
      '  applied 1, already in place 0, superseded 0, not matched 1',
      '  not matched: statement 1 (CVE-2, product-X): No subject is X.',
    ]);
  });
});


describe('triage arguments', () => {
  const env = { POSTURE_API: 'https://posture.example.com/api/v1', POSTURE_PROJECT: 'p1', POSTURE_TOKEN: 'tok-env' };

  it('reads decisions list\'s filters as the route\'s parameters, the token, api and project from flags over the environment', () => {
    const values = { token: 'tok-flag', project: 'p2', state: 'not_affected', type: 'crypto', advisory: 'CVE-1', package: 'pkg:npm/a', subject: 'shop', limit: '25', json: true };
    expect(parseTriageArgs('decisions', ['list'], values, env)).toEqual({
      command: 'decisions list', api: env.POSTURE_API, token: 'tok-flag', projectId: 'p2', limit: 25, file: undefined, json: true,
      filters: { state: 'not_affected', type: 'crypto', advisory_id: 'CVE-1', package: 'pkg:npm/a', subject: 'shop' },
    });
    expect(parseTriageArgs('decisions', ['list'], {}, env)).toMatchObject({ token: 'tok-env', projectId: 'p1', filters: {}, limit: Infinity, json: false });
  });

  it('takes the project an API token was made for when neither --project nor POSTURE_PROJECT names one', async () => {
    const token = await mintPass('from-token');
    expect(projectOfToken(token)).toBe('from-token');
    expect(projectOfToken('not-a-jwt')).toBeUndefined();
    expect(projectOfToken('a.bm90IGpzb24.c')).toBeUndefined();
    expect(parseTriageArgs('decisions', ['list'], { token }, { ...env, POSTURE_PROJECT: undefined }).projectId).toBe('from-token');
    expect(parseTriageArgs('decisions', ['list'], { token }, env).projectId).toBe('p1');
  });

  it('reads vex import\'s FILE', () => {
    expect(parseTriageArgs('vex', ['import', 'a.json'], { json: true }, env)).toMatchObject({ command: 'vex import', file: 'a.json', json: true, token: 'tok-env' });
  });

  it.each([
    ['decisions', ['list'], {}, { ...env, POSTURE_TOKEN: undefined }, 'decisions list needs an API token: set POSTURE_TOKEN (or --token)'],
    ['vex', ['import', 'a.json'], { token: '' }, { ...env, POSTURE_TOKEN: '' }, 'vex import needs an API token: set POSTURE_TOKEN (or --token)'],
    ['decisions', ['list'], {}, { ...env, POSTURE_API: undefined }, 'missing --api (or POSTURE_API)'],
    ['decisions', ['list'], { api: 'ftp://x' }, env, '--api: must be an http(s) URL: ftp://x'],
    ['decisions', ['list'], {}, { ...env, POSTURE_PROJECT: undefined }, 'missing --project (or POSTURE_PROJECT)'],
    ['decisions', [], {}, env, "decisions: expected 'decisions list' (see posture --help)"],
    ['vex', ['export'], {}, env, "vex: expected 'vex import', not 'export' (see posture --help)"],
    ['vex', ['import'], {}, env, 'vex import: missing FILE'],
    ['vex', ['import', 'a', 'b'], {}, env, 'vex import takes one FILE, got 2'],
    ['decisions', ['list', 'x'], {}, env, 'decisions list takes no operand: x'],
    ['decisions', ['list'], { limit: '2.5' }, env, '--limit: not a whole number above 0: 2.5'],
    ['decisions', ['list'], { limit: '-1' }, env, '--limit: not a whole number above 0: -1'],
    ['decisions', ['list'], { type: 'vulns' }, env, '--type: vulnerability or crypto, not vulns'],
    ['decisions', ['list'], { wait: true }, env, 'decisions list does not take --wait (see posture --help)'],
    ['vex', ['import', 'a.json'], { limit: '3' }, env, 'vex import does not take --limit (see posture --help)'],
  ])('%s %j %j: usage error', (command, rest, values, e, message) => {
    expect(() => parseTriageArgs(command, rest, values, e)).toThrow(expect.objectContaining({ message, exitCode: 2 }));
  });

  it('lets a command\'s own and the common flags through, refuses another command\'s', () => {
    expect(() => rejectFlags('upload', { api: 'x', project: 'p', json: true, pass: 'p', 'fail-on': ['red'] }, ['pass', 'fail-on'])).not.toThrow();
    expect(() => rejectFlags('upload', { pass: 'p', token: 't' }, ['pass'])).toThrow('upload does not take --token');
  });
});

// `npm run dev:link` and the end of `npm run dev` (scripts/local.mjs): the arguments, how the link is
// shown, and the demo history's movement count the seeding prints. The dev route itself is tested in
// workerd (test/platform/dev.ts); the whole flow in a real browser by `npm run test:browser`.
import { describe, expect, it } from 'vitest';
import { dashboardAddress, devLinkArgs, historyMovements, signInLinkLines } from '../scripts/local.mjs';

describe('dev:link arguments', () => {
  it('defaults to the demo admin on $PORT, else 8787', () => {
    expect(devLinkArgs([], {})).toEqual({ email: undefined, port: 8787 });
    expect(devLinkArgs([], { PORT: '18456' })).toEqual({ email: undefined, port: 18456 });
  });

  it('takes --email and --port (the port over $PORT)', () => {
    expect(devLinkArgs(['--email', ' alice@example.com '], {})).toEqual({ email: 'alice@example.com', port: 8787 });
    expect(devLinkArgs(['--email=bob@example.com', '--port', '9000'], { PORT: '18456' })).toEqual({ email: 'bob@example.com', port: 9000 });
  });

  it('refuses what it does not know, with the usage', () => {
    expect(() => devLinkArgs(['--mail', 'x@example.com'], {})).toThrow(/usage: npm run dev:link/);
    expect(() => devLinkArgs(['alice@example.com'], {})).toThrow(/usage/);
    expect(() => devLinkArgs(['--email', 'not-an-address'], {})).toThrow(/not an email address: not-an-address/);
    expect(() => devLinkArgs(['--port', 'http'], {})).toThrow(/not a port: http/);
    expect(() => devLinkArgs([], { PORT: '70000' })).toThrow(/not a port: 70000/);
  });
});

describe('the link as printed', () => {
  const now = Date.parse('2026-11-28T10:00:00Z');
  const link = { url: 'http://dashboard.localhost:8787/sign-in#token=abc.def.ghi', email: 'admin@demo.posture.local', expiresAt: '2026-11-28T10:15:00.000Z' };

  it('names the person, how long it is valid and how to get another, then the link alone on its line', () => {
    expect(signInLinkLines(link, { now })).toEqual([
      'Sign in to the dashboard as admin@demo.posture.local with this one-time link (valid 15 minutes; a fresh one: npm run dev:link):',
      '  http://dashboard.localhost:8787/sign-in#token=abc.def.ghi',
    ]);
  });

  it('names the port when it is not the default', () => {
    expect(signInLinkLines({ ...link, url: 'http://dashboard.localhost:18456/sign-in#token=x' }, { port: 18456, now })[0]).toContain('a fresh one: PORT=18456 npm run dev:link');
  });

  it('is on the dashboard address, which follows the port', () => {
    expect(dashboardAddress(8787)).toBe('http://dashboard.localhost:8787');
    expect(dashboardAddress(18456)).toBe('http://dashboard.localhost:18456');
  });
});

describe('history movements', () => {
  it('counts, per axis, the rows whose score differs from the axis\'s previous row', () => {
    const rows = [
      { axis: 'vuln', score: 10 }, { axis: 'pqc', score: 50 },
      { axis: 'vuln', score: 20 }, { axis: 'pqc', score: 50 },
      { axis: 'vuln', score: 20 }, { axis: 'pqc', score: 40 }, { axis: 'agility', score: 90 },
    ];
    expect(historyMovements(rows)).toEqual({ vuln: 1, pqc: 1, agility: 0 });
    expect(historyMovements([])).toEqual({});
  });
});

// `npm run setup:cloudflare` against a stand-in wrangler (fixtures/fake-wrangler.mjs, through the
// WRANGLER variable) and a temporary copy of wrangler.toml: it creates what is missing and only that,
// writes the ids into [env.production], is idempotent, plans without acting under --dry-run, passes
// secrets on stdin without printing them, and stops when wrangler is not logged in. No network.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const script = path.join(root, 'scripts/setup-cloudflare.mjs');
const fake = path.join(root, 'test-node/fixtures/fake-wrangler.mjs');
const temp = mkdtempSync(path.join(tmpdir(), 'setup-cloudflare-test-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const QUEUES = ['posture-analysis', 'posture-analysis-dlq', 'posture-notify', 'posture-render', 'posture-render-dlq', 'posture-scoring', 'posture-scoring-dlq'];
const EMPTY = { loggedIn: true, d1: [], r2: [], kv: [], queues: [], queuePageSize: 4 };

let counter = 0;
/** A fresh account (state), call log and copy of wrangler.toml. */
function account(state = EMPTY) {
  const dir = path.join(temp, `case-${++counter}`);
  rmSync(dir, { recursive: true, force: true });
  const config = path.join(dir, 'wrangler.toml');
  mkdirSync(dir, { recursive: true });
  copyFileSync(path.join(root, 'wrangler.toml'), config);
  const statePath = path.join(dir, 'state.json');
  const callsPath = path.join(dir, 'calls.json');
  writeFileSync(statePath, JSON.stringify(state));
  const setup = (args = [], env = {}) => new Promise((resolve) => {
    const child = spawn(process.execPath, [script, '--env', 'production', '--config', config, ...args], {
      cwd: root,
      env: { ...cleanEnv(), WRANGLER: fake, FAKE_WRANGLER_STATE: statePath, FAKE_WRANGLER_CALLS: callsPath, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr, output: stdout + stderr }));
  });
  return {
    config,
    setup,
    toml: () => readFileSync(config, 'utf8'),
    state: () => JSON.parse(readFileSync(statePath, 'utf8')),
    /** The calls so far (args, stdin); `reset` starts a new log. */
    calls: () => (existsSync(callsPath) ? JSON.parse(readFileSync(callsPath, 'utf8')) : []),
    reset: () => rmSync(callsPath, { force: true }),
  };
}

/** The test runner's environment without anything that would steer the script or reach an account. */
function cleanEnv() {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (/^(POSTURE_|CLOUDFLARE_|WRANGLER)/.test(name)) delete env[name];
  return env;
}

const isCreate = (c) => c.args.includes('create');
const commandOf = (c) => c.args.filter((a) => !a.startsWith('--')).slice(0, 3).join(' ');
const readOnly = new Set(['whoami', 'd1 list', 'r2 bucket list', 'kv namespace list', 'queues list', 'secret list']);
const isReadOnly = (c) => c.args[0] === 'whoami' || readOnly.has(c.args.slice(0, c.args[0] === 'r2' || c.args[0] === 'kv' ? 3 : 2).join(' '));

/** `key = "value"` of the [env.production] section's lines. */
const productionValue = (toml, key) => {
  const section = toml.slice(toml.indexOf('[env.production]'));
  return new RegExp(`^${key} = "([^"]*)"`, 'm').exec(section)?.[1];
};

describe('npm run setup:cloudflare', () => {
  it('creates every resource on an empty account, writes the ids, then changes nothing on a second run', async () => {
    const a = account();
    const original = a.toml();
    const first = await a.setup(['--api-host', 'api.acme.test', '--dashboard-host', 'posture.acme.test', '--email-from', 'no-reply@acme.test']);
    expect(first.code, first.output).toBe(0);

    const created = a.calls().filter(isCreate).map(commandOf);
    expect(created.sort()).toEqual([
      'd1 create posture-control',
      'kv namespace create',
      'queues create posture-analysis', 'queues create posture-analysis-dlq', 'queues create posture-render',
      'queues create posture-render-dlq', 'queues create posture-scoring', 'queues create posture-scoring-dlq', 'queues create posture-notify',
      'r2 bucket create',
    ].sort());
    const state = a.state();
    expect(state.r2).toEqual(['posture-bundles']);
    expect(state.queues.map((q) => q.name).sort()).toEqual(QUEUES);
    // The KV namespace is created without --env (wrangler would prefix its title with "production-").
    expect(state.kv.map((n) => n.title)).toEqual(['posture-service-OAUTH_KV']);
    expect(state.d1.map((d) => d.name)).toEqual(['posture-control']);

    // The ids and hosts are written into [env.production]; nothing else in the file moves.
    const toml = a.toml();
    expect(productionValue(toml, 'database_id')).toBe(state.d1[0].uuid);
    expect(productionValue(toml, 'id')).toBe(state.kv[0].id);
    expect(productionValue(toml, 'API_HOST')).toBe('api.acme.test');
    expect(productionValue(toml, 'API_URL')).toBe('https://api.acme.test');
    expect(productionValue(toml, 'DASHBOARD_URL')).toBe('https://posture.acme.test');
    expect(productionValue(toml, 'EMAIL_FROM')).toBe('no-reply@acme.test');
    expect(toml).toContain('{ pattern = "api.acme.test", custom_domain = true },');
    expect(toml).toContain('{ pattern = "posture.acme.test", custom_domain = true },');
    const before = original.split('\n');
    const after = toml.split('\n');
    expect(after.length).toBe(before.length);
    const changed = after.map((line, i) => [line, before[i]]).filter(([x, y]) => x !== y);
    expect(changed.length).toBe(9); // 2 ids, 2 routes, 5 vars
    for (const [line, was] of changed) {
      expect(line.replace(/"[^"]*"/, '""').replace(/\s+#/, ' #'), `${was} -> ${line}`).toBe(was.replace(/"[^"]*"/, '""').replace(/\s+#/, ' #'));
    }
    // The top level keeps its placeholders (local development).
    expect(original.slice(0, original.indexOf('[env.production]'))).toBe(toml.slice(0, toml.indexOf('[env.production]')));

    // JWT_SECRET and NOTIFY_KEY went in on stdin, generated (64 characters, each its own), and were never printed.
    const puts = a.calls().filter((c) => c.args[0] === 'secret' && c.args[1] === 'put');
    expect(puts.map((c) => c.args.slice(0, 3))).toEqual([['secret', 'put', 'JWT_SECRET'], ['secret', 'put', 'NOTIFY_KEY']]);
    for (const put of puts) {
      expect(put.args).toEqual(expect.arrayContaining(['--env', 'production']));
      expect(put.args.join(' ')).not.toContain(put.stdin);
      expect(put.stdin).toMatch(/^[A-Za-z0-9_-]{64}$/);
      expect(first.output).not.toContain(put.stdin);
    }
    expect(puts[0].stdin).not.toBe(puts[1].stdin);
    expect(state.workers.production).toEqual(['JWT_SECRET', 'NOTIFY_KEY']);
    expect(first.stdout).toMatch(/Left to do[\s\S]*Custom domains[\s\S]*Email Routing[\s\S]*vulndb:import[\s\S]*First admin/);
    // The first administrator signs up through BOOTSTRAP_ADMIN_EMAIL; sign-up is never opened for it.
    expect(first.stdout).toMatch(/First admin: sign-up is closed \(keep it so\)\. Set BOOTSTRAP_ADMIN_EMAIL/);
    expect(first.stdout).not.toMatch(/OPEN_SIGNUP:true/);

    // Second run (the same flags): only list calls, the file byte for byte the same.
    a.reset();
    const second = await a.setup(['--api-host', 'api.acme.test', '--dashboard-host', 'posture.acme.test', '--email-from', 'no-reply@acme.test']);
    expect(second.code, second.output).toBe(0);
    expect(a.calls().filter((c) => !isReadOnly(c)).map((c) => c.args.join(' '))).toEqual([]);
    expect(a.toml()).toBe(toml);
    expect(a.state()).toEqual(state);
    expect(second.stdout).toContain('up to date');
    expect(second.stdout).toMatch(/JWT_SECRET\s+set, kept/);
    expect(second.stdout).toMatch(/NOTIFY_KEY\s+set, kept/);

    // And without the flags, nothing changes either.
    a.reset();
    const third = await a.setup();
    expect(third.code, third.output).toBe(0);
    expect(a.calls().filter((c) => !isReadOnly(c))).toEqual([]);
    expect(a.toml()).toBe(toml);
  }, 60_000);

  it('only creates what is missing, and records the ids of what exists', async () => {
    const d1 = { name: 'posture-control', uuid: '11111111-2222-4333-8444-555555555555' };
    const kv = { id: 'abcdefabcdefabcdefabcdefabcdef12', title: 'posture-service-OAUTH_KV' };
    // Six queues over pages of four (the list is paged), one of ours among them on the second page.
    const others = ['a', 'b', 'c', 'd', 'e'].map((n, i) => ({ id: `q${i}`, name: `other-${n}` }));
    const a = account({ ...EMPTY, d1: [d1], kv: [kv], r2: ['other-bucket', 'posture-bundles'], queues: [...others, { id: 'q9', name: 'posture-render' }], workers: { production: ['JWT_SECRET', 'NOTIFY_KEY'] } });
    const run = await a.setup();
    expect(run.code, run.output).toBe(0);
    expect(a.calls().filter(isCreate).map(commandOf).sort()).toEqual(QUEUES.filter((q) => q !== 'posture-render').map((q) => `queues create ${q}`).sort());
    expect(a.calls().some((c) => c.args[0] === 'secret' && c.args[1] === 'put')).toBe(false);
    expect(productionValue(a.toml(), 'database_id')).toBe(d1.uuid);
    expect(productionValue(a.toml(), 'id')).toBe(kv.id);
  }, 30_000);

  it('--dry-run makes no create call, sets no secret and writes nothing', async () => {
    const a = account();
    const original = a.toml();
    const run = await a.setup(['--dry-run', '--api-host', 'api.acme.test']);
    expect(run.code, run.output).toBe(0);
    expect(a.calls().filter((c) => !isReadOnly(c)).map((c) => c.args.join(' '))).toEqual([]);
    expect(a.toml()).toBe(original);
    expect(a.state()).toEqual(EMPTY);
    // The plan names the calls a real run would make.
    expect(run.stdout).toContain('wrangler d1 create posture-control');
    expect(run.stdout).toContain('wrangler kv namespace create posture-service-OAUTH_KV');
    for (const queue of QUEUES) expect(run.stdout).toContain(`wrangler queues create ${queue}`);
    expect(run.stdout).toContain('wrangler secret put JWT_SECRET');
    expect(run.stdout).toContain('wrangler secret put NOTIFY_KEY');
    expect(run.stdout).toContain('would write API_HOST = "api.acme.test"');
  }, 30_000);

  it('sets JWT_SECRET from POSTURE_JWT_SECRET through stdin, without printing it', async () => {
    const a = account();
    const secret = 'a-very-secret-value-for-the-test-0123456789-abcdefghijkl';
    const notifyKey = 'another-very-secret-value-for-notifications-0123456789';
    const run = await a.setup([], { POSTURE_JWT_SECRET: secret, POSTURE_NOTIFY_KEY: notifyKey });
    expect(run.code, run.output).toBe(0);
    const puts = a.calls().filter((c) => c.args[0] === 'secret' && c.args[1] === 'put');
    expect(puts.map((c) => c.stdin)).toEqual([secret, notifyKey]);
    expect(run.output).not.toContain(notifyKey);
    expect(run.output).not.toContain(secret);
    expect(a.calls().some((c) => c.args.join(' ').includes(secret))).toBe(false);
    // Once set, a second run keeps it (rotating would end every session and token).
    a.reset();
    const again = await a.setup([], { POSTURE_JWT_SECRET: `${secret}-other` });
    expect(again.code, again.output).toBe(0);
    expect(a.calls().some((c) => c.args[1] === 'put')).toBe(false);
  }, 30_000);

  it('exits non-zero when wrangler is not logged in, before any other call', async () => {
    const a = account({ ...EMPTY, loggedIn: false });
    const original = a.toml();
    const run = await a.setup();
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/not logged in.*wrangler login/);
    expect(a.calls().map((c) => c.args[0])).toEqual(['whoami']);
    expect(a.toml()).toBe(original);
  });

  it('asks for CLOUDFLARE_ACCOUNT_ID when the login reaches several accounts, and passes it on', async () => {
    const accounts = [{ id: 'a1', name: 'Ops' }, { id: 'a2', name: 'Sandbox' }];
    const a = account({ ...EMPTY, accounts });
    const run = await a.setup(['--dry-run']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/2 accounts \(Ops a1, Sandbox a2\): set CLOUDFLARE_ACCOUNT_ID/);
    a.reset();
    const chosen = await a.setup(['--dry-run'], { CLOUDFLARE_ACCOUNT_ID: 'a2' });
    expect(chosen.code, chosen.output).toBe(0);
    expect(chosen.stdout).toContain('account Sandbox a2');
    expect(a.calls().length).toBeGreaterThan(1);
    expect(a.calls().filter((c) => c.account !== 'a2')).toEqual([]);
  }, 30_000);

  it('fails loudly, deleting nothing, when the production Worker has a DEV_SECRET', async () => {
    const a = account({ ...EMPTY, workers: { production: ['JWT_SECRET', 'DEV_SECRET'] } });
    const run = await a.setup();
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/DEV_SECRET is set[\s\S]*wrangler secret delete DEV_SECRET --env production/);
    expect(a.calls().some((c) => c.args.includes('delete'))).toBe(false);
  }, 30_000);

  it('refuses to create a second database when the recorded id is not in this account', async () => {
    const a = account();
    const toml = a.toml();
    const at = toml.indexOf('[env.production]');
    writeFileSync(a.config, toml.slice(0, at) + toml.slice(at).replace('database_id = "00000000-0000-0000-0000-000000000000"', 'database_id = "99999999-2222-4333-8444-555555555555"'));
    const run = await a.setup();
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/records database_id of DB = "99999999-.*this account has no D1 database posture-control/);
    expect(a.calls().filter(isCreate)).toEqual([]);
  });
});

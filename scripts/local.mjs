// Shared by the local scripts: `.dev.vars` with fresh secrets, wrangler processes, the dev routes.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const devVarsPath = join(root, '.dev.vars');

/** Reads `.dev.vars`, creating it with fresh signing secrets when missing or incomplete. */
export function ensureDevVars() {
  const vars = existsSync(devVarsPath) ? parseVars(readFileSync(devVarsPath, 'utf8')) : {};
  let changed = false;
  for (const name of ['JWT_SECRET', 'DEV_SECRET', 'NOTIFY_KEY']) {
    if (!vars[name]) {
      vars[name] = randomBytes(32).toString('hex');
      changed = true;
    }
  }
  if (changed) {
    const body = Object.entries(vars).map(([k, v]) => `${k}="${v}"`).join('\n');
    writeFileSync(devVarsPath, `# Local secrets, made by npm run dev. Never commit this file.\n${body}\n`, { mode: 0o600 });
    console.error('Created .dev.vars with fresh signing secrets.');
  }
  return vars;
}

export function readDevVars() {
  if (!existsSync(devVarsPath)) throw new Error('No .dev.vars: start the service once with `npm run dev`.');
  return parseVars(readFileSync(devVarsPath, 'utf8'));
}

function parseVars(text) {
  const vars = {};
  for (const line of text.split('\n')) {
    const match = line.match(/^\s*([A-Z0-9_]+)\s*=\s*"?(.*?)"?\s*$/);
    if (match) vars[match[1]] = match[2];
  }
  return vars;
}

const wranglerBin = join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
// CLOUDFLARE_CF_FETCH_ENABLED=false: wrangler does not fetch the `Request.cf` object from
// workers.cloudflare.com at start (offline it printed ENOTFOUND stack traces); its placeholder serves.
const quietEnv = {
  ...process.env, WRANGLER_SEND_METRICS: 'false', CI: process.env.CI ?? 'true', CLOUDFLARE_CF_FETCH_ENABLED: process.env.CLOUDFLARE_CF_FETCH_ENABLED ?? 'false',
};

/** Runs a wrangler command to completion; rejects with its output when it fails. */
export function wrangler(args, { quiet = true } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [wranglerBin, ...args], { cwd: root, env: quietEnv, stdio: quiet ? 'pipe' : 'inherit' });
    let output = '';
    child.stdout?.on('data', (d) => (output += d));
    child.stderr?.on('data', (d) => (output += d));
    child.on('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(`wrangler ${args.join(' ')} failed:\n${output}`))));
  });
}

/**
 * Starts `wrangler dev` in the background; the caller stops it with `.kill()`. With `group`, it leads
 * a process group of its own (wrangler and workerd), which `process.kill(-child.pid, signal)` stops
 * together, as Ctrl-C in a terminal would. With `inspectorPort`, the Worker's isolates take DevTools
 * protocol connections there (off by default). `vars` overrides wrangler.toml's [vars] for this run
 * (`--var NAME:value`, e.g. `{ API_URL: 'http://127.0.0.1:18313' }`), `extraArgs` are appended to the
 * command line. With `pipe` (and not `inherit`), the child's stdout and stderr are pipes the caller
 * must read (wrangler logs the .eml file of each email sent there), else they fill and wrangler stalls.
 */
export function startWranglerDev({ port, persistTo, inherit = false, group = false, inspectorPort = null, vars = {}, extraArgs = [], pipe = false, asPerson = false }) {
  // --test-scheduled: GET /__scheduled runs the daily cron locally (the demo takes its first snapshot so).
  const args = ['dev', '--port', String(port), '--ip', '127.0.0.1', '--show-interactive-dev-session=false', '--test-scheduled'];
  if (persistTo) args.push('--persist-to', persistTo);
  if (inspectorPort) args.push('--inspector-port', String(inspectorPort), '--inspector-ip', '127.0.0.1');
  for (const [name, value] of Object.entries(vars)) args.push('--var', `${name}:${value}`);
  args.push(...extraArgs);
  const stdio = inherit ? 'inherit' : pipe ? ['ignore', 'pipe', 'pipe'] : 'ignore';
  // asPerson: as `npm run dev` starts it, without a test runner's NODE_ENV=test (with it, miniflare
  // never fetches the cf object, so a test would not see what a person's first run prints).
  const env = { ...quietEnv };
  if (asPerson && env.NODE_ENV === 'test') delete env.NODE_ENV;
  return spawn(process.execPath, [wranglerBin, ...args], { cwd: root, env, stdio, detached: group });
}

/**
 * `wrangler dev` listens on 127.0.0.1 only, and `localhost` resolves to ::1 first on some systems: this
 * forwards [::1]:port to 127.0.0.1:port (bytes as they are, so the Host header still says localhost).
 * Answers the server, or null when ::1 cannot be listened on (no IPv6, or the port is taken there).
 */
export function forwardIpv6Loopback(port) {
  const server = createServer((socket) => {
    const upstream = connect(port, '127.0.0.1');
    const close = () => {
      socket.destroy();
      upstream.destroy();
    };
    socket.on('error', close);
    upstream.on('error', close);
    socket.pipe(upstream).pipe(socket);
  });
  return new Promise((resolve) => {
    server.once('error', () => resolve(null));
    server.listen(port, '::1', () => resolve(server));
  });
}

export async function waitForService(base, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${base}/api/v1/health`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`The service at ${base} did not answer within ${timeoutMs / 1000} s.`);
}

/** Calls a local development route (seed, session) with the instance's DEV_SECRET. */
export async function devCall(base, path, body = {}) {
  const { DEV_SECRET } = readDevVars();
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-dev-secret': DEV_SECRET },
    body: JSON.stringify(body),
  });
  const answer = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(`${path}: ${res.status} ${answer.code ?? ''} ${answer.error ?? ''}`.trim());
  return answer;
}

export const localBase = (port = process.env.PORT || 8787) => `http://127.0.0.1:${port}`;

/** The dashboard's address on a local instance (DASHBOARD_URL, which `npm run dev` sets to follow the port). */
export const dashboardAddress = (port = process.env.PORT || 8787) => `http://dashboard.localhost:${port}`;

/**
 * `npm run dev:link [-- --email X] [--port N]`'s arguments: whom the link signs in (the demo admin when
 * left out) and the instance's port ($PORT, else 8787). Throws on anything else, with the usage.
 */
export function devLinkArgs(argv, env = process.env) {
  const usage = 'usage: npm run dev:link [-- --email someone@example.com] [--port 8787]';
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { email: { type: 'string' }, port: { type: 'string' } }, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new Error(`${error.message}\n${usage}`);
  }
  const port = Number(parsed.port ?? env.PORT ?? 8787);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`not a port: ${parsed.port ?? env.PORT}\n${usage}`);
  const email = parsed.email?.trim();
  if (email !== undefined && !/^[^\s@]+@[^\s@]+$/.test(email)) throw new Error(`not an email address: ${parsed.email}\n${usage}`);
  return { email: email || undefined, port };
}

/** How `npm run dev` and `npm run dev:link` show a link from POST /api/v1/dev/sign-in-link: the lines to print. */
export function signInLinkLines(link, { port = 8787, now = Date.now() } = {}) {
  const minutes = Math.max(0, Math.round((Date.parse(link.expiresAt) - now) / 60_000));
  const again = `${Number(port) === 8787 ? '' : `PORT=${port} `}npm run dev:link`;
  return [
    `Sign in to the dashboard as ${link.email} with this one-time link (valid ${minutes} minutes; a fresh one: ${again}):`,
    `  ${link.url}`,
  ];
}

/** How many times each axis's score moved in a portfolio's history rows (oldest first): rows whose score differs from the axis's previous row. */
export function historyMovements(rows) {
  const last = new Map();
  const moved = {};
  for (const { axis, score } of rows) {
    moved[axis] ??= 0;
    if (last.has(axis) && last.get(axis) !== score) moved[axis]++;
    last.set(axis, score);
  }
  return moved;
}

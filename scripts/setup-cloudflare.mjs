#!/usr/bin/env node
// npm run setup:cloudflare -- [--env production] [--dry-run] [--config PATH]
//                             [--api-host HOST] [--dashboard-host HOST] [--email-from ADDRESS]
//
// Prepares a Cloudflare account for `npm run deploy`: finds or creates (never deletes, never
// recreates) every resource [env.<env>] of wrangler.toml names (the D1 database, the R2 bucket, the
// KV namespace, the queues and their dead-letter queues), writes the ids it learns into that section
// (only the `database_id` and `id` lines, and the host and sender lines when --api-host,
// --dashboard-host or --email-from are given: a text edit, comments kept), sets the Worker's
// JWT_SECRET and NOTIFY_KEY when it has none (from POSTURE_JWT_SECRET and POSTURE_NOTIFY_KEY, else 64
// random characters; never printed, passed to `wrangler secret put` on stdin) and prints what is left to do. Run twice, it changes
// nothing the second time. With --dry-run it only lists (read-only calls) and prints the calls it
// would make; it writes nothing.
//
// Environment: WRANGLER (the wrangler command: a .js/.mjs file runs under this Node, anything else
// is executed; default node_modules/wrangler), POSTURE_JWT_SECRET, POSTURE_NOTIFY_KEY, POSTURE_API_HOST,
// POSTURE_DASHBOARD_HOST, POSTURE_EMAIL_FROM (as the flags), CLOUDFLARE_ACCOUNT_ID (which account,
// when the login reaches several), CLOUDFLARE_API_TOKEN (instead of `wrangler login`).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

class SetupError extends Error {}
/** What a create call answers when the resource turned out to exist already. */
const EXISTS = Symbol('exists');

// ---------------------------------------------------------------------------------------------------
// arguments

const USAGE = 'usage: npm run setup:cloudflare -- [--env production] [--dry-run] [--config PATH] [--api-host HOST] [--dashboard-host HOST] [--email-from ADDRESS]';

function parseArgs(argv) {
  const options = { env: 'production', dryRun: false, config: join(root, 'wrangler.toml') };
  const valued = { '--env': 'env', '--config': 'config', '--api-host': 'apiHost', '--dashboard-host': 'dashboardHost', '--email-from': 'emailFrom' };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    if (flag === '--dry-run') options.dryRun = true;
    else if (flag === '--help' || flag === '-h') options.help = true;
    else if (valued[flag]) {
      const value = inline ?? argv[++i];
      if (value === undefined || value === '') throw new SetupError(`${flag} needs a value.\n${USAGE}`);
      options[valued[flag]] = value;
    } else throw new SetupError(`Unknown argument ${argv[i]}.\n${USAGE}`);
  }
  options.config = resolve(options.config);
  options.apiHost ??= process.env.POSTURE_API_HOST || undefined;
  options.dashboardHost ??= process.env.POSTURE_DASHBOARD_HOST || undefined;
  options.emailFrom ??= process.env.POSTURE_EMAIL_FROM || undefined;
  if (!/^[A-Za-z0-9_-]+$/.test(options.env)) throw new SetupError(`--env ${options.env}: not an environment name.`);
  for (const key of ['apiHost', 'dashboardHost']) if (options[key] !== undefined) options[key] = checkHost(options[key]);
  if (options.emailFrom !== undefined) options.emailFrom = checkEmail(options.emailFrom);
  for (const name of ['POSTURE_JWT_SECRET', 'POSTURE_NOTIFY_KEY']) {
    const secret = process.env[name];
    if (secret !== undefined && secret !== '' && (secret.trim() !== secret || secret.length < 32)) {
      throw new SetupError(`${name} must be at least 32 characters, without leading or trailing whitespace.`);
    }
  }
  return options;
}

function checkHost(value) {
  const host = value.trim().toLowerCase().replace(/^https?:\/\//, '').replace(/\/+$/, '');
  if (!/^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/.test(host)) throw new SetupError(`${value}: not a host name.`);
  return host;
}

function checkEmail(value) {
  const address = value.trim();
  if (!/^[A-Za-z0-9._%+-]+@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,}$/.test(address)) throw new SetupError(`${value}: not an email address.`);
  return address;
}

const isPlaceholderHost = (host) => !host || /(^|\.)example\.(com|org|net)$/.test(host);
const isPlaceholderEmail = (address) => !address || isPlaceholderHost(address.split('@')[1]);
const isPlaceholderId = (id) => !id || /^[0-]+$/.test(id);

// ---------------------------------------------------------------------------------------------------
// wrangler.toml: the [env.<env>] section, read and edited line by line (the section's own layout:
// tables of `key = "string"` lines and the multi-line `routes` array of inline tables)

const HEADER = /^\s*(\[\[?)\s*([A-Za-z0-9_.\-"]+?)\s*\]\]?\s*(?:#.*)?$/;
const STRING_KEY = /^(\s*)([A-Za-z0-9_-]+)(\s*=\s*)"((?:[^"\\]|\\.)*)"/;
const ROUTE_PATTERN = /^(\s*\{\s*pattern\s*=\s*)"((?:[^"\\]|\\.)*)"/;

const unquote = (raw) => JSON.parse(`"${raw}"`);

/**
 * The section [env.<env>] of a wrangler.toml: its tables (`name` with `#n` for the n-th entry of an
 * array of tables), each with its string values and their line numbers, and the routes' patterns.
 */
function readSection(text, env) {
  const lines = text.split('\n');
  const prefix = `env.${env}`;
  const tables = [];
  const routes = [];
  const topLevel = {};
  const counts = {};
  let current = null; // null: before the section (the top level until the first header)
  let inTopLevel = true;
  let inRoutes = false;
  let found = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const header = HEADER.exec(line);
    if (header && !inRoutes) {
      inTopLevel = false;
      const name = header[2];
      if (name === prefix || name.startsWith(`${prefix}.`)) {
        found = true;
        const key = header[1] === '[[' ? `${name}#${(counts[name] = (counts[name] ?? -1) + 1)}` : name;
        current = { name, key, values: {} };
        tables.push(current);
      } else current = null;
      continue;
    }
    const value = STRING_KEY.exec(line);
    if (inTopLevel && value) topLevel[value[2]] = unquote(value[4]);
    if (!current) continue;
    if (current.name === prefix && /^\s*routes\s*=\s*\[/.test(line)) {
      inRoutes = !/\]\s*(#.*)?$/.test(line.replace(/^\s*routes\s*=\s*\[/, ''));
      continue;
    }
    if (inRoutes) {
      const route = ROUTE_PATTERN.exec(line);
      if (route) routes.push({ pattern: unquote(route[2]), line: i });
      if (/^\s*\]/.test(line)) inRoutes = false;
      continue;
    }
    if (value) current.values[value[2]] = { value: unquote(value[4]), line: i };
  }
  if (!found) return null;
  const table = (key) => tables.find((t) => t.key === key)?.values ?? {};
  const all = (name) => tables.filter((t) => t.name === `${prefix}.${name}`).map((t) => t.values);
  const get = (values, key) => values[key]?.value;
  const root = table(prefix);
  const vars = table(`${prefix}.vars`);
  const workerName = get(root, 'name') ?? (topLevel.name ? `${topLevel.name}-${env}` : undefined);
  const queues = [];
  for (const q of [...all('queues.producers'), ...all('queues.consumers')]) {
    for (const key of ['queue', 'dead_letter_queue']) if (get(q, key) && !queues.includes(get(q, key))) queues.push(get(q, key));
  }
  return {
    lines,
    workerName,
    accountId: get(root, 'account_id') ?? topLevel.account_id,
    d1: all('d1_databases').map((d) => ({ binding: get(d, 'binding'), name: get(d, 'database_name'), id: get(d, 'database_id') })),
    r2: all('r2_buckets').map((b) => ({ binding: get(b, 'binding'), name: get(b, 'bucket_name') })),
    kv: all('kv_namespaces').map((k) => ({ binding: get(k, 'binding'), id: get(k, 'id'), title: `${workerName}-${get(k, 'binding')}` })),
    queues,
    durableObjects: all('durable_objects.bindings').map((d) => get(d, 'name')),
    ratelimits: all('ratelimits').map((r) => get(r, 'name')),
    sendEmail: all('send_email').map((s) => get(s, 'name')),
    vars: Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, v.value])),
    routes: routes.map((r) => r.pattern),
    // where each editable value sits (for applyEdits)
    where: { tables, routes },
  };
}

/**
 * Applies edits to the text's [env.<env>] section, found afresh: each edit names a value by its
 * table and key (`{ table: 'env.production.vars', key: 'API_HOST', value }`), an entry of an array of
 * tables by a sibling key (`match: { binding: 'DB' }`), or a route by its current pattern
 * (`{ route: 'api.example.com', value }`). Only the quoted value changes; the rest of the line stays.
 */
function applyEdits(text, env, edits) {
  const section = readSection(text, env);
  if (!section) throw new SetupError(`The [env.${env}] section disappeared from the configuration file.`);
  const { lines } = section;
  const replaceAt = (lineNo, regex, valueGroupStart, value) => {
    const m = regex.exec(lines[lineNo]);
    const start = m.index + m.slice(1, valueGroupStart).join('').length;
    const oldLength = m[valueGroupStart].length + 2;
    lines[lineNo] = lines[lineNo].slice(0, start) + JSON.stringify(value) + lines[lineNo].slice(start + oldLength);
  };
  for (const edit of edits) {
    if (edit.route !== undefined) {
      const route = section.where.routes.find((r) => r.pattern === edit.route);
      if (!route) throw new SetupError(`No route with pattern "${edit.route}" in [env.${env}].`);
      replaceAt(route.line, ROUTE_PATTERN, 2, edit.value);
      continue;
    }
    const table = section.where.tables.find((t) => t.name === edit.table
      && Object.entries(edit.match ?? {}).every(([k, v]) => t.values[k]?.value === v));
    const entry = table?.values[edit.key];
    if (!entry) throw new SetupError(`No ${edit.key} line in [${edit.table}] of [env.${env}] to write.`);
    replaceAt(entry.line, STRING_KEY, 4, edit.value);
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------------
// wrangler

function wranglerCommand() {
  const override = process.env.WRANGLER;
  if (override) return /\.[cm]?js$/.test(override) ? [process.execPath, [override]] : [override, []];
  return [process.execPath, [join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js')]];
}

/** The account every call after the login acts on (CLOUDFLARE_ACCOUNT_ID, else account_id of the config). */
let accountForCalls;

const childEnv = () => {
  const env = { ...process.env, WRANGLER_SEND_METRICS: 'false', FORCE_COLOR: '0', NO_COLOR: '1' };
  if (accountForCalls) env.CLOUDFLARE_ACCOUNT_ID = accountForCalls;
  delete env.POSTURE_JWT_SECRET;
  delete env.POSTURE_NOTIFY_KEY;
  delete env.CLOUDFLARE_ENV; // the environment is passed as --env where it applies (it renames KV namespaces)
  return env;
};

/** Runs wrangler to completion; `input` goes to its stdin. Answers { code, stdout, stderr }. */
function runWrangler(args, { input } = {}) {
  const [command, prefix] = wranglerCommand();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, [...prefix, ...args], { cwd: root, env: childEnv(), stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', (error) => reject(new SetupError(`Could not run wrangler (${command}): ${error.message}`)));
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
    if (input !== undefined) {
      child.stdin.on('error', () => {}); // a child that exits without reading
      child.stdin.end(input);
    }
  });
}

/** The first JSON value (object or array) in wrangler's output. */
function parseJson(output, what) {
  const start = output.search(/^\s*[[{]/m);
  if (start >= 0) {
    try {
      return JSON.parse(output.slice(start));
    } catch {
      // fall through
    }
  }
  throw new SetupError(`Could not read ${what} from wrangler's output:\n${output.trim()}`);
}

/** The rows of a table wrangler prints (cli-table3), as objects keyed by the header. */
function parseTable(output) {
  const rows = output.split('\n').filter((l) => /^\s*[│|]/.test(l)).map((l) => l.trim().replace(/^[│|]|[│|]$/g, '').split(/[│|]/).map((c) => c.trim()));
  if (!rows.length) return [];
  const [head, ...body] = rows;
  return body.map((cells) => Object.fromEntries(head.map((h, i) => [h, cells[i]])));
}

// ---------------------------------------------------------------------------------------------------
// the setup

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (options.help) {
    console.log(USAGE);
    return 0;
  }
  const { env, dryRun, config } = options;
  const configName = relative(process.cwd(), config) || config;
  let text;
  try {
    text = readFileSync(config, 'utf8');
  } catch (error) {
    throw new SetupError(`Cannot read ${config}: ${error.message}`);
  }
  const section = readSection(text, env);
  if (!section) throw new SetupError(`${configName} has no [env.${env}] section.`);
  if (!section.workerName) throw new SetupError(`[env.${env}] of ${configName} names no Worker.`);
  const configArgs = ['--config', config];
  const envArgs = [...configArgs, '--env', env];
  const log = (line = '') => console.log(line);
  const plan = []; // what a dry run would do
  const failures = [];

  /** A wrangler call that must succeed. */
  const must = async (args, what, extra) => {
    const result = await runWrangler(args, extra);
    if (result.code !== 0) throw new SetupError(`${what} failed (wrangler ${args.join(' ')}):\n${`${result.stdout}\n${result.stderr}`.trim()}`);
    return result.stdout;
  };
  /** A creating call: run, or (dry run) only recorded. Answers stdout, or null on a dry run. */
  const create = async (args, what, { alreadyExists } = {}) => {
    if (dryRun) {
      plan.push(`wrangler ${args.join(' ')}`);
      return null;
    }
    const result = await runWrangler(args);
    if (result.code === 0) return result.stdout;
    const output = `${result.stdout}\n${result.stderr}`;
    if (alreadyExists && /already (exists|taken|in use|own)/i.test(output)) return EXISTS;
    throw new SetupError(`${what} failed (wrangler ${args.join(' ')}):\n${output.trim()}`);
  };

  log(`Cloudflare setup for [env.${env}] of ${configName}: Worker ${section.workerName}${dryRun ? ' (dry run: nothing is created, set or written)' : ''}`);

  // -- the login
  const who = await runWrangler(['whoami', '--json']);
  let identity = null;
  try {
    identity = parseJson(who.stdout, 'the login');
  } catch {
    // not logged in, or an older wrangler
  }
  if (who.code !== 0 || !identity?.loggedIn) {
    throw new SetupError('wrangler is not logged in: run `npx wrangler login` (or set CLOUDFLARE_API_TOKEN), then run this again.');
  }
  const accounts = identity.accounts ?? [];
  const accountId = process.env.CLOUDFLARE_ACCOUNT_ID || section.accountId;
  if (!accountId && accounts.length > 1) {
    throw new SetupError(`This login reaches ${accounts.length} accounts (${accounts.map((a) => `${a.name} ${a.id}`).join(', ')}): set CLOUDFLARE_ACCOUNT_ID to the one to use.`);
  }
  const account = accounts.find((a) => a.id === accountId) ?? (accountId ? { id: accountId, name: '' } : accounts[0]);
  accountForCalls = accountId; // account_id of [env.<env>] applies to the account-level calls too (they run without --env)
  log(`Logged in${identity.email ? ` as ${identity.email}` : ''}${account ? `, account ${account.name ? `${account.name} ` : ''}${account.id}` : ''}.`);
  log();

  /** A recorded id this account does not know by the resource's name: never create a second one. */
  const wrongAccount = (what, line, id, renamed) => new SetupError(renamed
    ? `${configName} records ${line} = "${id}", which this account holds under another name than ${what}: rename it back, or correct ${configName}.`
    : `${configName} records ${line} = "${id}", but this account has no ${what}: log in to the account that holds it (CLOUDFLARE_ACCOUNT_ID), or set the id back to zeros to create a new one.`);

  const edits = [];
  const status = (what, state) => log(`  ${what.padEnd(48)} ${state}`);

  // -- hosts and sender
  const prompts = !dryRun && process.stdin.isTTY && process.stdout.isTTY;
  /** Asks until the answer passes `check` or is empty (undefined: keep what the file has). */
  let rl = null; // one interface for every question (typed-ahead answers stay buffered in it)
  const ask = async (question, check) => {
    rl ??= createInterface({ input: process.stdin, output: process.stdout });
    for (;;) {
      let answer;
      try {
        answer = (await rl.question(question)).trim();
      } catch {
        throw new SetupError('Aborted: nothing was created or written.');
      }
      if (!answer) return undefined;
      try {
        return check(answer);
      } catch (error) {
        log(`  ${error.message}`);
      }
    }
  };
  const vars = section.vars;
  const hostVars = [
    { option: 'apiHost', flag: '--api-host', hostVar: 'API_HOST', urlVar: 'API_URL', label: 'the API host (e.g. api.yourcompany.com)' },
    { option: 'dashboardHost', flag: '--dashboard-host', hostVar: 'DASHBOARD_HOST', urlVar: 'DASHBOARD_URL', label: 'the dashboard host (e.g. posture.yourcompany.com)' },
  ];
  for (const h of hostVars) {
    let host = options[h.option];
    if (!host && prompts && isPlaceholderHost(vars[h.hostVar])) {
      host = await ask(`${h.label}, empty to leave ${vars[h.hostVar]}: `, checkHost);
    }
    if (!host) continue;
    const old = vars[h.hostVar];
    if (host !== old) {
      edits.push({ table: `env.${env}.vars`, key: h.hostVar, value: host, label: h.hostVar });
      if (section.routes.includes(old)) edits.push({ route: old, value: host, label: `the route ${old}` });
      else log(`  Note: no route ${old} in [env.${env}]: add { pattern = "${host}", custom_domain = true } to its routes.`);
    }
    if (vars[h.urlVar] !== `https://${host}`) edits.push({ table: `env.${env}.vars`, key: h.urlVar, value: `https://${host}`, label: h.urlVar });
    vars[h.hostVar] = host;
  }
  let emailFrom = options.emailFrom;
  if (!emailFrom && prompts && isPlaceholderEmail(vars.EMAIL_FROM)) {
    emailFrom = await ask(`the sign-in links' sender (e.g. no-reply@yourcompany.com), empty to leave ${vars.EMAIL_FROM}: `, checkEmail);
  }
  if (rl) {
    rl.close();
    log();
  }
  if (emailFrom && emailFrom !== vars.EMAIL_FROM) {
    edits.push({ table: `env.${env}.vars`, key: 'EMAIL_FROM', value: emailFrom, label: 'EMAIL_FROM' });
    vars.EMAIL_FROM = emailFrom;
  }

  // -- D1
  log('Resources');
  if (section.d1.length) {
    const listed = parseJson(await must(['d1', 'list', '--json', ...configArgs], 'Listing the D1 databases'), 'the D1 databases');
    for (const db of section.d1) {
      let id = listed.find((d) => d.name === db.name)?.uuid;
      let state = 'exists';
      if (!id && !isPlaceholderId(db.id)) throw wrongAccount(`D1 database ${db.name}`, `database_id of ${db.binding}`, db.id, listed.some((d) => d.uuid === db.id));
      if (!id) {
        const out = await create(['d1', 'create', db.name, ...configArgs], `Creating the D1 database ${db.name}`);
        if (out === null) state = 'missing: would create';
        else {
          id = /database_id\W+([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/i.exec(out)?.[1]
            ?? parseJson(await must(['d1', 'list', '--json', ...configArgs], 'Listing the D1 databases'), 'the D1 databases').find((d) => d.name === db.name)?.uuid;
          if (!id) throw new SetupError(`Created the D1 database ${db.name} but could not learn its id.`);
          state = 'created';
        }
      }
      status(`D1 database ${db.name} (${db.binding})`, id ? `${state}, id ${id}` : state);
      if (id && id !== db.id) edits.push({ table: `env.${env}.d1_databases`, match: { binding: db.binding }, key: 'database_id', value: id, label: `database_id of ${db.binding}` });
    }
  }

  // -- R2
  if (section.r2.length) {
    const out = await must(['r2', 'bucket', 'list', ...configArgs], 'Listing the R2 buckets');
    const names = [...out.matchAll(/^\s*name:\s+(\S+)\s*$/gm)].map((m) => m[1]);
    for (const bucket of section.r2) {
      let state = 'exists';
      if (!names.includes(bucket.name)) {
        const created = await create(['r2', 'bucket', 'create', bucket.name, ...configArgs], `Creating the R2 bucket ${bucket.name}`, { alreadyExists: true });
        state = created === null ? 'missing: would create' : created === EXISTS ? 'exists' : 'created';
      }
      status(`R2 bucket ${bucket.name} (${bucket.binding})`, state);
    }
  }

  // -- KV (created without --env: wrangler would prefix the title with the environment's name)
  if (section.kv.length) {
    const listKv = async () => parseJson(await must(['kv', 'namespace', 'list', ...configArgs], 'Listing the KV namespaces'), 'the KV namespaces');
    const listed = await listKv();
    for (const kv of section.kv) {
      let id = listed.find((n) => n.title === kv.title)?.id;
      let state = 'exists';
      if (!id && !isPlaceholderId(kv.id)) throw wrongAccount(`KV namespace ${kv.title}`, `id of ${kv.binding}`, kv.id, listed.some((n) => n.id === kv.id));
      if (!id) {
        const out = await create(['kv', 'namespace', 'create', kv.title, ...configArgs], `Creating the KV namespace ${kv.title}`);
        if (out === null) state = 'missing: would create';
        else {
          id = /\bid\W+([0-9a-f]{32})\b/i.exec(out)?.[1] ?? (await listKv()).find((n) => n.title === kv.title)?.id;
          if (!id) throw new SetupError(`Created the KV namespace ${kv.title} but could not learn its id.`);
          state = 'created';
        }
      }
      status(`KV namespace ${kv.title} (${kv.binding})`, id ? `${state}, id ${id}` : state);
      if (id && id !== kv.id) edits.push({ table: `env.${env}.kv_namespaces`, match: { binding: kv.binding }, key: 'id', value: id, label: `id of ${kv.binding}` });
    }
  }

  // -- Queues (the list is paged: read pages until one brings nothing new)
  if (section.queues.length) {
    const names = new Set();
    for (let page = 1; page <= 50; page++) {
      const rows = parseTable(await must(['queues', 'list', '--page', String(page), ...configArgs], 'Listing the queues'));
      const fresh = rows.map((r) => r.name).filter((n) => n && !names.has(n));
      fresh.forEach((n) => names.add(n));
      if (!fresh.length) break;
    }
    for (const queue of section.queues) {
      let state = 'exists';
      if (!names.has(queue)) {
        const created = await create(['queues', 'create', queue, ...configArgs], `Creating the queue ${queue}`, { alreadyExists: true });
        state = created === null ? 'missing: would create' : created === EXISTS ? 'exists' : 'created';
      }
      status(`Queue ${queue}`, state);
    }
  }

  const none = [
    section.durableObjects.length && `Durable Objects (${section.durableObjects.join(', ')}): created by the deploy, from the [[migrations]]`,
    'the cron trigger: registered by the deploy',
    section.ratelimits.length && `rate limiting (${section.ratelimits.join(', ')}): configured by the deploy`,
    'static assets (public/): uploaded by the deploy',
    section.sendEmail.length && `email (${section.sendEmail.join(', ')}): a binding; the sender domain is set up in the dashboard (below)`,
  ].filter(Boolean);
  log('  Nothing to create:');
  for (const line of none) log(`    - ${line}`);
  log();

  // -- wrangler.toml
  log(configName);
  if (!edits.length) log('  up to date');
  else if (dryRun) {
    for (const edit of edits) log(`  would write ${edit.label} = "${edit.value}"`);
  } else {
    const fresh = readFileSync(config, 'utf8'); // the file as it is now (others may edit the top level)
    const updated = applyEdits(fresh, env, edits);
    if (updated !== fresh) {
      const temporary = `${config}.setup-${process.pid}`;
      writeFileSync(temporary, updated);
      renameSync(temporary, config);
    }
    for (const edit of edits) log(`  wrote ${edit.label} = "${edit.value}"`);
  }
  log();

  // -- secrets
  log('Secrets');
  const listed = await runWrangler(['secret', 'list', '--format', 'json', ...envArgs]);
  let secretNames;
  if (listed.code === 0) secretNames = parseJson(listed.stdout, 'the Worker\'s secrets').map((s) => s.name);
  else if (/not found|does not exist|10007/i.test(`${listed.stdout}\n${listed.stderr}`)) secretNames = []; // no Worker yet
  else throw new SetupError(`Listing the Worker's secrets failed (wrangler secret list):\n${`${listed.stdout}\n${listed.stderr}`.trim()}`);
  // Generated once and kept: JWT_SECRET signs every credential; NOTIFY_KEY seals notification URLs and secrets.
  for (const { name, given, kept } of [
    { name: 'JWT_SECRET', given: process.env.POSTURE_JWT_SECRET, kept: 'set, kept (to rotate it without ending sessions and tokens: docs/key-rotation.md)' },
    { name: 'NOTIFY_KEY', given: process.env.POSTURE_NOTIFY_KEY, kept: 'set, kept (changing it makes the notification destinations unreadable: docs/notifications.md)' },
  ]) {
    if (secretNames.includes(name)) {
      status(name, kept);
      continue;
    }
    const source = given ? `from POSTURE_${name}` : 'generated, 64 characters';
    if (dryRun) {
      plan.push(`wrangler secret put ${name} ${envArgs.join(' ')}  (value on stdin, ${source})`);
      status(name, `missing: would set (${source})`);
      continue;
    }
    const value = given || randomBytes(48).toString('base64url');
    const result = await runWrangler(['secret', 'put', name, ...envArgs], { input: value });
    if (result.code !== 0) {
      const output = `${result.stdout}\n${result.stderr}`.split(value).join('[secret]').trim();
      throw new SetupError(`Setting ${name} failed (wrangler secret put ${name}):\n${output}`);
    }
    status(name, `set (${source}; not shown)`);
  }
  status('JWT_PREVIOUS_SECRETS', secretNames.includes('JWT_PREVIOUS_SECRETS') ? 'set' : 'not set (optional: only while rotating JWT_SECRET)');
  if (secretNames.includes('DEV_SECRET')) {
    status('DEV_SECRET', 'SET: it must not exist in production');
    failures.push(`DEV_SECRET is set on the Worker ${section.workerName}: it opens the local development routes (sign anyone in, seed data). Delete it: npx wrangler secret delete DEV_SECRET --env ${env}`);
  }
  log();

  if (dryRun) {
    log('Dry run: the calls a real run would make');
    if (!plan.length) log('  none');
    for (const call of plan) log(`  ${call}`);
    log();
  }

  // -- what is left
  const todo = [];
  const hostsLeft = hostVars.filter((h) => isPlaceholderHost(vars[h.hostVar]));
  if (hostsLeft.length || isPlaceholderEmail(vars.EMAIL_FROM)) {
    const flags = [...hostsLeft.map((h) => `${h.flag} HOST`), ...(isPlaceholderEmail(vars.EMAIL_FROM) ? ['--email-from ADDRESS'] : [])];
    todo.push(`Set the real hosts and sender: npm run setup:cloudflare -- --env ${env} ${flags.join(' ')}`);
  }
  const idsLeft = [...section.d1, ...section.kv].filter((r) => isPlaceholderId(r.id)).map((r) => r.binding);
  if (dryRun && (plan.length || edits.length || idsLeft.length)) todo.push(`Run this without --dry-run to make the changes above${idsLeft.length ? ` (${idsLeft.join(', ')} still have placeholder ids)` : ''}.`);
  todo.push(`Custom domains: ${vars.API_HOST} and ${vars.DASHBOARD_HOST} must be in a zone of this account (its DNS on Cloudflare) with no DNS record of their own; the deploy attaches them as Custom Domains (DNS records and certificates are made then).`);
  todo.push(`Email: ${vars.EMAIL_FROM} sends the sign-in links. In the dashboard, enable Email Routing on its domain and let it add its DNS records (MX, SPF, DKIM); to mail people beyond your verified destination addresses, onboard the domain to Cloudflare Email Service (Email Sending).`);
  todo.push('Deploy: npm run deploy (the D1 migrations, then the Worker, its Durable Objects, cron, rate limiter and assets).');
  todo.push(`First vulnerability data: the daily cron (03:17 UTC) imports OSV from VULNDB_SOURCE_URL a budget at a time; to fill it now, per ecosystem: curl -O ${vars.VULNDB_SOURCE_URL || 'https://osv-vulnerabilities.storage.googleapis.com'}/npm/all.zip && CLOUDFLARE_ENV=${env} npm run vulndb:import -- all.zip --remote`);
  todo.push(vars.OPEN_SIGNUP === 'true'
    ? `First admin: sign-up is open, so anyone may sign up. Close it (OPEN_SIGNUP = "false" in [env.${env}.vars]) and use BOOTSTRAP_ADMIN_EMAIL instead (docs/deploy.md, "The first administrator").`
    : `First admin: sign-up is closed (keep it so). Set BOOTSTRAP_ADMIN_EMAIL = "you@example.com" in [env.${env}.vars] and deploy: that address alone may sign up, and only while no organization exists. Ask for its sign-in link (POST https://${vars.API_HOST}/api/v1/auth/sign-in {"email": ...}) and follow it (it makes your organization), then remove BOOTSTRAP_ADMIN_EMAIL, deploy again and invite everyone else from that organization (docs/deploy.md).`);
  log('Left to do');
  todo.forEach((line, i) => log(`  ${i + 1}. ${line}`));

  if (failures.length) {
    console.error();
    for (const failure of failures) console.error(`Error: ${failure}`);
    return 1;
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error instanceof SetupError ? `Error: ${error.message}` : error);
    process.exit(1);
  },
);

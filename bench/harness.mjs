// Shared by the benches that drive `wrangler dev`: a service of their own with fresh local state and
// the demo tenant, a large generated SBOM, an upload pass, the CLI run with --json, waiting for a condition,
// a DevTools protocol session with the Worker's isolate.
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { SourceMap } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws'; // wrangler's and miniflare's dependency
import { devCall, ensureDevVars, root, startWranglerDev, waitForService, wrangler } from '../scripts/local.mjs';

/**
 * `wrangler dev` on `port` with fresh local state in a temporary folder, the demo tenant seeded and its
 * project set up: answers where it is (`base`, the project's path `P`), an admin `session`, and `stop()`.
 * With `group`, wrangler and workerd form a process group (see startWranglerDev) that `restart()` stops.
 * With `inspectorPort`, the Worker's isolate takes DevTools connections there (see inspectWorker).
 */
export async function benchService(port, name, { group = false, inspectorPort = null } = {}) {
  const base = `http://127.0.0.1:${port}`;
  // Another service on the port would answer in its place (a bench left running, `npm run dev`).
  if (await fetch(`${base}/api/v1/health`).then(() => true, () => false)) throw new Error(`something already answers on port ${port}: stop it, or set BENCH_PORT`);
  const work = await mkdtemp(join(tmpdir(), `posture-bench-${name}-`));
  const state = join(work, 'state');
  ensureDevVars();
  await wrangler(['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', state]);
  const service = {
    base, work, server: startWranglerDev({ port, persistTo: state, group, inspectorPort, inherit: process.env.BENCH_LOGS === "1" }),
    /** Stops the whole server as Ctrl-C would, then starts it again on the same state. */
    async restart() {
      process.kill(-service.server.pid, 'SIGINT');
      await once(service.server, 'exit');
      const stoppedAt = performance.now();
      service.server = startWranglerDev({ port, persistTo: state, group, inspectorPort });
      return stoppedAt;
    },
    async stop() {
      const exited = service.server.exitCode === null && service.server.signalCode === null ? once(service.server, 'exit') : null;
      try {
        if (group) process.kill(-service.server.pid, 'SIGTERM');
        else service.server.kill('SIGTERM');
      } catch {
        // already gone
      }
      // workerd may still be writing local state (R2 blobs) until wrangler has stopped it.
      if (exited) await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000).unref())]);
      await rm(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    },
  };
  try {
    await waitForService(base);
    const demo = await devCall(base, '/api/v1/dev/seed');
    const session = (await devCall(base, '/api/v1/dev/session')).jwt;
    const P = `${base}/api/v1/project/${demo.projectId}`;
    await until(async () => (await fetch(`${P}/v1/job?limit=1`, { headers: { authorization: `Bearer ${session}` } })).status === 200, 'the project was not set up in time', 20_000);
    return Object.assign(service, { projectId: demo.projectId, session, P });
  } catch (error) {
    await service.stop();
    throw error;
  }
}

/**
 * A CycloneDX 1.6 SBOM of `count` npm packages (about 135 bytes each), written as a stream. `prefix`
 * names the packages (`package-` unless given), so several documents of one bundle can list different
 * ones. With `changed` (a share, such as 0.01), a changed copy of the same SBOM: that share of its
 * components changed, a third each with a version bumped, removed, or followed by a component added.
 */
export async function generateSbom(file, count, subject, { changed = 0, prefix = 'package-' } = {}) {
  const out = createWriteStream(file);
  const write = async (text) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(`{"bomFormat":"CycloneDX","specVersion":"1.6","version":1,"metadata":{"component":{"type":"application","name":"${subject}"}},"components":[`);
  const step = changed > 0 ? Math.max(1, Math.floor(1 / changed)) : 0;
  let first = true;
  const component = async (name, version) => {
    const purl = `pkg:npm/${name}@${version}`;
    await write(`${first ? '' : ','}{"type":"library","bom-ref":"${purl}","name":"${name}","version":"${version}","purl":"${purl}"}`);
    first = false;
  };
  for (let i = 0; i < count; i++) {
    const name = `${prefix}${i.toString(36)}`;
    const version = `${i % 7}.${i % 13}.${i % 17}`;
    const change = step && i % step === 0 ? (i / step) % 3 : -1;
    if (change === 1) continue;
    await component(name, change === 0 ? `${(i % 7) + 1}.0.0` : version);
    if (change === 2) await component(`added-${i.toString(36)}`, '1.0.0');
  }
  await write(']}');
  out.end();
  await once(out, 'close');
  return file;
}

export async function createPass(P, session) {
  const ask = () => fetch(`${P}/credential/spice-pass`, {
    method: 'POST', headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' }, body: '{}',
  });
  // The first request after a pause (the vulnerability import) may reuse a kept-alive connection that
  // wrangler dev is closing at that moment ("other side closed"): nothing was sent, so ask again once.
  const res = await ask().catch((error) => (error.cause?.code === 'UND_ERR_SOCKET' ? ask() : Promise.reject(error)));
  if (res.status !== 201) throw new Error(`could not create an upload pass: ${res.status} ${await res.text()}`);
  return (await res.json()).jwt;
}

/** Runs the CLI with --json; answers its exit code, the JSON events it printed, the survey and the bundle's size. */
export function cli(args, pass) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'cli/posture.mjs'), ...args, '--json'], { env: { PATH: process.env.PATH, POSTURE_PASS: pass }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => {
      const events = stdout.split('\n').filter(Boolean).map((line) => { try { return JSON.parse(line); } catch { return {}; } });
      const surveyId = events.find((e) => e.surveyId)?.surveyId;
      if (code !== 0 || !surveyId) reject(new Error(`the CLI failed (${code}): ${stderr || stdout}`));
      else resolve({ events, surveyId, bytes: events.find((e) => e.total)?.total ?? 0 });
    });
  });
}

/** The `q` quantile (0..1) of some timings, nearest rank below: p50 `quantile(times, 0.5)`, p99 `quantile(times, 0.99)`. */
export function quantile(times, q) {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const keptAlive = new Agent({ keepAlive: true });

/**
 * One request timed to the last byte of the answer as the service sent it (node:http, a kept-alive
 * connection, gzip accepted, nothing decoded): what the service costs, apart from how fast a client
 * decodes. Node's fetch (undici) decodes a gzip body through web streams, which alone takes about 20 ms
 * for 5 MB of JSON; curl or a browser take a few.
 */
export function timedRequest(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(url, { method, agent: keptAlive, headers: { 'accept-encoding': 'gzip', ...headers } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk) => { bytes += chunk.length; });
      res.on('end', () => resolve({ ms: performance.now() - started, status: res.statusCode, bytes, encoding: res.headers['content-encoding'] ?? null, serverTiming: res.headers['server-timing'] ?? null }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The dev route's store figures: rows and bytes per table of the project's object and of the control database, and R2. */
export async function storeFigures(svc, devSecret, projectId = svc.projectId) {
  const res = await fetch(`${svc.base}/api/v1/dev/store-figures?projectId=${projectId}`, { headers: { 'x-dev-secret': devSecret } });
  if (!res.ok) throw new Error(`store figures: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Nothing left running in the bench's project: no job pending or running, portfolios scored, no queued deletions. */
export async function projectQuiet(svc, devSecret) {
  const headers = { authorization: `Bearer ${svc.session}` };
  for (const status of ['PENDING', 'RUNNING']) {
    const page = await (await fetch(`${svc.P}/v1/job?status=${status}&limit=1`, { headers })).json();
    if (page.jobs?.length !== 0) return false;
  }
  const list = await (await fetch(`${svc.P}/v1/portfolio`, { headers })).json();
  if (!list.portfolios?.every((p) => p.scoring === 'scored')) return false;
  return ((await storeFigures(svc, devSecret)).project.tables.content_purges?.rows ?? 0) === 0;
}

/** Waits until `check()` is truthy (polled every `everyMs`), else throws `failure`. */
export async function until(check, failure, timeoutMs = 60_000, everyMs = 200) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await check();
    if (value) return value;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(failure);
}

/**
 * A DevTools protocol session with the Worker's isolate, through the inspector that `wrangler dev
 * --inspector-port` serves: the targets listed at /json (one per Worker; the one titled with `name`, else
 * the first). `call(method, params)` answers the command's result, or rejects after `timeoutMs`. Only one
 * client at a time. When wrangler reloads the Worker (a new isolate behind the same connection), the
 * commands in flight are lost: they reject, and `reloads` lists when that happened. `onEvent` is given
 * every event the isolate sends (after `Runtime.enable`, its console calls as `Runtime.consoleAPICalled`).
 */
export async function inspectWorker(inspectorPort, name = 'posture-service', { onEvent = null } = {}) {
  const origin = `http://127.0.0.1:${inspectorPort}`;
  const targets = await until(async () => {
    try {
      const list = await (await fetch(`${origin}/json`)).json();
      return Array.isArray(list) && list.length > 0 && list;
    } catch {
      return null; // not listening yet
    }
  }, `no DevTools targets at ${origin}/json`, 30_000, 300);
  const target = targets.find((t) => (t.title ?? '').includes(name)) ?? targets[0];
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const pending = new Map();
  const reloads = [];
  let closed = null;
  let next = 0;
  const failAll = (why) => {
    for (const waiting of pending.values()) waiting.fail(new Error(`${waiting.method}: ${why}`));
  };
  ws.on('message', (data) => {
    const message = JSON.parse(data.toString());
    if (message.method === 'Runtime.executionContextsCleared') { // wrangler's proxy, on a new runtime connection
      reloads.push(Date.now());
      failAll('the Worker was reloaded (a new isolate)');
      return;
    }
    if (message.method && onEvent) onEvent(message);
    const waiting = pending.get(message.id); // events (console, contexts) and the proxy's own answers have no waiter
    if (!waiting) return;
    if (message.error) waiting.fail(new Error(`${waiting.method}: ${message.error.message}`));
    else waiting.done(message.result);
  });
  ws.on('close', (code, reason) => {
    closed = `the inspector connection closed (${code} ${reason})`;
    failAll(closed);
  });
  return {
    target,
    reloads,
    call(method, params = {}, { timeoutMs = 120_000 } = {}) {
      if (closed) return Promise.reject(new Error(`${method}: ${closed}`));
      const id = ++next;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => waiting.fail(new Error(`${method}: no answer in ${timeoutMs / 1000} s`)), timeoutMs);
        const settle = (fn) => (value) => {
          clearTimeout(timer);
          pending.delete(id);
          fn(value);
        };
        const waiting = { method, done: settle(resolve), fail: settle(reject) };
        pending.set(id, waiting);
        ws.send(JSON.stringify({ id, method, params }));
      });
    },
    close() {
      ws.close();
    },
  };
}

/**
 * A full collection in the Worker's isolate, then its heap. workerd runs the collection that
 * HeapProfiler.collectGarbage asks for as a task of the isolate, which runs only when the isolate is next
 * entered: requests to the bare route enter it until the collection answers.
 */
export async function heapAfterGc(svc, inspector, attempts = 3) {
  try {
    for (let pass = 0; pass < 2; pass++) {
      let done = false;
      const gc = inspector.call('HeapProfiler.collectGarbage').finally(() => (done = true));
      while (!done) {
        await fetch(`${svc.base}/api/v1/health`).then((r) => r.arrayBuffer()).catch(() => {});
        await Promise.race([gc.catch(() => {}), sleep(250)]);
      }
      await gc;
    }
    return await inspector.call('Runtime.getHeapUsage');
  } catch (error) {
    if (attempts > 1 && /reloaded/.test(error.message)) return heapAfterGc(svc, inspector, attempts - 1);
    throw error;
  }
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * The source map of the Worker's bundle, as { url, map }; null when none is found. `scripts`: the params of
 * the Debugger.scriptParsed events the inspector's `onEvent` collected (wrangler keeps the map beside the bundle while it runs).
 */
export async function bundleSourceMap(inspector, scripts) {
  await inspector.call('Debugger.enable');
  await inspector.call('Debugger.disable');
  const bundle = scripts.find((s) => s.sourceMapURL && /\/index\.js$/.test(s.url));
  if (!bundle) return null;
  try {
    return { url: bundle.url, map: new SourceMap(JSON.parse(readFileSync(fileURLToPath(new URL(bundle.sourceMapURL, bundle.url)), 'utf8'))) };
  } catch (error) {
    console.error(`no source map for the profile: ${error.message}`);
    return null;
  }
}

/**
 * Where the profiled time went: self time by function, and time inside functions (each counted once per
 * sample however deep it recurs), named by their original source through the bundle's source map. The
 * profile is kept for Chrome DevTools. `parts`: functions always listed (by name).
 */
export function printProfile(what, profile, sourceMap, parts, top = 25) {
  const file = join(tmpdir(), `bench-${Date.now()}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const labels = new Map();
  // The profile names the bundle by its module name (`index.js`), the debugger by its file URL.
  const sameFile = (a, b) => a.split('/').pop() === b.split('/').pop();
  const label = (n) => {
    const f = n.callFrame;
    const id = `${f.url}:${f.lineNumber}:${f.columnNumber}:${f.functionName}`;
    if (labels.has(id)) return labels.get(id);
    let text = f.functionName || '(anonymous)';
    const entry = sourceMap && f.url && sameFile(f.url, sourceMap.url) && f.lineNumber >= 0 ? sourceMap.map.findEntry(f.lineNumber, f.columnNumber) : null;
    if (entry?.originalSource) {
      const source = entry.originalSource.startsWith('file:') ? relative(root, fileURLToPath(entry.originalSource)) : entry.originalSource;
      // A named function's original name is the mapping's name at its start; an arrow function has none.
      const name = f.functionName && entry.name ? entry.name : text;
      text = `${name} ${source.replace(/^(\.\.\/)+/, '').replace(/^.*node_modules\//, 'node_modules/')}:${entry.originalLine + 1}`;
    } else if (f.url) text += ` ${f.url.split('/').pop()}:${f.lineNumber + 1}`;
    labels.set(id, text);
    return text;
  };
  const self = new Map();
  const inclusive = new Map();
  const ours = (name) => / src\//.test(name);
  // Time spent in a library (zod, drizzle, SQLite's exec) is listed with the service's own function that called it.
  const callers = new Map();
  let total = 0;
  let idle = 0;
  profile.samples.forEach((id, i) => {
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    total += dt;
    const name = label(nodes.get(id));
    if (/^\((idle|program)\)/.test(name)) idle += dt;
    self.set(name, (self.get(name) ?? 0) + dt);
    if (!ours(name)) {
      let caller = parent.get(id);
      while (caller !== undefined && !ours(label(nodes.get(caller)))) caller = parent.get(caller);
      if (caller !== undefined) {
        const byCaller = callers.get(name) ?? new Map();
        const via = label(nodes.get(caller));
        byCaller.set(via, (byCaller.get(via) ?? 0) + dt);
        callers.set(name, byCaller);
      }
    }
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const fn = label(nodes.get(at));
      if (!seen.has(fn)) {
        seen.add(fn);
        inclusive.set(fn, (inclusive.get(fn) ?? 0) + dt);
      }
    }
  });
  const ms = (v) => `${v.toFixed(0).padStart(7)} ms`;
  const mainCaller = (name) => {
    const byCaller = [...(callers.get(name) ?? [])].sort((a, b) => b[1] - a[1])[0];
    return byCaller ? ` (${byCaller[1].toFixed(0)} ms of it under ${byCaller[0]})` : '';
  };
  console.log(`\nCPU profile of the Worker's isolate, ${what}: ${(total / 1000).toFixed(2)} s sampled, ${(idle / 1000).toFixed(2)} s of it idle or outside JavaScript (${file})`);
  console.log(`  self time, top ${top}:`);
  for (const [name, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${ms(v)}  ${name}${mainCaller(name)}`);
  console.log(`  time inside the service's own functions (inclusive), top ${top}:`);
  const listed = [...inclusive].filter(([name]) => ours(name) || parts.some((p) => name.startsWith(`${p} `))).sort((a, b) => b[1] - a[1]);
  for (const [name, v] of listed.slice(0, top)) console.log(`  ${ms(v)}  ${name}`);
}

/**
 * The longest stretches the isolate ran without a pause (consecutive samples that are not idle, a gap
 * of idle under 2 ms not counting as a pause), each with the functions that held most of it; answers
 * the longest one's length and how many were over 50 ms.
 */
export function printBusyStretches(profile, sourceMap, top = 8) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (n) => {
    const f = n.callFrame;
    const entry = sourceMap && f.lineNumber >= 0 && f.url?.endsWith('index.js') ? sourceMap.map.findEntry(f.lineNumber, f.columnNumber) : null;
    const where = entry?.originalSource ? `${entry.originalSource.replace(/^.*\/(src|node_modules)\//, '$1/')}:${entry.originalLine + 1}` : '';
    return `${f.functionName || '(anonymous)'}${where ? ` ${where}` : ''}`;
  };
  // (program): the runtime's own work outside JavaScript, between the isolate's turns.
  const idle = (id) => /^\((idle|program)\)$/.test(nodes.get(id).callFrame.functionName);
  const stretches = [];
  let current = null;
  let idleRun = 0;
  let t = profile.startTime;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    t += dt;
    if (idle(id)) {
      idleRun += dt;
      if (current && idleRun > 2_000) stretches.push(current), (current = null);
      return;
    }
    idleRun = 0;
    current ??= { start: t, end: t, stacks: new Map() };
    current.end = t;
    // The innermost function of ours (src/), else the leaf: what the stretch spent its time in.
    let label = null;
    for (let at = id; at !== undefined && !label; at = parent.get(at)) {
      const text = name(nodes.get(at));
      if (/ src\//.test(text)) label = text;
    }
    label ??= name(nodes.get(id));
    current.stacks.set(label, (current.stacks.get(label) ?? 0) + dt);
  });
  if (current) stretches.push(current);
  const longestFirst = stretches.sort((a, b) => (b.end - b.start) - (a.end - a.start)).slice(0, top);
  const over = stretches.filter((s) => s.end - s.start > 50_000).length;
  console.log(`\nthe isolate's longest stretches of JavaScript without a pause (CPU profile, 0.5 ms samples; ${over} over 50 ms):`);
  // The profile's clock (µs, monotonic) and performance.now() differ by an offset: show times within the profile.
  for (const s of longestFirst) {
    const busiest = [...s.stacks].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([fn, us]) => `${fn} ${(us / 1000).toFixed(0)} ms`).join('; ');
    console.log(`  ${((s.end - s.start) / 1000).toFixed(0).padStart(6)} ms at ${((s.start - profile.startTime) / 1e6).toFixed(1)} s: ${busiest}`);
  }
  return { longestMs: longestFirst.length ? (longestFirst[0].end - longestFirst[0].start) / 1000 : 0, over50: over };
}

/**
 * Functions by the size of what they allocated that a sampling heap profile kept, named through the
 * source map when given (bench:analysis, bench:render with HEAP_PROFILE=1).
 */
export function printHeapProfile(what, profile, sourceMap, top = 30) {
  const file = join(tmpdir(), `bench-${Date.now()}.heapprofile`);
  writeFileSync(file, JSON.stringify(profile));
  const self = new Map();
  const inclusive = new Map();
  let total = 0;
  const name = (f) => {
    const entry = sourceMap && f.url && f.url.split('/').pop() === sourceMap.url.split('/').pop() && f.lineNumber >= 0 ? sourceMap.map.findEntry(f.lineNumber, f.columnNumber) : null;
    const where = entry?.originalSource ? `${entry.originalSource.replace(/^.*\/(src|node_modules)\//, '$1/')}:${entry.originalLine + 1}` : f.url ? `${f.url.split('/').pop()}:${f.lineNumber + 1}` : '';
    return `${f.functionName || '(anonymous)'}${where ? ` ${where}` : ''}`;
  };
  const walk = (node, path) => {
    const label = name(node.callFrame);
    total += node.selfSize;
    self.set(label, (self.get(label) ?? 0) + node.selfSize);
    const here = new Set(path).add(label);
    let sum = node.selfSize;
    for (const child of node.children ?? []) sum += walk(child, here);
    if (!path.has(label)) inclusive.set(label, (inclusive.get(label) ?? 0) + sum);
    return sum;
  };
  walk(profile.head, new Set());
  const mib = (b) => `${(b / 2 ** 20).toFixed(1).padStart(7)} MiB`;
  console.log(`\nsampling heap profile, ${what}: ${(total / 2 ** 20).toFixed(1)} MiB sampled (${file}); allocated and kept past a scavenge, by function`);
  console.log(`  self, top ${top}:`);
  for (const [label, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${mib(v)}  ${label}`);
  console.log(`  inclusive, the service's own functions, top ${top}:`);
  for (const [label, v] of [...inclusive].filter(([l]) => / src\//.test(l)).sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${mib(v)}  ${label}`);
}

/**
 * Follows a project's job stream (`P/v1/job/stream`), calling `onJob` with each event's job; `stop()`
 * closes it. Shared by bench:busy (counting updates) and bench:dashboard (when a job first appears).
 */
export function followJobStream(url, session, onJob) {
  const controller = new AbortController();
  fetch(url, { headers: { authorization: `Bearer ${session}`, accept: 'text/event-stream' }, signal: controller.signal })
    .then(async (res) => {
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk, { stream: true });
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const data = buffer.slice(0, end).split('\n').find((l) => l.startsWith('data: '));
          buffer = buffer.slice(end + 2);
          if (data) onJob(JSON.parse(data.slice(6)));
        }
      }
    })
    .catch(() => undefined);
  return { stop: () => controller.abort() };
}

// Shared by the benches that drive `wrangler dev`: a service of their own with fresh local state and
// the demo tenant, a large generated SBOM, an upload pass, the CLI run with --json, waiting for a condition.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devCall, ensureDevVars, root, startWranglerDev, waitForService, wrangler } from '../scripts/local.mjs';

/**
 * `wrangler dev` on `port` with fresh local state in a temporary folder, the demo tenant seeded and its
 * project set up: answers where it is (`base`, the project's path `P`), an admin `session`, and `stop()`.
 * With `group`, wrangler and workerd form a process group (see startWranglerDev) that `restart()` stops.
 */
export async function benchService(port, name, { group = false } = {}) {
  const work = await mkdtemp(join(tmpdir(), `posture-bench-${name}-`));
  const state = join(work, 'state');
  const base = `http://127.0.0.1:${port}`;
  ensureDevVars();
  await wrangler(['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', state]);
  const service = {
    base, work, server: startWranglerDev({ port, persistTo: state, group, inherit: process.env.BENCH_LOGS === "1" }),
    /** Stops the whole server as Ctrl-C would, then starts it again on the same state. */
    async restart() {
      process.kill(-service.server.pid, 'SIGINT');
      await once(service.server, 'exit');
      const stoppedAt = performance.now();
      service.server = startWranglerDev({ port, persistTo: state, group });
      return stoppedAt;
    },
    async stop() {
      try {
        if (group) process.kill(-service.server.pid, 'SIGTERM');
        else service.server.kill('SIGTERM');
      } catch {
        // already gone
      }
      await rm(work, { recursive: true, force: true });
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

/** A CycloneDX 1.6 SBOM of `count` npm packages (about 135 bytes each), written as a stream. */
export async function generateSbom(file, count, subject) {
  const out = createWriteStream(file);
  const write = async (text) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(`{"bomFormat":"CycloneDX","specVersion":"1.6","version":1,"metadata":{"component":{"type":"application","name":"${subject}"}},"components":[`);
  for (let i = 0; i < count; i++) {
    const name = `package-${i.toString(36)}`;
    const version = `${i % 7}.${i % 13}.${i % 17}`;
    const purl = `pkg:npm/${name}@${version}`;
    await write(`${i ? ',' : ''}{"type":"library","bom-ref":"${purl}","name":"${name}","version":"${version}","purl":"${purl}"}`);
  }
  await write(']}');
  out.end();
  await once(out, 'close');
  return file;
}

export async function createPass(P, session) {
  const res = await fetch(`${P}/credential/spice-pass`, {
    method: 'POST', headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' }, body: '{}',
  });
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

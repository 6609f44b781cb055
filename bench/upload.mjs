// `npm run bench:upload`: the CLI uploading a 64 MiB and a 512 MiB bundle to `wrangler dev`, beside
// the local storage ceiling measured in the same run (the same bytes written to local R2 by one plain
// `put` through a bare route), the Worker's memory while each upload runs (workerd's resident size:
// flat means hashing and parts are streamed), and the time from `complete` to survey COMPLETED for
// the largest SBOM in the fixtures.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { once } from 'node:events';
import { join } from 'node:path';
import { readDevVars, root } from '../scripts/local.mjs';
import { benchService, createPass } from './harness.mjs';

const PORT = Number(process.env.BENCH_PORT || 8796);
const BASE = `http://127.0.0.1:${PORT}`;
const MiB = 1024 * 1024;
const SIZES = (process.env.BENCH_SIZES_MIB || '64,512').split(',').map(Number);
const LARGEST_SBOM = join(root, 'test/fixtures/sbom/deb__pop-os-22.04-host.cdx-1.4.json');

const service = await benchService(PORT, 'upload');
const { work, session, projectId } = service;
const demo = { projectId };

try {
  const pass = await createPass(service.P, session);

  const rows = [];
  for (const mib of SIZES) {
    const file = await randomFile(join(work, `bundle-${mib}.bin`), mib);
    const ceiling = await storageCeiling(file);
    const memory = sampleWorkerMemory();
    const started = performance.now();
    const run = await cli(['upload', file, '--api', BASE, '--project', demo.projectId, '--json'], pass);
    const seconds = (performance.now() - started) / 1000;
    const peak = memory.stop();
    if (run.code !== 0) throw new Error(`the CLI failed: ${run.stderr}`);
    const { survey = 0, sent = seconds, completed = seconds } = run.at;
    rows.push({
      mib, cliMBps: (mib * MiB) / 1e6 / seconds, ceilingMBps: ceiling, peakRssMiB: peak.peak / MiB, baseRssMiB: peak.base / MiB,
      hashSeconds: survey, partsMBps: (mib * MiB) / 1e6 / (sent - survey), completeSeconds: completed - sent,
    });
    await rm(file);
  }

  const analysis = await timeToCompleted(demo.projectId, pass, session);
  report(rows, analysis);
} finally {
  await service.stop();
}

async function randomFile(file, mib) {
  const out = createWriteStream(file);
  for (let i = 0; i < mib; i++) if (!out.write(randomBytes(MiB))) await once(out, 'drain');
  out.end();
  await once(out, 'close');
  return file;
}

/** MB/s of one plain R2 `put` of the file's bytes through the bare development route. */
async function storageCeiling(file) {
  const size = statSync(file).size;
  const started = performance.now();
  const res = await fetch(`${BASE}/api/v1/dev/storage-ceiling`, {
    method: 'PUT', duplex: 'half', body: createReadStream(file),
    headers: { 'content-length': String(size), 'content-type': 'application/octet-stream', 'x-dev-secret': readDevVars().DEV_SECRET },
  });
  if (!res.ok) throw new Error(`storage ceiling: ${res.status} ${await res.text()}`);
  return size / 1e6 / ((performance.now() - started) / 1000);
}

/** Samples the resident size of the workerd processes every 100 ms until stopped. */
function sampleWorkerMemory() {
  const read = () => {
    try {
      const out = execFileSync('ps', ['-C', 'workerd', '-o', 'rss='], { encoding: 'utf8' });
      return out.split('\n').filter(Boolean).reduce((sum, kb) => sum + Number(kb) * 1024, 0);
    } catch {
      return 0;
    }
  };
  const base = read();
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, read())), 100);
  return { stop: () => (clearInterval(timer), { base, peak }) };
}

function cli(args, pass) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, 'cli/posture.mjs'), ...args], { env: { PATH: process.env.PATH, POSTURE_PASS: pass }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    // When each JSON event arrived: the phases of the upload (hash and start, parts, complete).
    const at = {};
    const started = performance.now();
    child.stdout.on('data', (d) => {
      stdout += d;
      for (const line of String(d).split('\n').filter(Boolean)) {
        try {
          const event = JSON.parse(line);
          const key = event.event === 'progress' && event.bytes === event.total ? 'sent' : event.event;
          at[key] ??= (performance.now() - started) / 1000;
        } catch {
          // a partial line; the whole output is parsed at the end
        }
      }
    });
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr, at, lines: () => stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)) }));
  });
}

/**
 * Seconds from `complete` (the upload step finishing) to the survey COMPLETED, for the largest SBOM,
 * from the service's own timestamps.
 */
async function timeToCompleted(projectId, pass, session) {
  // This host SBOM names no metadata.component: the subject comes from --target.
  const run = await cli(['upload', LARGEST_SBOM, '--api', BASE, '--project', projectId, '--json', '--wait', '--target', 'pop-os-22.04'], pass);
  if (run.code !== 0) throw new Error(`the analysis run failed: ${run.stderr}`);
  const surveyId = run.lines().find((l) => l.event === 'survey').surveyId;
  const res = await fetch(`${BASE}/api/v1/project/${projectId}/v1/job/${surveyId}`, { headers: { authorization: `Bearer ${session}` } });
  const job = await res.json();
  const upload = job.steps.find((s) => s.step_label === 'upload');
  return { bytes: statSync(LARGEST_SBOM).size, seconds: (Date.parse(job.finished_at) - Date.parse(upload.finished_at)) / 1000, status: job.status };
}

function report(rows, analysis) {
  console.log(`\nUpload benchmark: the CLI (4 parts in parallel, 16 MiB parts) against wrangler dev on ${BASE}\n`);
  console.log('bundle'.padEnd(10), 'CLI MB/s'.padStart(9), 'ceiling'.padStart(9), '% ceil'.padStart(7), '| hash+start s'.padStart(14), 'parts MB/s'.padStart(11), 'complete s'.padStart(11), '| workerd RSS MiB'.padStart(18));
  for (const r of rows) {
    console.log(`${r.mib} MiB`.padEnd(10), r.cliMBps.toFixed(1).padStart(9), r.ceilingMBps.toFixed(1).padStart(9), `${((r.cliMBps / r.ceilingMBps) * 100).toFixed(0)}%`.padStart(7),
      r.hashSeconds.toFixed(1).padStart(14), r.partsMBps.toFixed(1).padStart(11), r.completeSeconds.toFixed(1).padStart(11),
      `${r.peakRssMiB.toFixed(0)} (from ${r.baseRssMiB.toFixed(0)})`.padStart(18));
  }
  console.log('(complete = assembling the parts and verifying the SHA-256 by reading the whole object back from R2)');
  console.log(`\nLargest SBOM (${(analysis.bytes / MiB).toFixed(1)} MiB): complete -> survey ${analysis.status} in ${analysis.seconds.toFixed(2)} s`);
  const ok = rows.every((r) => r.cliMBps >= 0.8 * r.ceilingMBps);
  console.log(`Target (CLI >= 80% of the storage ceiling): ${ok ? 'met' : 'NOT met'}`);
}

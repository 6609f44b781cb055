// npm run bench:analysis — how long a survey takes from upload complete to COMPLETED (analysis, findings
// and all its reports) for every fixture SBOM and CBOM, a synthetic 20,000-component SBOM that hits the
// starter OSV set at about 5%, and a synthetic 2,000-asset CBOM; beside the floor measured in the same
// runtime (JSON.parse of the same file plus one bulk insert of its rows into the project's SQLite).
// Then the latency of report reads on the 20,000-component report beside the bare route, and (unless
// BIG=0) a 200 MB SBOM analysed while the workerd processes' memory is sampled.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchService, cli, createPass, generateSbom, until } from './harness.mjs';
import { readDevVars, root } from '../scripts/local.mjs';

const PORT = Number(process.env.BENCH_PORT ?? 8795);
const READS = Number(process.env.READS ?? 200);
const BIG = process.env.BIG !== '0';

const service = await benchService(PORT, 'analysis');
try {
  execFileSync(process.execPath, [join(root, 'scripts/vulndb-import.mjs'), join(root, 'vulndb/starter'), '--persist-to', join(service.work, 'state'), '--quiet'], { stdio: 'inherit' });
  const pass = await createPass(service.P, service.session);
  const headers = { authorization: `Bearer ${service.session}` };
  const getJob = async (id) => (await fetch(`${service.P}/v1/job/${id}`, { headers })).json();

  const files = [
    ...listJson(join(root, 'test/fixtures/sbom')), ...listJson(join(root, 'test/fixtures/cbom')),
    await syntheticSbom(join(service.work, 'synthetic-20000.cdx.json'), 20_000),
    syntheticCbom(join(service.work, 'synthetic-2000-assets.cbom.json'), 2_000),
  ];
  const only = process.env.ONLY ? new RegExp(process.env.ONLY) : null; // ONLY=synthetic runs a subset
  const rows = [];
  let big20k = null;
  for (const file of files.filter((f) => !only || only.test(f))) {
    const { surveyId } = await cli(['upload', file, '--api', service.base, '--project', service.projectId, '--target', `bench-${rows.length}`, '--wait', '--timeout', '600'], pass);
    const job = await until(async () => { const j = await getJob(surveyId); return ['COMPLETED', 'FAILED'].includes(j.status) && j; }, 'the survey did not finish', 600_000);
    const upload = job.steps.find((s) => s.step_type === 'UPLOAD');
    const stored = job.steps.find((s) => s.step_type === 'ANALYZE').metadata.stored ?? {};
    const items = (stored.components ?? 0) + (stored.cryptoAssets ?? 0);
    const ms = Date.parse(job.finished_at) - Date.parse(upload.finished_at);
    const floor = await analysisFloor(service, file);
    rows.push({ file: file.split('/').pop(), status: job.status, items, ms, floorMs: floor.parseMs + floor.insertMs, steps: stepTimes(job, upload) });
    if (file.includes('synthetic-20000')) big20k = job;
  }
  printRuns(rows);
  if (big20k) await printReads(service, headers, big20k);
  if (BIG) await bigSbom(service, pass, getJob);
} finally {
  await service.stop();
}

/** Where the time went: each step's start and end, in ms after the upload completed. */
function stepTimes(job, upload) {
  const at = (t) => (t ? Date.parse(t) - Date.parse(upload.finished_at) : '-');
  return job.steps.filter((s) => s !== upload).map((s) => `${s.step_label ?? s.step_type.toLowerCase()} ${at(s.started_at)}..${at(s.finished_at)}`).join(', ');
}

function listJson(dir) {
  return readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => join(dir, f));
}

/** `count` Maven and npm packages; about 5% are versions that records of the starter set affect. */
async function syntheticSbom(file, count) {
  const vulnerable = starterHits();
  const components = [];
  for (let i = 0; i < count; i++) {
    if (i % 20 === 0 && vulnerable.length) {
      const hit = vulnerable[(i / 20) % vulnerable.length];
      components.push({ type: 'library', 'bom-ref': `hit-${i}`, name: hit.name, version: hit.version, purl: hit.purl });
    } else {
      const name = `package-${i.toString(36)}`;
      const version = `${i % 7}.${i % 13}.${i % 17}`;
      components.push({ type: 'library', 'bom-ref': `pkg-${i}`, name, version, purl: `pkg:npm/${name}@${version}` });
    }
  }
  writeFileSync(file, JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, metadata: { component: { type: 'application', name: 'synthetic-20000' } }, components }));
  return file;
}

/** Packages and affected versions named by the starter set's records (their explicit `versions` lists). */
function starterHits() {
  const dir = join(root, 'vulndb/starter');
  const hits = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
    const record = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    for (const affected of record.affected ?? []) {
      const { ecosystem, name } = affected.package ?? {};
      const version = affected.versions?.[0];
      if (!version) continue;
      if (ecosystem === 'npm') hits.push({ name, version, purl: `pkg:npm/${name.replace('@', '%40')}@${version}` });
      if (ecosystem === 'Maven' && name.includes(':')) {
        const [group, artifact] = name.split(':');
        hits.push({ name: artifact, version, purl: `pkg:maven/${group}/${artifact}@${version}` });
      }
    }
  }
  return hits;
}

/** A CBOM of `count` algorithm assets cycling through names from every section. */
function syntheticCbom(file, count) {
  const names = ['RSA-2048', 'SHA-1', 'MD5', 'AES-128-GCM', 'AES-256-GCM', 'SHA-256', 'ML-KEM-768', 'ML-DSA-65', 'X25519MLKEM768', 'ECDSA-P256', 'SHA-224', '3DES', 'ChaCha20-Poly1305', 'Camellia-128', 'HMAC-SHA1', 'SomethingNew-1'];
  const components = Array.from({ length: count }, (_, i) => ({
    type: 'cryptographic-asset', 'bom-ref': `asset-${i}`, name: names[i % names.length],
    cryptoProperties: { assetType: 'algorithm', algorithmProperties: { primitive: 'other' } },
    evidence: { occurrences: [{ location: `src/file-${i}.java`, line: i % 400 }] },
  }));
  writeFileSync(file, JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, metadata: { component: { type: 'application', name: 'synthetic-cbom' } }, components }));
  return file;
}

async function analysisFloor(svc, file) {
  const res = await fetch(`${svc.base}/api/v1/dev/analysis-floor?projectId=${svc.projectId}`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-dev-secret': readDevVars().DEV_SECRET }, body: readFileSync(file),
  });
  if (!res.ok) throw new Error(`analysis floor: ${res.status} ${await res.text()}`);
  return res.json();
}

function printRuns(rows) {
  console.log('\nbench:analysis: from upload complete to survey COMPLETED (analysis, findings, three reports), server timestamps\n');
  console.log('| bundle | status | items | end to end ms | ms per item | floor ms | x floor |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const per = r.items ? (r.ms / r.items).toFixed(3) : '-';
    console.log(`| ${r.file} | ${r.status} | ${r.items} | ${r.ms} | ${per} | ${r.floorMs.toFixed(1)} | ${(r.ms / Math.max(1, r.floorMs)).toFixed(1)} |`);
  }
  const large = rows.filter((r) => r.items >= 1000);
  console.log('\nsteps of bundles with 1,000+ items (ms after upload complete):');
  for (const r of large) console.log(`- ${r.file}: ${r.steps}`);
  const perItem = large.map((r) => r.ms / r.items);
  console.log(`\nTargets on bundles of 1,000+ items: at most 0.25 ms per item (worst ${Math.max(...perItem).toFixed(3)}), at most 5x the floor (worst ${Math.max(...large.map((r) => r.ms / Math.max(1, r.floorMs))).toFixed(1)}x)`);
}

async function latency(url, headers) {
  const times = [];
  for (let i = 0; i < READS; i++) {
    const started = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${url}: ${res.status}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  return { p50: at(0.5), p99: at(0.99) };
}

async function printReads(svc, headers, job) {
  const report = job.steps.find((s) => s.step_label === 'composition').id;
  const R = `${svc.P}/v1/report/${report}`;
  const reads = [
    ['bare route (GET /api/v1/health)', `${svc.base}/api/v1/health`, {}],
    ['summary', `${R}/summary`, headers],
    ['section ?limit=1000 (unknown)', `${R}/section/unknown?limit=1000`, headers],
    ['search "package-1"', `${R}/search?query=package-1`, headers],
  ];
  console.log(`\nreads of the 20,000-component composition report, ${READS} sequential each\n`);
  console.log('| read | p50 ms | p99 ms | p99 x bare |');
  console.log('|---|---|---|---|');
  let bare = null;
  for (const [name, url, h] of reads) {
    const r = await latency(url, h);
    bare ??= r;
    console.log(`| ${name} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${(r.p99 / bare.p99).toFixed(2)} |`);
  }
}

function workerdRss() {
  try {
    return execFileSync('ps', ['-C', 'workerd', '-o', 'rss='], { encoding: 'utf8' }).split('\n').filter(Boolean).reduce((s, kb) => s + Number(kb) * 1024, 0);
  } catch {
    return 0;
  }
}

async function bigSbom(svc, pass, getJob) {
  const file = await generateSbom(join(svc.work, 'big.cdx.json'), 1_500_000, 'big-sbom');
  const size = statSync(file).size;
  const base = workerdRss();
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, workerdRss())), 200);
  const started = performance.now();
  const { surveyId } = await cli(['upload', file, '--api', svc.base, '--project', svc.projectId, '--wait', '--timeout', '3600'], pass);
  const job = await until(async () => { const j = await getJob(surveyId); return ['COMPLETED', 'FAILED'].includes(j.status) && j; }, 'the big survey did not finish', 3_600_000, 1000);
  clearInterval(timer);
  const mib = (b) => (b / 2 ** 20).toFixed(0);
  console.log(`\n${(size / 1e6).toFixed(0)} MB SBOM (1,500,000 components): survey ${job.status} in ${((performance.now() - started) / 1000).toFixed(0)} s; workerd RSS ${mib(base)} MiB before, ${mib(peak)} MiB at peak (+${mib(peak - base)} MiB)`);
}

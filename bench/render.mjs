// npm run bench:render — render time and the isolate's peak heap per document format for synthetic
// reports of 1,000, 5,000 and 20,000 entries, rendered in workerd (wrangler dev) by the renderers the
// render queue uses (through the local-only route POST /api/v1/dev/render-sample); then the deployed
// Worker's size as `wrangler deploy --dry-run` reports it. Two kinds of report: `plain` (laid out as
// plain tables) and `pqc` (stored-like pqc-inventory entries laid out as the render queue does, grouped
// by algorithm and verdict). SIZES=1000,5000 and KINDS=plain narrow the run (SIZES=none skips it).
// STORED=200000,1000000 then renders synthetic stored reports of that many entries the way the render
// queue does (entries read page by page from the project object, the document written to R2; seeded
// through POST /api/v1/dev/render-stored/seed) and prints the isolate's peak of V8 heap used plus
// ArrayBuffer backing stores per format against issue 22's memory target (under 96 MiB, and within
// 40 MiB of the baseline).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { benchService, heapAfterGc, inspectWorker, printHeapProfile } from './harness.mjs';
import { readDevVars, root } from '../scripts/local.mjs';

const PORT = Number(process.env.BENCH_PORT ?? 8796);
const SIZES = process.env.SIZES === 'none' ? [] : (process.env.SIZES ?? '1000,5000,20000').split(',').map(Number);
const STORED = (process.env.STORED ?? '').split(',').filter(Boolean).map(Number);
const STORED_FORMATS = (process.env.STORED_FORMATS ?? ['pdf', 'xlsx', 'pptx', 'html', 'csv'].join(',')).split(',');
const FORMATS = ['pdf', 'xlsx', 'pptx', 'html', 'csv'];
const KINDS = (process.env.KINDS ?? 'plain,pqc').split(',');
const RUNS = Number(process.env.RUNS ?? 3);
// HEAP_PROFILE=1: with STORED, lists the functions whose allocations during each stored render outlived a scavenge.
const HEAP_PROFILE = process.env.HEAP_PROFILE === '1';

const INSPECTOR_PORT = Number(process.env.BENCH_INSPECTOR_PORT ?? PORT + 100);
const service = await benchService(PORT, 'render', { inspectorPort: INSPECTOR_PORT });
const inspector = await inspectWorker(INSPECTOR_PORT);
const heap = {
  used: async () => (await inspector.call('Runtime.getHeapUsage')).usedSize,
  /** A full collection, so that "before" is the live heap, not the previous render's garbage. */
  collect: () => heapAfterGc(service, inspector),
  /** Samples the heap every `everyMs` until stopped; answers the largest figure seen. */
  watchPeak(everyMs) {
    let peak = 0;
    let running = true;
    const loop = (async () => {
      while (running) {
        peak = Math.max(peak, await heap.used().catch(() => 0));
        await new Promise((r) => setTimeout(r, everyMs));
      }
    })();
    return { stop: async () => { running = false; await loop; return Math.max(peak, await heap.used()); } };
  },
  /** As watchPeak, of the heap used plus the ArrayBuffer backing stores beside it (as bench:analysis samples them). */
  watchPeakSum(everyMs) {
    let peak = 0;
    let peakUsed = 0;
    let peakBacking = 0;
    let running = true;
    const sample = async () => {
      const h = await inspector.call('Runtime.getHeapUsage').catch(() => null);
      if (!h) return;
      peak = Math.max(peak, h.usedSize + (h.backingStorageSize ?? 0));
      peakUsed = Math.max(peakUsed, h.usedSize);
      peakBacking = Math.max(peakBacking, h.backingStorageSize ?? 0);
    };
    const loop = (async () => {
      while (running) {
        await sample();
        await new Promise((r) => setTimeout(r, everyMs));
      }
    })();
    return { stop: async () => { running = false; await loop; await sample(); return { peak, peakUsed, peakBacking }; } };
  },
};
try {
  const mib = (b) => (b / 2 ** 20).toFixed(1);
  console.log(`\nbench:render: synthetic reports rendered in workerd, best of ${RUNS} runs; heap = the Worker isolate's V8 heap through the inspector`);
  console.log('(a full GC before each render; the peak is the largest of samples every 20 ms, which the inspector answers only');
  console.log('between the isolate\'s turns, and of the heap right after the render, its garbage not yet collected)\n');
  if (SIZES.length) {
    console.log('| kind | entries | format | render ms | document | isolate heap before | peak | peak - before |');
    console.log('|---|---|---|---|---|---|---|---|');
  }
  if (SIZES.length) for (const kind of KINDS) for (const entries of SIZES) {
    for (const format of FORMATS) {
      let best = null;
      for (let run = 0; run < RUNS; run++) {
        const before = (await heap.collect()).usedSize;
        const watch = heap.watchPeak(20);
        const res = await fetch(`${service.base}/api/v1/dev/render-sample?format=${format}&entries=${entries}&kind=${kind}`, { method: 'POST', headers: { 'x-dev-secret': readDevVars().DEV_SECRET } });
        const peak = await watch.stop();
        if (!res.ok) throw new Error(`${format} ${entries}: ${res.status} ${await res.text()}`);
        const { ms, bytes } = await res.json();
        if (!best || ms < best.ms) best = { ms, bytes, before, peak: Math.max(peak, before) };
      }
      const size = best.bytes > 2 ** 20 ? `${mib(best.bytes)} MiB` : `${(best.bytes / 1024).toFixed(0)} KiB`;
      console.log(`| ${kind} | ${entries} | ${format} | ${best.ms.toFixed(0)} | ${size} | ${mib(best.before)} MiB | ${mib(best.peak)} MiB | ${mib(best.peak - best.before)} MiB |`);
    }
  }
  if (STORED.length) await storedReports(mib);
} finally {
  inspector.close();
  await service.stop();
}

/** Renders synthetic stored reports as the render queue does and prints each format's peak against the memory target. */
async function storedReports(mib) {
  const dev = async (path) => {
    const res = await fetch(`${service.base}${path}`, { method: 'POST', headers: { 'x-dev-secret': readDevVars().DEV_SECRET } });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  console.log('\nStored reports rendered as the render queue renders them (entries read page by page from the project object, the document written to R2);');
  console.log('peak = the largest of V8 heap used + ArrayBuffer backing stores, sampled every 20 ms; baseline = the same after a full GC before the render.');
  console.log('Target (issue 22): the peak under 96 MiB and within 40 MiB of the baseline.\n');
  console.log('| entries | format | render s | document | baseline | peak | peak - baseline | target | peak heap used | peak backing stores |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  const missed = [];
  for (const entries of STORED) {
    const seedStarted = performance.now();
    for (let from = 0; from < entries; from += 25_000) await dev(`/api/v1/dev/render-stored/seed?projectId=${service.projectId}&entries=${entries}&from=${from}&count=25000`);
    console.error(`seeded ${entries} entries in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);
    for (const format of STORED_FORMATS) {
      const before = await heap.collect();
      const baseline = before.usedSize + (before.backingStorageSize ?? 0);
      const watch = heap.watchPeakSum(20);
      if (HEAP_PROFILE) await inspector.call('HeapProfiler.startSampling', { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false });
      let answer;
      try {
        answer = await dev(`/api/v1/dev/render-stored?projectId=${service.projectId}&entries=${entries}&format=${format}`);
      } catch (error) {
        answer = { error: error.message.slice(0, 120) };
      }
      const seen = await watch.stop();
      if (HEAP_PROFILE) printHeapProfile(`the render of ${entries} entries as ${format}`, (await inspector.call('HeapProfiler.stopSampling', {}, { timeoutMs: 120_000 })).profile, null, 15);
      const peak = Math.max(seen.peak, baseline);
      const met = !answer.error && peak < 96 * 2 ** 20 && peak - baseline <= 40 * 2 ** 20;
      if (!met) missed.push(`${entries} ${format}`);
      const size = answer.error ? answer.error : answer.bytes > 2 ** 20 ? `${mib(answer.bytes)} MiB` : `${(answer.bytes / 1024).toFixed(0)} KiB`;
      console.log(`| ${entries} | ${format} | ${answer.error ? '-' : (answer.ms / 1000).toFixed(1)} | ${size} | ${mib(baseline)} MiB | ${mib(peak)} MiB | ${mib(peak - baseline)} MiB | ${met ? 'met' : 'MISSED'} | ${mib(seen.peakUsed)} MiB | ${mib(seen.peakBacking)} MiB |`);
    }
  }
  console.log(`\nMemory target during the renderings: ${missed.length ? `missed for ${missed.join(', ')}` : 'met for every size and format'}.`);
}

if (!SIZES.length) process.exit(0);
const out = join(service.work, 'dry-run');
const report = execFileSync(process.execPath, [join(root, 'node_modules/wrangler/bin/wrangler.js'), 'deploy', '--dry-run', '--outdir', out], { cwd: root, encoding: 'utf8' });
const size = report.split('\n').find((line) => line.includes('Total Upload'));
console.log(`\nDeployed Worker (wrangler deploy --dry-run): ${size?.trim() ?? report}; the limit on the paid plan is 10 MiB gzipped, the target here 3 MiB.`);

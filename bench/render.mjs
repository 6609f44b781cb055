// npm run bench:render — render time and the isolate's peak heap per document format for synthetic
// reports of 1,000, 5,000 and 20,000 entries, rendered in workerd (wrangler dev) by the renderers the
// render queue uses (through the local-only route POST /api/v1/dev/render-sample); then the deployed
// Worker's size as `wrangler deploy --dry-run` reports it. Two kinds of report: `plain` (laid out as
// plain tables) and `pqc` (stored-like pqc-inventory entries laid out as the render queue does, grouped
// by algorithm and verdict). SIZES=1000,5000 and KINDS=plain narrow the run.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { benchService, heapAfterGc, inspectWorker } from './harness.mjs';
import { readDevVars, root } from '../scripts/local.mjs';

const PORT = Number(process.env.BENCH_PORT ?? 8796);
const SIZES = (process.env.SIZES ?? '1000,5000,20000').split(',').map(Number);
const FORMATS = ['pdf', 'xlsx', 'pptx', 'html', 'csv'];
const KINDS = (process.env.KINDS ?? 'plain,pqc').split(',');
const RUNS = Number(process.env.RUNS ?? 3);

const service = await benchService(PORT, 'render', { inspectorPort: PORT + 100 });
const inspector = await inspectWorker(PORT + 100);
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
};
try {
  const mib = (b) => (b / 2 ** 20).toFixed(1);
  console.log(`\nbench:render: synthetic reports rendered in workerd, best of ${RUNS} runs; heap = the Worker isolate's V8 heap through the inspector`);
  console.log('(a full GC before each render; the peak is the largest of samples every 20 ms, which the inspector answers only');
  console.log('between the isolate\'s turns, and of the heap right after the render, its garbage not yet collected)\n');
  console.log('| kind | entries | format | render ms | document | isolate heap before | peak | peak - before |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const kind of KINDS) for (const entries of SIZES) {
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
} finally {
  inspector.close();
  await service.stop();
}

const out = join(service.work, 'dry-run');
const report = execFileSync(process.execPath, [join(root, 'node_modules/wrangler/bin/wrangler.js'), 'deploy', '--dry-run', '--outdir', out], { cwd: root, encoding: 'utf8' });
const size = report.split('\n').find((line) => line.includes('Total Upload'));
console.log(`\nDeployed Worker (wrangler deploy --dry-run): ${size?.trim() ?? report}; the limit on the paid plan is 10 MiB gzipped, the target here 3 MiB.`);

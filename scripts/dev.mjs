// `npm run dev`: the API on http://localhost:8787 (or $PORT) with local D1, R2, Queues and Durable
// Objects. Creates `.dev.vars` when missing, applies migrations, starts wrangler, seeds the demo tenant.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { devCall, ensureDevVars, localBase, root, startWranglerDev, waitForService, wrangler } from './local.mjs';

// Sample data for the demo project, uploaded once through the real client and pipeline.
const SAMPLES = [
  ['test/fixtures/sbom/npm__juice-shop-14.1.1.cdx-1.4.json', 'juice-shop'],
  ['test/fixtures/cbom/pkic-cbom__nginx-pass.cbom.json', 'nginx'],
  ['test/fixtures/cbom/ibm-cbomkit__kafka-cbom.json', 'kafka'],
  ['test/fixtures/sbom/maven__dependency-track-apiserver-4.5.0.cdx-1.4.json', 'dependency-track'],
  ['scripts/demo/payments-gateway.cbom.json', 'payments-gateway'],
];

const port = Number(process.env.PORT || 8787);
const base = localBase(port);

ensureDevVars();
console.error('Applying D1 migrations to the local database...');
await wrangler(['d1', 'migrations', 'apply', 'DB', '--local']);
// The starter vulnerability data, before the demo is seeded (its samples are matched against it).
// Incremental: on later starts only new or newer records are written.
console.error('Importing the starter vulnerability data (vulndb/starter)...');
const imported = await new Promise((resolve) => {
  const child = spawn(process.execPath, [join(root, 'scripts/vulndb-import.mjs'), join(root, 'vulndb/starter'), '--quiet'], { stdio: 'inherit' });
  child.on('exit', (code) => resolve(code === 0));
});
if (!imported) console.error('The starter vulnerability data could not be imported: the demo project will show no known vulnerabilities.');

const dev = startWranglerDev({ port, inherit: true });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => dev.kill(signal));
dev.on('exit', (code) => process.exit(code ?? 0));

try {
  await waitForService(base);
  const seeded = await devCall(base, '/api/v1/dev/seed');
  console.error(
    [
      '',
      `Posture service ready on http://localhost:${port}  (API reference: http://localhost:${port}/api/v1/docs)`,
      `Demo organization ${seeded.orgId}, demo project ${seeded.projectId}, admin ${seeded.adminEmail}${seeded.created ? ' (seeded now)' : ''}.`,
      // dev:session reads PORT too, so the hint names it when the port is not the default.
      `A session token for the admin:  ${port === 8787 ? '' : `PORT=${port} `}npm run -s dev:session`,
      '',
    ].join('\n'),
  );
  await uploadSamples(seeded.projectId);
} catch (error) {
  console.error(String(error.message ?? error));
}

/** Uploads the sample bundles into the demo project when it has no survey yet. */
async function uploadSamples(projectId) {
  const { jwt: session } = await devCall(base, '/api/v1/dev/session');
  const call = (method, path, body) => fetch(`${base}/api/v1/project/${projectId}${path}`, {
    method, headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' }, body: body && JSON.stringify(body),
  });
  let jobs;
  for (let attempt = 0; attempt < 50; attempt++) {
    jobs = await call('GET', '/v1/job?topLevel=true&jobType=INVENTORY_SURVEY,RUNTIME_SURVEY&limit=1');
    if (jobs.status !== 503) break; // the project's storage is being set up
    await new Promise((r) => setTimeout(r, 200));
  }
  if (!jobs.ok || (await jobs.json()).pagination.total > 0) return;
  const pass = (await (await call('POST', '/credential/spice-pass', { duration_days: 1, name: 'Demo data' })).json()).jwt;
  for (const [file, target] of SAMPLES) {
    const code = await new Promise((resolve) => {
      const cli = spawn(process.execPath, [join(root, 'cli/posture.mjs'), 'upload', join(root, file), '--api', base, '--project', projectId, '--target', target, '--tag', 'demo', '--wait', '--json'], {
        env: { ...process.env, POSTURE_PASS: pass }, stdio: 'ignore',
      });
      cli.on('close', resolve);
    });
    console.error(`Demo data: ${target} ${code === 0 ? 'analysed' : 'failed to upload'}.`);
  }
}

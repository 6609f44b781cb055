// `npm run dev`: the API on http://localhost:8787 (or $PORT) with local D1, R2, Queues and Durable
// Objects. Creates `.dev.vars` when missing, applies migrations, starts wrangler, seeds the demo tenant.
import { devCall, ensureDevVars, localBase, startWranglerDev, waitForService, wrangler } from './local.mjs';

const port = Number(process.env.PORT || 8787);
const base = localBase(port);

ensureDevVars();
console.error('Applying D1 migrations to the local database...');
await wrangler(['d1', 'migrations', 'apply', 'DB', '--local']);

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
      'A session token for the admin:  npm run -s dev:session',
      '',
    ].join('\n'),
  );
} catch (error) {
  console.error(String(error.message ?? error));
}

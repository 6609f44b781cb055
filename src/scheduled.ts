// Cron triggers (wrangler.toml [triggers]): the daily retention purge. Later issues add portfolio
// snapshots to the same schedule. The vulnerability data refresh runs when VULNDB_SOURCE_URL is set.
import { bumpAccessEpoch } from './auth/access-cache';
import { purgeExpiredProjects } from './control/projects';
import type { Env } from './env';
import { refreshVulnerabilityData } from './vulndb/refresh';

export async function runScheduled(controller: ScheduledController, env: Env): Promise<void> {
  const purged = await purgeExpiredProjects(env.DB, new Date(controller.scheduledTime));
  await Promise.all(purged.touchedOrgIds.map((orgId) => bumpAccessEpoch(env, orgId)));
  console.log(JSON.stringify({ level: 'info', message: 'retention purge', cron: controller.cron, projects: purged.projectIds.length, organizations: purged.organizationIds.length }));
  await refreshVulnerabilityData(env);
}

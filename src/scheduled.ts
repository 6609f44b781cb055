// Cron triggers (wrangler.toml [triggers]): the daily retention purge, then the vulnerability data
// refresh (when VULNDB_SOURCE_URL is set; it logs its failures and never throws). Later issues add
// portfolio snapshots to the same schedule.
import { bumpAccessEpoch } from './auth/access-cache';
import { purgeExpiredProjects } from './control/projects';
import type { Env } from './env';
import { refreshVulnerabilityData } from './vulndb/refresh';

export async function runScheduled(controller: ScheduledController, env: Env): Promise<void> {
  let failure: unknown = null;
  try {
    const purged = await purgeExpiredProjects(env.DB, new Date(controller.scheduledTime));
    await Promise.all(purged.touchedOrgIds.map((orgId) => bumpAccessEpoch(env, orgId)));
    console.log(JSON.stringify({ level: 'info', message: 'retention purge', cron: controller.cron, projects: purged.projectIds.length, organizations: purged.organizationIds.length }));
  } catch (error) {
    failure = error;
  }
  // A failed purge does not hold the refresh back; the cron still reports the failure afterwards.
  await refreshVulnerabilityData(env, new Date(controller.scheduledTime));
  if (failure) throw failure;
}

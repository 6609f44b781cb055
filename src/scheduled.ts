// Cron triggers (wrangler.toml [triggers]): the daily retention purge. Later issues add portfolio
// snapshots and the vulnerability data refresh to the same schedule.
import { bumpAccessEpoch } from './auth/access-cache';
import { purgeExpiredProjects } from './control/projects';
import type { Env } from './env';

export async function runScheduled(controller: ScheduledController, env: Env): Promise<void> {
  const purged = await purgeExpiredProjects(env.DB, new Date(controller.scheduledTime));
  await Promise.all(purged.touchedOrgIds.map((orgId) => bumpAccessEpoch(env, orgId)));
  console.log(JSON.stringify({ level: 'info', message: 'retention purge', cron: controller.cron, projects: purged.projectIds.length, organizations: purged.organizationIds.length }));
}

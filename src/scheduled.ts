// Cron triggers (wrangler.toml [triggers]): the daily retention purge, then the erasures it queued
// (purged projects' R2 objects and storage, purged organizations' activity, people who belong to no
// organization any more: bounded slices that resume on the next run; docs/retention.md), then the
// vulnerability data refresh (when VULNDB_SOURCE_URL is set; it logs its failures and never throws),
// then one re-match message per active project: data imported since a project's last re-match (by the
// refresh or the import command) is matched against its components. Later issues add portfolio
// snapshots to the same schedule.
import { bumpAccessEpoch } from './auth/access-cache';
import { runErasures } from './control/erasures';
import { purgeExpiredProjects } from './control/projects';
import type { Env } from './env';
import { queueRematches } from './queues/rematch';
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
  try {
    const erased = await runErasures(env, new Date(controller.scheduledTime));
    console.log(JSON.stringify({
      level: 'info', message: 'retention erasures', cron: controller.cron, projects: erased.projects.length, organizations: erased.organizations.length,
      objects: erased.objects, activityRows: erased.activityRows, peopleForgotten: erased.people.forgotten.length, signInLinks: erased.signInLinks,
      registrations: erased.registrations, failures: erased.failures, pending: erased.pending,
    }));
  } catch (error) {
    failure ??= error;
  }
  // A failed purge or erasure does not hold the refresh back; the cron still reports the failure afterwards.
  await refreshVulnerabilityData(env, new Date(controller.scheduledTime));
  try {
    const projects = await queueRematches(env, new Date(controller.scheduledTime).toISOString());
    console.log(JSON.stringify({ level: 'info', message: 'vulnerability re-match and portfolio snapshot queued', projects }));
  } catch (error) {
    failure ??= error;
  }
  if (failure) throw failure;
}

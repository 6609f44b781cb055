// Nothing stays RUNNING for ever: the project object's alarm fails abandoned surveys.
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { projectStub } from '../../src/project/client';
import type { ProjectObject } from '../../src/project/project-object';
import { api, json } from '../helpers';
import { dataTenant } from '../data-plane';
import { letScoringFinish } from '../pipeline';

const P = (projectId: string) => `/api/v1/project/${projectId}`;

/** Starts an inventory survey (left open: its upload never comes). */
const startSurvey = (t: { projectId: string; pass: string }) =>
  api(`${P(t.projectId)}/survey`, { token: t.pass, body: { jobType: 'INVENTORY_SURVEY' }, headers: { 'idempotency-key': crypto.randomUUID() } }).then(json);

/** Moves every job's last change `hours` into the past, as if nothing had happened since. */
async function age(projectId: string, hours: number) {
  const then = new Date(Date.now() - hours * 3_600_000).toISOString();
  await runInDurableObject(projectStub(env, projectId), (_instance, state) => {
    state.storage.sql.exec('UPDATE jobs SET created_at = ?, started_at = CASE WHEN started_at IS NULL THEN NULL ELSE ? END, updated_at = ?', then, then, then);
  });
}

describe('abandoned surveys', () => {
  it('fails a survey with no change for a day (class abandoned) and leaves a recent one alone', async () => {
    const t = await dataTenant();
    const start = () => startSurvey(t);
    const old = await start();
    await api(`${P(t.projectId)}/survey/${old.parent_id}/status`, { token: t.pass, body: { subJobId: old.sub_job_ids.upload, status: 'RUNNING' } });
    await age(t.projectId, 25);
    const fresh = await start();
    // The new project's built-in portfolio is scored through the real queue: until that is done the
    // alarm rings for its lease (a minute), not for the open survey.
    await letScoringFinish([t]);
    const stub = projectStub(env, t.projectId);
    expect(await runDurableObjectAlarm(stub)).toBe(true);

    const failed = await json(await api(`${P(t.projectId)}/v1/job/${old.parent_id}`, { token: t.token }));
    expect(failed).toMatchObject({ status: 'FAILED', failure_class: 'abandoned' });
    expect(failed.steps.every((s: { status: string }) => s.status === 'FAILED')).toBe(true);
    expect((await json(await api(`${P(t.projectId)}/v1/job/${fresh.parent_id}`, { token: t.token }))).status).toBe('PENDING');
    // The alarm rings again for the survey still open.
    expect(await runInDurableObject(stub, (_i, state) => state.storage.getAlarm())).toBeGreaterThan(Date.now() + 23 * 3_600_000);
  });

  it('a ring asked for while the alarm runs stays: the alarm does not move it to its own next time', async () => {
    const t = await dataTenant();
    // An open survey: the alarm's own next ring is its sweep, a day ahead.
    await startSurvey(t);
    await letScoringFinish([t]);
    const { asked, alarm } = await runInDurableObject(projectStub(env, t.projectId), async (object, state) => {
      const instance = object as unknown as ProjectObject;
      // As while workerd runs a ring: the ring running is no longer set.
      await state.storage.deleteAlarm();
      const ringing = instance.alarm();
      // A request answered meanwhile asks for a ring now (an event raised, a purge queued).
      const asked = Date.now();
      await instance.devSql({ batches: [], wake: true });
      await ringing;
      return { asked, alarm: await state.storage.getAlarm() };
    });
    expect(alarm).not.toBeNull();
    expect(alarm!).toBeLessThan(asked + 60_000);
  });

  it('aborts the R2 multipart upload of an abandoned survey', async () => {
    const t = await dataTenant();
    const survey = await startSurvey(t);
    const blobKey = `projects/${t.projectId}/bundles/${crypto.randomUUID()}`;
    const multipart = await env.BUNDLES.createMultipartUpload(blobKey);
    await runInDurableObject(projectStub(env, t.projectId), (_instance, state) => {
      state.storage.sql.exec(
        `INSERT INTO uploads (upload_id, blob_key, bundle_id, survey_id, step_id, sha256, size_bytes, part_size, part_count, status, created_at)
         VALUES (?, ?, ?, ?, ?, ?, 1, 16777216, 1, 'started', ?)`,
        multipart.uploadId, blobKey, crypto.randomUUID(), survey.parent_id, survey.sub_job_ids.upload, 'a'.repeat(64), new Date().toISOString(),
      );
    });
    await age(t.projectId, 25);
    await runDurableObjectAlarm(projectStub(env, t.projectId));
    const status = await runInDurableObject(projectStub(env, t.projectId), (_i, state) =>
      state.storage.sql.exec('SELECT status FROM uploads WHERE upload_id = ?', multipart.uploadId).one().status);
    expect(status).toBe('failed');
    await expect(env.BUNDLES.resumeMultipartUpload(blobKey, multipart.uploadId).uploadPart(1, new Uint8Array(8))).rejects.toThrow();
  });
});

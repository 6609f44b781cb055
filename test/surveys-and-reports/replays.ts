// Replays record nothing (issue 19): every operation that takes an Idempotency-Key, repeated with the
// same key, answers what the first call answered and leaves the activity log as the first call left it.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api } from '../helpers';
import { dataTenant } from '../data-plane';
import { analysed, buildReports, P, sbom, startSurvey } from '../pipeline';
import { complete, init, initBody, sendPart, sha256Hex, type Start } from '../upload-client';

type T = Awaited<ReturnType<typeof dataTenant>>;

const entries = async (orgId: string) =>
  Number((await env.DB.prepare('SELECT count(*) AS n FROM activity WHERE org_id = ?').bind(orgId).first<{ n: number }>())!.n);

/**
 * Calls `send` (a fresh request each time, the same key) twice: the first call writes `recorded`
 * activity entries, the replay the same answer and none.
 */
async function replayed(t: T, send: () => Promise<Response>, recorded: number): Promise<string> {
  const before = await entries(t.orgId);
  const first = await send();
  expect(first.status).toBeLessThan(300);
  const answer = await first.text();
  expect(await entries(t.orgId)).toBe(before + recorded);
  const again = await send();
  expect({ status: again.status, answer: await again.text() }).toEqual({ status: first.status, answer });
  expect(await entries(t.orgId)).toBe(before + recorded);
  return answer;
}

describe('an idempotent replay writes no second activity entry', () => {
  it('start survey, upload init and complete, step status (spec 4.7, 4.8)', async () => {
    const t = await dataTenant('replay-upload');
    const key = crypto.randomUUID();
    await replayed(t, () => api(`${P(t.projectId)}/survey`, { token: t.pass, body: { jobType: 'INVENTORY_SURVEY', tag: 'replay' }, headers: { 'idempotency-key': key } }), 1);

    // Init without parentId starts its own survey: survey.started and bundle.upload.started.
    const bytes = new TextEncoder().encode(sbom('replay-app', [['express', '4.17.0']]));
    const initKey = crypto.randomUUID();
    const start = JSON.parse(await replayed(t, async () => init(t, await initBody(t, bytes), initKey), 2)) as Start;
    const parts = [await sendPart(start, bytes, 1)];
    const completeKey = crypto.randomUUID();
    const body = { uploadId: start.uploadId, blobKey: start.blobKey, sha256: await sha256Hex(bytes), parts };
    await replayed(t, () => complete(t, body, completeKey), 1);

    // A status report records nothing at all, first or again.
    const survey = await startSurvey(t);
    const statusKey = crypto.randomUUID();
    await replayed(t, () => api(`${P(t.projectId)}/survey/${survey.surveyId}/status`, {
      token: t.pass, body: { subJobId: survey.uploadStepId, status: 'RUNNING', progress: 10 }, headers: { 'idempotency-key': statusKey },
    }), 0);
  });

  it('regenerate survey and regenerate report (spec 4.8, 4.10)', async () => {
    const t = await dataTenant('replay-regenerate');
    const surveyed = await analysed(t, sbom('regen-app', [['express', '4.17.0']]));
    const surveyKey = crypto.randomUUID();
    const regenerated = JSON.parse(await replayed(t, () => api(`${P(t.projectId)}/v1/survey/${surveyed.surveyId}/regenerate`, {
      token: t.token, method: 'POST', headers: { 'idempotency-key': surveyKey },
    }), 1));
    await buildReports({ ...surveyed.message, surveyId: regenerated.parent_id });

    const report = ((await (await api(`${P(t.projectId)}/v1/job/${regenerated.parent_id}`, { token: t.token })).json()) as any).steps.find((s: any) => s.step_label === 'cbom');
    const reportKey = crypto.randomUUID();
    const answer = JSON.parse(await replayed(t, () => api(`${P(t.projectId)}/v1/report/${report.id}/regenerate`, {
      token: t.token, method: 'POST', headers: { 'idempotency-key': reportKey },
    }), 1));
    await buildReports({ ...surveyed.message, surveyId: answer.job_id });
  });
});

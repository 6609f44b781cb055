// Calls to a project's object that lose their connection (issue 19): a deadline on every call (a read
// waiting on an object reset mid-call answers within it), 502 `bad_gateway` for a connection broken
// part way, 503 `starting` while the object's start-up has not succeeded, and background work cut
// off mid-way (a posture report) finished by the object's alarm. The object is reset for real
// (`ctx.abort()`, a broken input gate), inside workerd.
import { createExecutionContext, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { app } from '../../src/app';
import type { Env } from '../../src/env';
import { newOrderedId } from '../../src/lib/ids';
import { projectStub } from '../../src/project/client';
import { POSTURE_RESUME_MS } from '../../src/project/posture';
import { api, expectError, json } from '../helpers';
import { dataTenant } from '../data-plane';
import { analysed, P, sbom, settleScoring } from '../pipeline';

/** The deadline these tests give a request's project calls (the default is 20 s). */
const DEADLINE_MS = 1_500;
const shortDeadline: Env = { ...env, PROJECT_CALL_DEADLINE_MS: String(DEADLINE_MS) };

async function read(t: { projectId: string; token: string }, path: string): Promise<Response> {
  return app.request(`http://localhost${P(t.projectId)}${path}`, { headers: { authorization: `Bearer ${t.token}` } }, shortDeadline, createExecutionContext());
}

/** Runs `read` and answers its response with how long it took. */
async function timed(answer: Promise<Response>): Promise<{ res: Response; ms: number }> {
  const started = Date.now();
  const res = await answer;
  return { res, ms: Date.now() - started };
}

/**
 * Holds the object's input gate (as its start-up does) and, 300 ms in, does `then` inside it: every
 * call sent meanwhile waits behind the gate. Answers the holder's outcome, never rejecting.
 */
function holdGate(projectId: string, then: (state: DurableObjectState) => void): Promise<unknown> {
  return runInDurableObject(projectStub(env, projectId), async (_instance, state) => {
    await state.blockConcurrencyWhile(async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      then(state);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    });
  }).catch((error: unknown) => error);
}

/** Holds the object's input gate and resets the object (`ctx.abort()`) 300 ms in, from a timer, while it is held. */
function resetWhileHeld(projectId: string): void {
  void runInDurableObject(projectStub(env, projectId), async (_instance, state) => {
    setTimeout(() => state.abort('Durable Object reset while its input gate was held'), 300);
    await state.blockConcurrencyWhile(() => new Promise((resolve) => setTimeout(resolve, 2_000)));
  }).catch(() => undefined);
}

describe('every call to a project object has a deadline (issue 19, item 1)', () => {
  it('a read waiting on an object reset mid-call answers 503 unavailable with Retry-After within its deadline', async () => {
    const t = await dataTenant('reset-mid-call');
    // Reset while its gate is held: workerd then answers no call to the object, waiting or new, ever.
    resetWhileHeld(t.projectId);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const [jobs, portfolios] = await Promise.all([timed(read(t, '/v1/job')), timed(read(t, '/v1/portfolio'))]);
    for (const { res, ms } of [jobs, portfolios]) {
      expect(ms).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
      expect(ms).toBeLessThan(DEADLINE_MS + 2_000);
      expect(res.headers.get('retry-after')).toBe('2');
      await expectError(res, 503, 'unavailable');
    }
  });
});

describe('error codes of part 7 (issue 19, item 2)', () => {
  it('bad_gateway (502): a call whose connection to the object breaks part way', async () => {
    const t = await dataTenant('broken-gate');
    const held = holdGate(t.projectId, () => {
      throw new Error('Network connection lost.');
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const { res, ms } = await timed(read(t, '/v1/job'));
    expect(ms).toBeLessThan(DEADLINE_MS);
    expect(res.headers.get('retry-after')).toBe('2');
    await expectError(res, 502, 'bad_gateway');
    expect(String(await held)).toContain('Network connection lost');
    // The next instance answers.
    expect((await read(t, '/v1/job')).status).toBe(200);
  });

  it('the OpenAPI document lists 502 beside 503 on every operation reaching project data', async () => {
    const doc = await json(await api('/api/v1/openapi.json'));
    const operations = Object.values(doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>).flatMap((path) => Object.values(path));
    const reaching = operations.filter((op) => '503' in op.responses);
    expect(reaching.length).toBeGreaterThan(30);
    for (const op of reaching) expect(Object.keys(op.responses)).toContain('502');
  });

  it('starting (503): an object whose start-up (bringing its schema up to date) has not succeeded, until it does', async () => {
    const t = await dataTenant('start-up');
    const stub = projectStub(env, t.projectId);
    // The newest migration marked unapplied: the next instance applies it again at start-up and fails
    // (its table exists), as a start-up that meets a fault would.
    const newest = await runInDurableObject(stub, (_instance, state) => {
      const row = state.storage.sql.exec<{ hash: string; created_at: number }>('SELECT hash, created_at FROM __drizzle_migrations ORDER BY created_at DESC LIMIT 1').one();
      state.storage.sql.exec('DELETE FROM __drizzle_migrations WHERE created_at = ?', row.created_at);
      return row;
    });
    await runInDurableObject(stub, (_instance, state) => state.abort('restart')).catch(() => undefined);
    const res = await read(t, '/v1/job');
    expect(res.headers.get('retry-after')).toBe('2');
    await expectError(res, 503, 'starting');
    // Portfolio reads say `starting` too (not 404 "not set up", which is for a project being provisioned).
    await expectError(await read(t, '/v1/portfolio'), 503, 'starting');

    // A stub that saw the reset stays broken: a fresh one reaches the new instance.
    await runInDurableObject(projectStub(env, t.projectId), (_instance, state) => {
      state.storage.sql.exec('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)', newest.hash, newest.created_at);
    });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await read(t, '/v1/job')).status).toBe(200);
  });
});

describe('background work cut off mid-way is finished through its lease (issue 19, item 1)', () => {
  it('a regenerated posture report whose writing was cut off is written by the alarm', async () => {
    const t = await dataTenant('posture-resume');
    await analysed(t, sbom('resume-app', [['lodash', '4.17.15']]));
    await settleScoring(t);
    const stub = projectStub(env, t.projectId) as any;
    const snapshot = await stub.startSnapshot({ asOf: '2026-11-24T00:05:00.000Z' });
    await settleScoring(t);
    const original = (await json(await api(`${P(t.projectId)}/v1/job/${snapshot.job_id}`, { token: t.token }))).steps[0];
    expect(original).toMatchObject({ status: 'COMPLETED', step_label: 'posture' });
    // What a regenerate cut off after its job was recorded leaves: the job, not yet written.
    const cutOff = newOrderedId();
    const at = new Date(Date.now() - POSTURE_RESUME_MS - 1_000).toISOString();
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec(
        `INSERT INTO jobs (id, type, status, progress, message, created_at, started_at, finished_at, metadata, parent_id, step_type, step_label, tag, target, notes, json_tags, deleted_at, supersedes, failure_class, seq, updated_at)
         SELECT ?, type, 'PENDING', 0, 'Writing the posture report.', ?, NULL, NULL, metadata, NULL, step_type, step_label, NULL, target, NULL, NULL, NULL, id, NULL, 1, ? FROM jobs WHERE id = ?`,
        cutOff, at, at, original.id);
    });
    const regenerate = () => api(`${P(t.projectId)}/v1/report/${original.id}/regenerate`, { token: t.token, method: 'POST' });
    await expectError(await regenerate(), 409, 'conflict');
    expect((await api(`${P(t.projectId)}/v1/report/${cutOff}/summary`, { token: t.token })).status).toBe(404);

    await runDurableObjectAlarm(stub);
    expect(await json(await api(`${P(t.projectId)}/v1/job/${cutOff}`, { token: t.token }))).toMatchObject({ status: 'COMPLETED', step_label: 'posture' });
    const [before, after] = [await json(await api(`${P(t.projectId)}/v1/report/${original.id}/summary`, { token: t.token })), await json(await api(`${P(t.projectId)}/v1/report/${cutOff}/summary`, { token: t.token }))];
    expect(after.headline).toEqual(before.headline);
    await expectError(await regenerate(), 409, 'conflict');
  });
});

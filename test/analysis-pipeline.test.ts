/// <reference types="vite/client" />
// The analysis pipeline (ARCHITECTURE sections 1 and 5): the analysis queue's consumer reads a
// survey's bundle from R2, stages what it finds in the project object, swaps it into the subject's
// contents and settles the survey; bad bundles fail with their class, other errors are retried and
// end in the dead-letter queue, whose consumer fails the survey.
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { api, json } from './helpers';
import { dataTenant } from './data-plane';
import type { Env } from '../src/env';
import { RPC_PAYLOAD_CHARS, rowChars, slicesBySize } from '../src/lib/rpc-payload';
import type { AnalysisRow, RowsQuery, StageInput, TextRow } from '../src/project/analysis-store';
import { analysisPages, FINDINGS_PAGE } from '../src/queues/findings';
import { analysed, analyzeStep, buildReports, contentsOf, deliver, getJob, P, sbom, drainPurges, leaseCounts, startSurvey, storedRowCount, tarGz, uploaded } from './pipeline';

import nginxPass from './fixtures/cbom/pkic-cbom__nginx-pass.cbom.json?raw';
import trivy from './fixtures/cbom/aquasecurity-trivy__crypto-image.cbom.json?raw';
import kafka from './fixtures/cbom/ibm-cbomkit__kafka-cbom.json?raw';
import dependencyTrack from './fixtures/sbom/maven__dependency-track-apiserver-4.5.0.cdx-1.4.json?raw';
import juiceShop from './fixtures/sbom/npm__juice-shop-14.1.1.cdx-1.4.json?raw';
import poetry from './fixtures/sbom/pypi__poetry-regression-issue702.cdx-1.6.json?raw';

const healthRun = async (t: { projectId: string; token: string }, id: string) => {
  const page = await json(await api(`${P(t.projectId)}/v1/data-health/run?showDeleted=true`, { token: t.token }));
  return page.runs.find((r: { id: string }) => r.id === id);
};

const kinds = (items: { kind: string }[]) => items.reduce<Record<string, number>>((acc, i) => ({ ...acc, [i.kind]: (acc[i.kind] ?? 0) + 1 }), {});

describe('analysing a bundle', () => {
  it('a CycloneDX SBOM: survey COMPLETED, subject from metadata.component, contents as in SOURCES.md', async () => {
    const t = await dataTenant();
    const survey = await analysed(t, dependencyTrack);
    const job = await getJob(t, survey.surveyId);
    expect(job).toMatchObject({ status: 'COMPLETED', progress: 100, failure_class: null, metadata: { subject: 'dependency-track' } });
    expect(analyzeStep(job)).toMatchObject({
      status: 'COMPLETED',
      metadata: {
        format: 'cyclonedx-json', subject: 'dependency-track', subjectSource: 'document', components: 132, cryptoAssets: 0,
        specVersions: ['1.4'], invalidPurls: 0, skippedComponents: 0, skippedEntries: 0, stored: { components: 132, cryptoAssets: 0, observations: 0 },
      },
    });
    const contents = await contentsOf(t.projectId, 'dependency-track');
    expect(contents.total).toBe(132);
    expect(kinds(contents.items)).toEqual({ component: 132 });
    expect(contents.items.every((i) => i.purl?.startsWith('pkg:maven/') && i.survey_id === survey.surveyId)).toBe(true);
  });

  it('counts a package listed several times once (juice-shop: 1,115 listed, 978 distinct package URLs)', async () => {
    const t = await dataTenant();
    const survey = await analysed(t, juiceShop);
    expect(analyzeStep(await getJob(t, survey.surveyId)).metadata).toMatchObject({ components: 1115, stored: { components: 978 } });
    const contents = await contentsOf(t.projectId, 'juice-shop');
    expect(contents.total).toBe(978);
    expect(contents.items.find((i) => i.key === 'pkg:npm/ansi-regex@5.0.1')?.data).toMatchObject({ name: 'ansi-regex', listed: expect.any(Number) });
    expect(contents.items.find((i) => i.key === 'pkg:npm/ansi-regex@5.0.1')!.data.listed).toBeGreaterThan(1);
  });

  it('a CBOM: crypto assets by bom-ref, components beside them (nginx: 2 components, 9 assets)', async () => {
    const t = await dataTenant();
    const survey = await analysed(t, nginxPass);
    expect((await getJob(t, survey.surveyId)).status).toBe('COMPLETED');
    const contents = await contentsOf(t.projectId, 'nginx');
    expect(kinds(contents.items)).toEqual({ component: 2, crypto_asset: 9 });
    const trivyRun = await analysed(t, trivy);
    expect(analyzeStep(await getJob(t, trivyRun.surveyId)).metadata).toMatchObject({ cryptoAssets: 24, specVersions: ['1.7'] });
    expect((await contentsOf(t.projectId, 'testdata/fixtures/images/crypto.tar.gz', 'crypto_asset')).total).toBe(24);
  });

  it('a tar.gz: the manifest names the subject, tag and CI run; every document is read', async () => {
    const t = await dataTenant();
    const bundle = await tarGz({
      'manifest.json': JSON.stringify({ subject: 'shop', tag: 'release-7', ci: { runId: 'ci-4711', url: 'https://ci.example/4711' }, tool: { name: 'posture', version: '1.0.0' } }),
      'sbom/poetry.cdx.json': poetry,
      'cbom/kafka.cbom.json': kafka,
    });
    const survey = await analysed(t, bundle);
    const job = await getJob(t, survey.surveyId);
    expect(job.status).toBe('COMPLETED');
    expect(analyzeStep(job).metadata).toMatchObject({ format: 'tar.gz', subject: 'shop', subjectSource: 'manifest', documents: 2, specVersions: ['1.6'], components: 63, cryptoAssets: 11 });
    expect(kinds((await contentsOf(t.projectId, 'shop')).items)).toEqual({ component: 63, crypto_asset: 11 });
    expect(await healthRun(t, survey.surveyId)).toMatchObject({ subject: 'shop', ci_run_id: 'ci-4711', tag: 'release-7', outcome: 'complete' });
  });

  it('the survey\'s target overrides the manifest and the BOM', async () => {
    const t = await dataTenant();
    const bundle = await tarGz({ 'manifest.json': JSON.stringify({ subject: 'from-manifest' }), 'a.json': nginxPass });
    const survey = await analysed(t, bundle, { target: 'from-target', jsonTags: { ci_run_id: 'gh-1' } });
    expect(analyzeStep(await getJob(t, survey.surveyId)).metadata).toMatchObject({ subject: 'from-target', subjectSource: 'target' });
    expect((await contentsOf(t.projectId, 'from-target')).total).toBe(11);
    expect((await contentsOf(t.projectId, 'from-manifest')).total).toBe(0);
    expect(await healthRun(t, survey.surveyId)).toMatchObject({ subject: 'from-target', ci_run_id: 'gh-1' });
  });

  it('a runtime survey replaces only the subject\'s observations; an inventory survey leaves them', async () => {
    const t = await dataTenant();
    await analysed(t, sbom('svc', [['a', '1.0.0'], ['b', '2.0.0']]));
    const lines = [
      { algorithm: 'ECDHE', protocol: 'TLSv1.3', library: 'openssl', group: 'X25519', count: 40 },
      { algorithm: 'ECDHE', protocol: 'TLSv1.3', library: 'openssl', group: 'P-256', count: 2 },
      { algorithm: 'RSA', keySize: 2048, library: 'openssl' },
    ].map((l) => JSON.stringify(l)).join('\n');
    const runtime = await analysed(t, await tarGz({ 'manifest.json': JSON.stringify({ subject: 'svc', runtime: true }), 'runtime/tls.jsonl': lines }), { jobType: 'RUNTIME_SURVEY' });
    expect((await getJob(t, runtime.surveyId)).status).toBe('COMPLETED');
    const contents = await contentsOf(t.projectId, 'svc');
    expect(kinds(contents.items)).toEqual({ component: 2, observation: 2 });
    expect(contents.items.find((i) => i.key === 'ECDHE|TLSv1.3|openssl')?.data).toMatchObject({ count: 42, groups: ['X25519', 'P-256'] });
    await analysed(t, sbom('svc', [['c', '3.0.0']]));
    expect(kinds((await contentsOf(t.projectId, 'svc')).items)).toEqual({ component: 1, observation: 2 });
  });

  it('a new survey of a subject replaces its contents, and completeness compares with the previous run', async () => {
    const t = await dataTenant();
    const packages = Array.from({ length: 40 }, (_, i): [string, string] => [`pkg-${i}`, '1.0.0']);
    const first = await analysed(t, sbom('app', packages));
    const second = await analysed(t, sbom('app', packages.slice(0, 30)));
    expect((await contentsOf(t.projectId, 'app')).total).toBe(30);
    expect((await healthRun(t, first.surveyId)).completeness).toMatchObject({ components: 40, previous_run_id: null, ratio: null });
    expect((await healthRun(t, second.surveyId)).completeness).toEqual({
      components: 30, crypto_assets: 0, observations: 0, previous_run_id: first.surveyId,
      previous_components: 40, previous_crypto_assets: 0, previous_observations: 0, ratio: 0.75,
    });
  });
});

describe('concurrent analyses of one subject', () => {
  it('an older survey finishing after a newer one completes without putting its older contents back', async () => {
    const t = await dataTenant();
    const older = await startSurvey(t);
    const newer = await startSurvey(t);
    const olderMessage = await uploaded(t, older, sbom('app', [['old-only', '1.0.0']]));
    const newerMessage = await uploaded(t, newer, sbom('app', [['new-only', '2.0.0'], ['shared', '1.0.0']]));
    await deliver(newerMessage);
    await deliver(olderMessage);
    const items = (await contentsOf(t.projectId, 'app')).items;
    expect(items.map((i) => i.name).sort()).toEqual(['new-only', 'shared']);
    const olderJob = await getJob(t, older.surveyId);
    expect(olderJob.status).toBe('COMPLETED');
    expect(analyzeStep(olderJob).metadata.supersededBy).toBe(newer.surveyId);
  });
});

describe('failure classes surface on the analyze step and the survey', () => {
  const failsWith = async (data: Uint8Array | string, failureClass: string, message: RegExp, body: Record<string, unknown> = {}) => {
    const t = await dataTenant();
    const survey = await analysed(t, data, body);
    const job = await getJob(t, survey.surveyId);
    expect(job).toMatchObject({ status: 'FAILED', failure_class: failureClass, message: expect.stringMatching(message) });
    expect(analyzeStep(job)).toMatchObject({ status: 'FAILED', failure_class: failureClass });
    expect(await healthRun(t, survey.surveyId)).toMatchObject({ status: 'FAILED', outcome: 'failed', failure_class: failureClass });
    return { t, survey };
  };

  it('not_cyclonedx: JSON that is not a CycloneDX document', async () => {
    await failsWith(JSON.stringify({ spdxVersion: 'SPDX-2.3', bomFormat: 'SPDX', packages: [] }), 'not_cyclonedx', /CycloneDX/);
  });

  it('archive_limits: a single component too large to store', async () => {
    const huge = JSON.stringify({
      bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, metadata: { component: { type: 'application', name: 'big' } },
      components: [{ type: 'library', name: 'giant-'.concat('x'.repeat(600 * 1024)), version: '1' }],
    });
    await failsWith(huge, 'archive_limits', /larger than 512 KiB/);
  });

  it('archive_limits: a gzip bomb', async () => {
    await failsWith(await tarGz({ 'bomb.json': new Uint8Array(24 * 1024 * 1024) }), 'archive_limits', /compression ratio/);
  });

  it('corrupt_archive: a truncated gzip', async () => {
    const archive = await tarGz({ 'a.json': nginxPass, 'b.json': dependencyTrack });
    await failsWith(archive.subarray(0, Math.floor(archive.byteLength / 2)), 'corrupt_archive', /truncated/);
  });

  it('no_subject: no target, no manifest subject, no metadata.component', async () => {
    const { t, survey } = await failsWith(kafka, 'no_subject', /target/);
    expect(analyzeStep(await getJob(t, survey.surveyId)).metadata).toMatchObject({ cryptoAssets: 11 });
  });

  it('bundle_missing: the bundle is not in R2', async () => {
    const t = await dataTenant();
    const survey = await startSurvey(t);
    const message = await uploaded(t, survey, nginxPass, { put: false });
    const { id, result } = await deliver(message);
    expect(result.explicitAcks).toEqual([id]);
    expect(await getJob(t, survey.surveyId)).toMatchObject({ status: 'FAILED', failure_class: 'bundle_missing' });
  });
});

describe('retries and the dead-letter queue', () => {
  /** An env whose R2 fails: at once, or after `afterBytes` bytes of the body. */
  const brokenR2 = (afterBytes?: number) => ({
    ...env,
    BUNDLES: {
      get: async (key: string) => {
        if (afterBytes === undefined) throw new Error('R2 is unavailable');
        const object = (await env.BUNDLES.get(key))!;
        const bytes = new Uint8Array(await object.arrayBuffer());
        let sent = false;
        return {
          customMetadata: {},
          body: new ReadableStream<Uint8Array>({
            pull(controller) {
              if (!sent) {
                sent = true;
                controller.enqueue(bytes.subarray(0, afterBytes));
              } else controller.error(new Error('R2 read was interrupted'));
            },
          }),
        };
      },
    },
  }) as unknown as typeof env;

  it('an error that is not the bundle\'s fault retries the message; the step notes it and stays RUNNING', async () => {
    const t = await dataTenant();
    const survey = await startSurvey(t);
    const message = await uploaded(t, survey, dependencyTrack);
    const { id, result } = await deliver(message, { env: brokenR2() });
    expect(result.retryMessages).toEqual([expect.objectContaining({ msgId: id })]);
    expect(result.explicitAcks).toEqual([]);
    const step = analyzeStep(await getJob(t, survey.surveyId));
    expect(step).toMatchObject({ status: 'RUNNING', message: expect.stringMatching(/Attempt 1 .*R2 is unavailable.*retrying/), metadata: { attempts: 1 } });
    // The next attempt succeeds.
    const again = await deliver(message, { attempts: 2 });
    expect(again.result.explicitAcks).toEqual([again.id]);
    await buildReports(message);
    expect((await getJob(t, survey.surveyId)).status).toBe('COMPLETED');
  });

  it('a retried run that had written part of the bundle does not duplicate contents', async () => {
    const t = await dataTenant();
    const survey = await startSurvey(t);
    const message = await uploaded(t, survey, juiceShop);
    const broken = await deliver(message, { env: brokenR2(1_200_000) });
    expect(broken.result.retryMessages).toHaveLength(1);
    // The first batch (500 items, fewer distinct ones) was stored before the read broke off. Those rows
    // are queued for deletion as the attempt gives up, so the alarm may have taken them already: the
    // lease's counts, written with them, say what was stored.
    const firstAttempt = await leaseCounts(t.projectId, survey.surveyId);
    expect(Object.values(firstAttempt).reduce((sum, n) => sum + n, 0)).toBeGreaterThan(400);
    await deliver(message, { attempts: 2 });
    expect(analyzeStep(await getJob(t, survey.surveyId)).metadata).toMatchObject({ components: 1115, stored: { components: 978 } });
    expect((await contentsOf(t.projectId, 'juice-shop')).total).toBe(978);
    // The first attempt's rows are deleted afterwards, in slices: nothing is left twice.
    await drainPurges(t.projectId);
    expect(await storedRowCount(t.projectId, survey.surveyId)).toBe(978 + 1116); // 978 components and 1,116 dependency entries, each once
  });

  it('after the last retry the dead-letter consumer fails the survey with class internal', async () => {
    const t = await dataTenant();
    const survey = await startSurvey(t);
    const message = await uploaded(t, survey, dependencyTrack);
    for (let attempt = 1; attempt <= 4; attempt++) {
      const { result } = await deliver(message, { env: brokenR2(), attempts: attempt });
      expect(result.retryMessages).toHaveLength(1);
    }
    const dead = await deliver(message, { queue: 'posture-analysis-dlq' });
    expect(dead.result.explicitAcks).toEqual([dead.id]);
    const job = await getJob(t, survey.surveyId);
    expect(job).toMatchObject({ status: 'FAILED', failure_class: 'internal', message: expect.stringMatching(/could not complete after retries.*R2 is unavailable/) });
    expect(analyzeStep(job)).toMatchObject({ status: 'FAILED', failure_class: 'internal' });
    expect(await healthRun(t, survey.surveyId)).toMatchObject({ outcome: 'failed', failure_class: 'internal' });
  });

  it('a dead letter for a survey that finished meanwhile changes nothing', async () => {
    const t = await dataTenant();
    const survey = await analysed(t, nginxPass);
    const before = await getJob(t, survey.surveyId);
    const dead = await deliver(survey.message, { queue: 'posture-analysis-dlq' });
    expect(dead.result.explicitAcks).toEqual([dead.id]);
    expect(await getJob(t, survey.surveyId)).toEqual(before);
  });
});

describe('redelivery and bad messages', () => {
  it('a redelivered message for a finished analysis is acked and ignored', async () => {
    const t = await dataTenant();
    const survey = await analysed(t, nginxPass);
    const before = await getJob(t, survey.surveyId);
    const contents = await contentsOf(t.projectId, 'nginx');
    const { id, result } = await deliver(survey.message, { attempts: 2 });
    expect(result.explicitAcks).toEqual([id]);
    expect(await getJob(t, survey.surveyId)).toEqual(before);
    expect(await contentsOf(t.projectId, 'nginx')).toEqual(contents);
  });

  it('a malformed message is dropped (acked), never retried', async () => {
    const { id, result } = await deliver({ projectId: 'nope' });
    expect(result.explicitAcks).toEqual([id]);
    expect(result.retryMessages).toEqual([]);
  });

  it('regenerating for reports only reuses the analysis and its data-health record; a message for it is ignored', async () => {
    const t = await dataTenant();
    const survey = await analysed(t, nginxPass, { tag: 'v1' });
    const res = await api(`${P(t.projectId)}/v1/survey/${survey.surveyId}/regenerate`, { method: 'POST', token: t.token, headers: { 'idempotency-key': crypto.randomUUID() } });
    expect(res.status).toBe(201);
    const regenerated = await json(res);
    // Reports only: the analysis is reused (its reports are built again), and so is the data-health record.
    await buildReports({ ...survey.message, surveyId: regenerated.parent_id });
    expect(await getJob(t, regenerated.parent_id)).toMatchObject({ status: 'COMPLETED', supersedes: survey.surveyId });
    expect(await healthRun(t, regenerated.parent_id)).toMatchObject({ subject: 'nginx', outcome: 'complete', tag: 'v1', completeness: { components: 2, crypto_assets: 9 } });
    const { id, result } = await deliver({ ...survey.message, surveyId: regenerated.parent_id });
    expect(result.explicitAcks).toEqual([id]);
  });
});

describe('regenerate survey (spec 4.8 rule 3, part 3)', () => {
  it('skips the unfinished old survey and its unfinished steps, names it in supersedes, and answers repeats (also concurrent) with the same new survey', async () => {
    const t = await dataTenant();
    const survey = await startSurvey(t);
    await uploaded(t, survey, nginxPass);
    const key = crypto.randomUUID();
    const regenerate = () => api(`${P(t.projectId)}/v1/survey/${survey.surveyId}/regenerate`, { token: t.token, body: { skipAnalyze: true }, headers: { 'idempotency-key': key } });
    const answers = await Promise.all([regenerate(), regenerate(), regenerate()]);
    expect(answers.map((r) => r.status)).toEqual([201, 201, 201]);
    const bodies = await Promise.all(answers.map((r) => json(r)));
    expect(new Set(bodies.map((b) => b.parent_id)).size).toBe(1);
    expect(bodies[0]).toMatchObject({ supersedes: survey.surveyId, sub_job_ids: { upload: expect.any(String), analyze: expect.any(String) } });
    const again = await json(await regenerate());
    expect(again.parent_id).toBe(bodies[0].parent_id);

    const old = await getJob(t, survey.surveyId);
    expect(old.status).toBe('SKIPPED');
    expect(old.steps.map((s: { step_label: string; status: string }) => [s.step_label, s.status])).toEqual([
      ['upload', 'COMPLETED'], ['analyze', 'SKIPPED'], ['pqc-inventory', 'SKIPPED'], ['cbom', 'SKIPPED'], ['composition', 'SKIPPED'],
    ]);
    const fresh = await getJob(t, bodies[0].parent_id);
    expect(fresh).toMatchObject({ supersedes: survey.surveyId });
    expect(fresh.steps.find((s: { step_label: string }) => s.step_label === 'upload').status).toBe('COMPLETED');
  });
});

describe('wiring (wrangler.toml [[queues.consumers]])', () => {
  it('a survey regenerated with {} goes through the real analysis queue and completes again', async () => {
    const t = await dataTenant();
    const survey = await analysed(t, nginxPass);
    const res = await api(`${P(t.projectId)}/v1/survey/${survey.surveyId}/regenerate`, { token: t.token, body: {}, headers: { 'idempotency-key': crypto.randomUUID() } });
    expect(res.status).toBe(201);
    const { parent_id: regenerated } = await json(res);
    await vi.waitFor(async () => expect((await getJob(t, regenerated)).status).toBe('COMPLETED'), { timeout: 10_000, interval: 100 });
    expect(analyzeStep(await getJob(t, regenerated)).metadata).toMatchObject({ subject: 'nginx', stored: { components: 2, cryptoAssets: 9 } });
    expect((await contentsOf(t.projectId, 'nginx')).items.every((i) => i.survey_id === regenerated)).toBe(true);
  });
});

describe('calls to the project object are bounded in size, not only in items (issue 22, memory)', () => {
  it('slicesBySize: consecutive slices of at most the size, an item larger alone in a slice of its own', () => {
    const size = (n: number) => n;
    expect(slicesBySize([], size, 10)).toEqual([]);
    expect(slicesBySize([4, 4, 4, 9, 1, 30, 2], size, 10)).toEqual([[4, 4], [4], [9, 1], [30], [2]]);
  });

  /** The real project objects, with the size of each stageContents call's rows and of each analysisRows page recorded. */
  const recording = () => {
    const staged: number[] = [];
    const pages: { chars: number; rows: number; next: boolean }[] = [];
    const libraryPages: { rows: number; next: boolean }[] = [];
    // A page's rows carry their data parsed, or as the stored text (`asText`).
    const pageRowChars = (r: AnalysisRow | TextRow) => rowChars({ ...r, data: typeof r.data === 'string' ? r.data : JSON.stringify(r.data) });
    const PROJECT = {
      idFromName: (name: string) => env.PROJECT.idFromName(name),
      get: (id: DurableObjectId) => {
        const stub = env.PROJECT.get(id);
        return new Proxy(stub, {
          get(target, prop) {
            if (prop === 'stageContents') {
              return (input: StageInput) => {
                staged.push(input.rows.reduce((n, r) => n + rowChars(r), 0));
                return target.stageContents(input);
              };
            }
            if (prop === 'analysisRows') {
              return async (query: RowsQuery) => {
                const answer = (await target.analysisRows(query)) as { rows: (AnalysisRow | TextRow)[]; next: string | null };
                if (!query.bomRefs) pages.push({ chars: answer.rows.reduce((n, r) => n + pageRowChars(r), 0), rows: answer.rows.length, next: answer.next !== null });
                return answer;
              };
            }
            if (prop === 'libraryRows') {
              return async (query: { surveyId: string; attempt: number; after?: string; limit: number }) => {
                const answer = (await target.libraryRows(query)) as { rows: unknown[]; next: string | null };
                libraryPages.push({ rows: answer.rows.length, next: answer.next !== null });
                return answer;
              };
            }
            // Any other method goes to the real object (an RPC stub answers every name with a method).
            if (typeof prop === 'string' && !['then', 'id', 'name'].includes(prop)) return (...args: unknown[]) => (target as unknown as Record<string, (...a: unknown[]) => unknown>)[prop]!(...args);
            return Reflect.get(target, prop);
          },
        });
      },
    };
    return { env: { ...env, PROJECT } as unknown as Env, staged, pages, libraryPages };
  };

  it('rows are staged in calls of at most RPC_PAYLOAD_CHARS, and read back in pages of at most that, every row kept', async () => {
    const t = await dataTenant();
    // 300 components of about 19,000 characters each (120 SHA-512 hashes): 5.7 million characters,
    // which one batch of STAGE_BATCH items would have carried in one call.
    const hashes = (i: number) => Array.from({ length: 120 }, (_, h) => ({ alg: 'SHA-512', content: `${i}-${h}-`.padEnd(128, 'f') }));
    const document = JSON.stringify({
      bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, metadata: { component: { type: 'application', name: 'large-rows' } },
      components: Array.from({ length: 300 }, (_, i) => ({ type: 'library', name: `big-${i}`, version: '1.0.0', purl: `pkg:npm/big-${i}@1.0.0`, hashes: hashes(i) })),
    });
    const survey = await startSurvey(t);
    const message = await uploaded(t, survey, document);
    const recorded = recording();
    const { id, result } = await deliver(message, { env: recorded.env });
    expect(result.explicitAcks).toEqual([id]);
    expect(recorded.staged.length).toBeGreaterThanOrEqual(5);
    expect(Math.max(...recorded.staged)).toBeLessThanOrEqual(RPC_PAYLOAD_CHARS);
    expect(recorded.staged.reduce((a, b) => a + b, 0)).toBeGreaterThan(5_500_000);

    // The composition report's document lists every component (its columns, type and group: small rows).
    const report = await deliver({ ...message, phase: 'report' }, { env: recorded.env });
    expect(report.result.explicitAcks).toEqual([report.id]);
    expect(recorded.libraryPages.reduce((n, p) => n + p.rows, 0)).toBe(300);
    // Rows read back whole (as findings and the cbom report read theirs) come in pages cut by size, none lost.
    const source = { surveyId: survey.surveyId, attempt: (await getJob(t, survey.surveyId)).steps.find((s: any) => s.step_type === 'ANALYZE').metadata.attempt ?? 1 };
    let readBack = 0;
    for await (const page of analysisPages(recorded.env, message, source, 'component')) readBack += page.length;
    expect(readBack).toBe(300);
    const componentPages = recorded.pages.filter((p) => p.rows > 0);
    expect(componentPages.length).toBeGreaterThanOrEqual(5);
    expect(Math.max(...componentPages.map((p) => p.chars))).toBeLessThanOrEqual(RPC_PAYLOAD_CHARS);
    expect(componentPages.filter((p) => p.next).every((p) => p.rows < FINDINGS_PAGE)).toBe(true);
    expect((await getJob(t, survey.surveyId)).status).toBe('COMPLETED');
    const contents = await contentsOf(t.projectId, 'large-rows');
    expect(contents.total).toBe(300);
    expect(contents.items.find((i) => i.key === 'pkg:npm/big-7@1.0.0')?.data.hashes).toHaveLength(120);
  });
});

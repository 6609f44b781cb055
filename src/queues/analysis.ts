// The analysis consumer (ARCHITECTURE section 1, "Data flow of one upload"): one message per survey
// bundle. It takes the analysis step's lease, streams the bundle from R2 through the bundle reader,
// writes what it finds to the project object in awaited batches (back-pressure: the reader pulls no
// faster than the object stores; each batch renews the lease and reports progress), then lets the
// object flip the subject's contents to them. Between batches it yields to the event loop, so the
// Worker (and under `wrangler dev` the whole local service, one thread) keeps answering requests.
// A bad bundle fails the survey at once; anything else (R2, the object unreachable) is retried, and
// after the last retry the dead-letter consumer fails the survey, so no survey stays RUNNING.
import { z } from 'zod';
import { BundleError, readBundle, subjectOf, type BundleSummary } from '../analysis/bundle';
import type { Env } from '../env';
import type { JsonObject } from '../lib/json';
import { serializedRow, type AnalysisReuse, type AnalysisStart, type FoundItem, type SerializedRow } from '../project/analysis-store';
import { withProjectWork } from '../project/client';
import { componentFindings, deriveFindings } from './findings';
import { MatchMemo } from '../analysis/findings';
import { RecordCache } from '../vulndb/lookup';
import { buildReports } from './reports';
import { AnalysisAbandoned, yieldNow, yieldToEventLoop } from '../lib/yielding';
import { RPC_PAYLOAD_CHARS, rowChars, slicesBySize } from '../lib/rpc-payload';
import { LAYER_KEYS_PAGE } from '../project/content-layers';
import type { ContentKind } from '../analysis/types';
import { consumeEach } from './consume';
import { rematchSubject } from './rematch';
import type { ReuseFinish } from '../project/analysis-reuse';
import type { AnalysisMessage } from '../project/surveys';

export const ANALYSIS_QUEUE = 'posture-analysis';
/**
 * Items matched against the vulnerability data at once (one D1 lookup); they and their findings go to
 * the project object in calls of at most RPC_PAYLOAD_CHARS (src/lib/rpc-payload.ts), so a batch is
 * also sent once its rows reach that size.
 */
export const STAGE_BATCH = 500;
/** How much of a bundle's document list the ANALYZE step keeps in its metadata. */
const LISTED_DOCUMENTS = 50;

export const AnalysisMessageSchema = z.object({
  projectId: z.uuid(),
  surveyId: z.uuid(),
  bundleId: z.string().min(1),
  blobKey: z.string().min(1),
  phase: z.literal('report').optional(),
});


/** One stored item at most this large as JSON: a project object row holds at most 2 MB. */
export const MAX_ITEM_JSON_BYTES = 512 * 1024;

/**
 * Collects found items and sends them to the project object STAGE_BATCH at a time, or fewer once
 * they add up to RPC_PAYLOAD_CHARS; each call carries at most that much (a batch's findings, or one
 * row larger alone, go in calls of their own).
 */
export class Stager {
  private rows: SerializedRow[] = [];
  private chars = 0;
  /** The vulnerability records this analysis has read, so each comes from D1 once. */
  private readonly records = new RecordCache();
  /** The matches it has made, so a package version named again is matched once. */
  private readonly matches = new MatchMemo();
  /** Bytes of the bundle read so far, of `size`. */
  bytesRead = 0;
  /**
   * The keys sent of each kind staged as a layer (src/project/content-layers.ts): a key sent again is
   * a repeat, and a key of the base never sent is gone from the bundle.
   */
  private readonly sent = new Map<ContentKind, Set<string>>();
  private keys = 0;

  constructor(private readonly env: Env, private readonly message: AnalysisMessage, private readonly attempt: number, private readonly size: number, layers: ContentKind[] = []) {
    for (const kind of layers) this.sent.set(kind, new Set());
  }

  async add(item: FoundItem): Promise<void> {
    const row = serializedRow(item);
    // A bundle fault, not ours: say so with a bundle class instead of failing storage after retries.
    if (row.data.length > MAX_ITEM_JSON_BYTES) {
      throw new BundleError('archive_limits', `A ${item.kind.replace('_', ' ')} in ${item.source} is larger than ${MAX_ITEM_JSON_BYTES / 1024} KiB as JSON; such items cannot be stored.`);
    }
    const sent = this.sent.get(row.kind);
    if (sent?.has(row.key)) row.repeat = true;
    else if (sent) {
      sent.add(row.key);
      if (++this.keys > LAYER_MAX_KEYS) throw new LayerOverflow();
    }
    this.rows.push(row);
    this.chars += rowChars(row);
    if (this.rows.length >= STAGE_BATCH || this.chars >= RPC_PAYLOAD_CHARS) await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.rows.length) return;
    const rows = this.rows;
    this.rows = [];
    this.chars = 0;
    // A component's advisories depend on nothing else in the bundle: match them while the batch is in
    // hand and store them with it, instead of reading every component back afterwards.
    rows.push(...(await componentFindings(this.env, rows, this.records, this.matches)).map(serializedRow));
    const progress = this.size > 0 ? Math.round((1000 * this.bytesRead) / this.size) / 10 : undefined;
    for (const slice of slicesBySize(rows, rowChars)) {
      const active = await withProjectWork<boolean>(this.env, this.message.projectId, (stub) =>
        stub.stageContents({ surveyId: this.message.surveyId, attempt: this.attempt, rows: slice, progress }));
      if (!active) throw new AnalysisAbandoned();
    }
    await yieldToEventLoop();
  }

  /** Once the bundle is read: the keys of each layer's base the bundle no longer lists are recorded as removed. */
  async closeLayers(): Promise<void> {
    const { projectId, surveyId } = this.message;
    const remove = async (kind: ContentKind, keys: string[]) => {
      const active = await withProjectWork<boolean>(this.env, projectId, (stub) => stub.removeLayerKeys({ surveyId, attempt: this.attempt, kind, keys }));
      if (!active) throw new AnalysisAbandoned();
    };
    for (const [kind, sent] of this.sent) {
      let removed: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await withProjectWork<{ keys: string[]; next: string | null }>(this.env, projectId, (stub) =>
          stub.layerBaseKeys({ surveyId, attempt: this.attempt, kind, after }));
        for (const key of page.keys) if (!sent.has(key)) removed.push(key);
        if (removed.length >= LAYER_KEYS_PAGE) {
          await remove(kind, removed.slice(0, LAYER_KEYS_PAGE));
          removed = removed.slice(LAYER_KEYS_PAGE);
        }
        if (!page.next) break;
        after = page.next;
        await yieldNow();
      }
      if (removed.length) await remove(kind, removed);
    }
    this.sent.clear();
  }
}

/** The keys a layered analysis holds in memory at most (about 100 bytes each); past them the step is analysed again without layers. */
export const LAYER_MAX_KEYS = 250_000;

class LayerOverflow extends Error {
  constructor() {
    super(`the bundle lists more than ${LAYER_MAX_KEYS} items: analysed again without layers`);
  }
}

async function fail(env: Env, message: AnalysisMessage, attempt: number, failureClass: string, text: string, metadata?: JsonObject): Promise<void> {
  await withProjectWork(env, message.projectId, (stub) => stub.failAnalysis({ surveyId: message.surveyId, attempt, failureClass, message: text, metadata }));
}

/** Counts the bytes passing through, for progress. */
function counted(body: ReadableStream<Uint8Array>, stager: Stager): ReadableStream<Uint8Array> {
  return body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      stager.bytesRead += chunk.byteLength;
      controller.enqueue(chunk);
    },
  }));
}

/** What the ANALYZE step records: counts, the documents' spec versions, what was skipped, the format. */
export function stepMetadata(summary: BundleSummary, subjectSource: string): JsonObject {
  return {
    format: summary.format,
    components: summary.components,
    cryptoAssets: summary.cryptoAssets,
    observations: summary.observations,
    dependencies: summary.dependencies,
    documents: summary.documents.length,
    specVersions: [...new Set(summary.documents.map((d) => d.specVersion))].sort(),
    documentList: summary.documents.slice(0, LISTED_DOCUMENTS).map((d) => ({ path: d.path, specVersion: d.specVersion, components: d.components, cryptoAssets: d.cryptoAssets })),
    // What the documents say the subject is (a VEX statement about a product finds its subject by these).
    products: summary.documents.filter((d) => d.metadataComponent || d.serialNumber).slice(0, LISTED_DOCUMENTS)
      .map((d) => ({ ...d.metadataComponent, ...(d.serialNumber ? { serialNumber: d.serialNumber } : {}) })),
    invalidPurls: summary.invalidPurls,
    skippedComponents: summary.skippedComponents,
    skippedEntries: summary.skippedEntries,
    skipped: summary.skipped,
    manifest: summary.manifest,
    subjectSource,
  };
}

/**
 * The survey's bundle is the one an earlier analysis still current for the subject read
 * (src/project/analysis-reuse.ts): its advisories are matched again for what the vulnerability data
 * changed since, and the step completes on those rows. False when the attempt must read the bundle
 * after all (a survey of another bundle finished in between).
 */
async function reusedAnalysis(env: Env, message: AnalysisMessage, attempt: number, reuse: AnalysisReuse): Promise<boolean> {
  await rematchSubject(env, message, reuse);
  const finish = await withProjectWork<ReuseFinish>(env, message.projectId, (stub) => stub.finishReusedAnalysis({ surveyId: message.surveyId, attempt, reuse }));
  if (finish.completed) await reportsAtOnce(env, message);
  return finish.completed || finish.reusable;
}

/**
 * Builds (mostly copies) the reports of a reused analysis in this invocation rather than after a
 * trip through the queue: the queued report message then finds them taken or finished. Should this
 * attempt fail, its lease lapses and the alarm sends the work again, as for a lost message.
 */
async function reportsAtOnce(env: Env, message: AnalysisMessage): Promise<void> {
  try {
    await buildReports(env, { ...message, phase: 'report' });
  } catch (error) {
    console.error(JSON.stringify({ level: 'error', message: 'reports after a reused analysis failed; the alarm sends them again', surveyId: message.surveyId, error: String(error) }));
  }
}

/** Analyses one survey's bundle; returns normally when the message is done with (ack), throws when it should be retried. */
export async function analyse(env: Env, message: AnalysisMessage): Promise<void> {
  const start = await withProjectWork<AnalysisStart>(env, message.projectId, (stub) =>
    stub.beginAnalysis({ surveyId: message.surveyId, bundleId: message.bundleId, blobKey: message.blobKey }));
  if (!start.run) return;
  const { attempt } = start;
  if (start.reuse && await reusedAnalysis(env, message, attempt, start.reuse)) return;

  const object = await env.BUNDLES.get(message.blobKey);
  if (!object) {
    return fail(env, message, attempt, 'bundle_missing', `The bundle ${message.bundleId} is not in storage any more; upload it again in a new survey.`);
  }
  const stager = new Stager(env, message, attempt, object.size, start.layers);
  let summary: BundleSummary;
  try {
    summary = await readBundle(counted(object.body, stager), {
      fileName: object.customMetadata?.fileName ?? 'bundle.json',
      onComponent: (component, source) => stager.add({ kind: 'component', source: source.path, component }),
      onCryptoAsset: (asset, source) => stager.add({ kind: 'crypto_asset', source: source.path, asset }),
      onObservation: (observation, source) => stager.add({ kind: 'observation', source: `${source.path}:${source.line}`, observation }),
      onDependency: (dependency, source) => stager.add({ kind: 'dependency', source: source.path, dependency }),
    });
    await stager.flush();
    await stager.closeLayers();
    await deriveFindings(env, message, attempt, stager);
  } catch (error) {
    if (error instanceof BundleError) return fail(env, message, attempt, error.failureClass, error.message);
    if (error instanceof AnalysisAbandoned) return;
    if (error instanceof LayerOverflow) await withProjectWork(env, message.projectId, (stub) => stub.unlayerAnalysis({ surveyId: message.surveyId }));
    throw error;
  }

  const subject = subjectOf({ target: start.target, manifest: summary.manifest, documents: summary.documents });
  const subjectSource = start.target?.trim() ? 'target' : summary.manifest?.subject ? 'manifest' : 'document';
  const metadata = stepMetadata(summary, subjectSource);
  if (!subject) {
    return fail(env, message, attempt, 'no_subject',
      'The bundle does not say what it is about: start the survey with a target, set "subject" in manifest.json, or give the BOM a metadata.component.name.', metadata);
  }
  await withProjectWork(env, message.projectId, (stub) => stub.finishAnalysis({
    surveyId: message.surveyId, attempt, subject, metadata,
    partial: summary.skippedEntries > 0 || summary.skippedComponents > 0,
    manifestTag: summary.manifest?.tag ?? null, manifestCiRunId: summary.manifest?.ci?.runId ?? null,
  }));
}

/** The analysis queue's consumer: each message acked when done, retried with a growing delay when it could not complete. */
export async function consumeAnalysis(batch: MessageBatch, env: Env): Promise<void> {
  await consumeEach(batch, {
    name: 'analysis', schema: AnalysisMessageSchema,
    handle: (body) => (body.phase === 'report' ? buildReports(env, body) : analyse(env, body)),
    describe: (body) => `survey ${body.surveyId}`,
    onRetry: (body, retry) => withProjectWork(env, body.projectId, (stub) => stub.noteAnalysisRetry({ surveyId: body.surveyId, ...retry })),
  });
}

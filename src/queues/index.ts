// Queue consumers, one per queue (wrangler.toml [[queues.consumers]]), chosen by the batch's queue name.
import type { Env } from '../env';
import { ANALYSIS_QUEUE, consumeAnalysis } from './analysis';
import { ANALYSIS_DLQ, consumeAnalysisDeadLetters } from './dead-letter';
import { consumeNotify, NOTIFY_QUEUE } from './notify';
import { consumeRender, consumeRenderDeadLetters, RENDER_DLQ, RENDER_QUEUE } from './render';
import { consumeScoring, consumeScoringDeadLetters, SCORING_DLQ, SCORING_QUEUE } from './scoring';

const consumers: Record<string, (batch: MessageBatch, env: Env) => Promise<void>> = {
  [ANALYSIS_QUEUE]: consumeAnalysis,
  [ANALYSIS_DLQ]: consumeAnalysisDeadLetters,
  [RENDER_QUEUE]: consumeRender,
  [RENDER_DLQ]: consumeRenderDeadLetters,
  [SCORING_QUEUE]: consumeScoring,
  [SCORING_DLQ]: consumeScoringDeadLetters,
  [NOTIFY_QUEUE]: consumeNotify,
};

export async function consumeBatch(batch: MessageBatch, env: Env, _ctx: ExecutionContext): Promise<void> {
  const consume = consumers[batch.queue];
  if (!consume) {
    // A consumer declared without code here: keep the messages (they reach the queue's dead-letter queue).
    console.error(`queue: no consumer for ${batch.queue}`);
    batch.retryAll();
    return;
  }
  await consume(batch, env);
}

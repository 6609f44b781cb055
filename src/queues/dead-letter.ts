// The analysis dead-letter queue's consumer: a message lands here after its last retry. The survey
// is failed with class `internal` (unless it finished meanwhile), so it never stays RUNNING.
import type { Env } from '../env';
import { withProjectWork } from '../project/client';
import { AnalysisMessageSchema } from './analysis';

export const ANALYSIS_DLQ = 'posture-analysis-dlq';

export async function consumeAnalysisDeadLetters(batch: MessageBatch, env: Env): Promise<void> {
  for (const message of batch.messages) {
    const parsed = AnalysisMessageSchema.safeParse(message.body);
    if (!parsed.success) {
      console.error('analysis-dlq: dropping a malformed message', message.id);
      message.ack();
      continue;
    }
    const { projectId, surveyId, phase } = parsed.data;
    try {
      if (phase === 'report') {
        await withProjectWork(env, projectId, (stub) => stub.failReports({
          surveyId, failureClass: 'internal', message: 'The reports could not be built after retries. Regenerate the survey to try again.',
        }));
        message.ack();
        continue;
      }
      const lastError = await withProjectWork<string | null>(env, projectId, (stub) => stub.lastAnalysisError(surveyId));
      await withProjectWork(env, projectId, (stub) => stub.failAnalysis({
        surveyId, failureClass: 'internal',
        message: `The analysis could not complete after retries${lastError ? ` (last error: ${lastError})` : ''}. Regenerate the survey to try again.`,
      }));
      message.ack();
    } catch (error) {
      console.error(`analysis-dlq: could not fail survey ${surveyId}:`, error);
      message.retry({ delaySeconds: 30 });
    }
  }
}

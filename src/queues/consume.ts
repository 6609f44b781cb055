// The loop every queue consumer shares: each message validated (a malformed one is dropped loudly:
// retrying cannot fix it), handled, acked when done, retried with a growing delay when it could not
// complete, after telling the project object why (so people see the retry on the job).
import type { z } from 'zod';
import { errorText } from '../analysis/errors';

/** Seconds before retrying a failed attempt: 10, 20, 40, ... at most 5 minutes. */
export const retryDelay = (attempts: number) => Math.min(300, 10 * 2 ** Math.max(0, attempts - 1));

export interface QueueWork<T> {
  /** The queue's short name, for the log. */
  name: string;
  schema: z.ZodType<T>;
  handle(body: T): Promise<void>;
  /** What the message is about, for the log line of a failed attempt. */
  describe(body: T): string;
  /** Told before a retry (best effort). */
  onRetry?(body: T, retry: { attempt: number; error: string; delaySeconds: number }): Promise<unknown>;
}

export async function consumeEach<T>(batch: MessageBatch, work: QueueWork<T>): Promise<void> {
  for (const message of batch.messages) {
    const parsed = work.schema.safeParse(message.body);
    if (!parsed.success) {
      console.error(`${work.name}: dropping malformed message ${message.id} (${parsed.error.issues.map((i) => i.path.join('.')).join(', ')})`);
      message.ack();
      continue;
    }
    const body = parsed.data;
    try {
      await work.handle(body);
      message.ack();
    } catch (error) {
      const text = errorText(error);
      console.error(`${work.name}: attempt ${message.attempts} for ${work.describe(body)} failed: ${text}`);
      const delaySeconds = retryDelay(message.attempts);
      await work.onRetry?.(body, { attempt: message.attempts, error: text, delaySeconds })?.catch(() => undefined);
      message.retry({ delaySeconds });
    }
  }
}

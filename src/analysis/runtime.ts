// runtime/*.jsonl: one observed use of cryptography per line, validated line by line as it streams.
import { z } from 'zod';
import type { Collector } from './collector';
import { BundleError, errorText } from './errors';
import { MAX_RUNTIME_LINE_BYTES } from './limits';
import { describeIssue } from './manifest';
import type { Observation } from './types';

const label = z.string().trim().min(1).max(256);

export const ObservationSchema = z.object({
  algorithm: label,
  keySize: z.number().int().positive().optional(),
  protocol: label.optional(),
  cipherSuite: label.optional(),
  group: label.optional(),
  library: label.optional(),
  count: z.number().int().positive().default(1),
});

/** Validates one runtime record; throws `invalid_runtime_record` naming the file and line. */
export function parseObservation(line: string, path: string, lineNumber: number): Observation {
  const where = `${path} line ${lineNumber}`;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw new BundleError('invalid_runtime_record', `${where} is not valid JSON: ${errorText(error)}.`);
  }
  const result = ObservationSchema.safeParse(value);
  if (!result.success) {
    throw new BundleError(
      'invalid_runtime_record',
      `${where} is not a valid observation (${describeIssue(result.error)}). Expected { algorithm, keySize?, protocol?, cipherSuite?, group?, library?, count? }.`,
    );
  }
  const { count, ...rest } = result.data;
  const observation = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) as Omit<Observation, 'count'>;
  return { ...observation, count };
}

/** Splits a JSONL stream into lines without holding more than one line. */
export class RuntimeReader {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  private pending = '';
  private line = 0;

  constructor(
    private readonly path: string,
    private readonly collector: Collector,
  ) {}

  async write(chunk: Uint8Array): Promise<void> {
    const text = this.pending + this.decode(chunk, true);
    let start = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
      await this.handle(text.slice(start, newline));
      start = newline + 1;
    }
    this.pending = text.slice(start);
    if (this.pending.length > MAX_RUNTIME_LINE_BYTES) {
      throw new BundleError('invalid_runtime_record', `${this.path} line ${this.line + 1} is longer than ${MAX_RUNTIME_LINE_BYTES / 1024} KiB.`);
    }
  }

  async end(): Promise<void> {
    this.pending += this.decode(new Uint8Array(0), false);
    if (this.pending !== '') await this.handle(this.pending);
    this.pending = '';
  }

  private decode(chunk: Uint8Array, stream: boolean): string {
    try {
      return this.decoder.decode(chunk, { stream });
    } catch {
      throw new BundleError('invalid_runtime_record', `${this.path} near line ${this.line + 1} is not UTF-8 text.`);
    }
  }

  private async handle(raw: string): Promise<void> {
    this.line++;
    if (raw.length > MAX_RUNTIME_LINE_BYTES) {
      throw new BundleError('invalid_runtime_record', `${this.path} line ${this.line} is longer than ${MAX_RUNTIME_LINE_BYTES / 1024} KiB.`);
    }
    const text = (this.line === 1 ? raw.replace(/^\uFEFF/, '') : raw).trim();
    if (text === '') return;
    await this.collector.observation(parseObservation(text, this.path, this.line), this.path, this.line);
  }
}

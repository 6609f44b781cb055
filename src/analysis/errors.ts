// The one error a bundle reader throws for bad input. The analysis consumer records
// `failureClass` as the survey's failure class and shows `message` to the person who uploaded.

/** Why a bundle could not be read; each names what the uploader has to fix. */
export const BUNDLE_FAILURE_CLASSES = [
  'unreadable',
  'not_cyclonedx',
  'corrupt_archive',
  'archive_limits',
  'invalid_manifest',
  'invalid_runtime_record',
  'empty',
] as const;

export type BundleFailureClass = (typeof BUNDLE_FAILURE_CLASSES)[number];

/** A bundle that cannot be analysed, with a message a person can act on. */
export class BundleError extends Error {
  override readonly name = 'BundleError';

  constructor(
    readonly failureClass: BundleFailureClass,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Wraps an error thrown by a consumer's sink so that the reader passes it through untouched
 * instead of mistaking it for a fault of the bundle.
 */
export class SinkFailure {
  constructor(readonly cause: unknown) {}
}

/**
 * Wraps an error of the stream the bundle is read from (an R2 read that failed midway): it says
 * nothing about the bundle, so it reaches the consumer as it was and the message can be retried.
 */
export class SourceFailure {
  constructor(readonly cause: unknown) {}
}

export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

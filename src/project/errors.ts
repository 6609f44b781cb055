// Errors across the Durable Object boundary. Workers RPC carries an Error's message but not its
// class or fields, so an ApiError travels as a tagged JSON message and is rebuilt on the other side.
// Failures of the object itself (unreachable, overloaded, reset) become the specification's 503 codes.
import { ApiError, type ErrorCode } from '../lib/errors';

const TAG = 'ApiError:';
/** The message of a `provisioning` error from an object never set up (the client then sets it up). */
export const UNPROVISIONED = 'The project\'s data has not been set up yet; retry in a few seconds.';

export function encodeError(error: unknown): Error {
  if (error instanceof ApiError) {
    return new Error(TAG + JSON.stringify({ code: error.code, message: error.message, options: error.options }));
  }
  return error instanceof Error ? error : new Error(String(error));
}

interface DurableObjectFailure extends Error {
  retryable?: boolean;
  overloaded?: boolean;
  remote?: boolean;
}

/** The ApiError an RPC failure stands for: a tagged one as it was; the object's own failures as 503s. */
export function decodeError(error: unknown): ApiError | null {
  if (error instanceof ApiError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const at = message.indexOf(TAG);
  if (at >= 0) {
    try {
      const { code, message: text, options } = JSON.parse(message.slice(at + TAG.length)) as { code: ErrorCode; message: string; options?: Record<string, never> };
      return new ApiError(code, text, options ?? {});
    } catch {
      // not ours after all
    }
  }
  const failure = error as DurableObjectFailure;
  if (failure?.overloaded) return new ApiError('try_again', 'The project\'s data is busy; retry in a few seconds.', { headers: { 'Retry-After': '2' } });
  if (failure?.retryable || /Durable Object|Network connection lost|reset because/i.test(message)) {
    return new ApiError('unavailable', 'The project\'s data is temporarily unreachable; retry in a few seconds.', { headers: { 'Retry-After': '2' } });
  }
  return null;
}

// Errors across the Durable Object boundary. A thrown error crosses Workers RPC as its message only
// (and workerd logs it as uncaught), so the object answers an ApiError as a plain failure value that
// the Worker side turns back into the same ApiError. Failures of the object itself (unreachable,
// overloaded, reset, silent past a deadline) become the specification's 502 and 503 codes.
import { ApiError, type ApiErrorOptions, type ErrorCode } from '../lib/errors';

/** The message of a `provisioning` error from an object never set up (the client then sets it up). */
export const UNPROVISIONED = 'The project\'s data has not been set up yet; retry in a few seconds.';

export interface RpcFailure {
  apiError: { code: ErrorCode; message: string; options: ApiErrorOptions };
}

/** The value an RPC method answers instead of throwing an ApiError. */
export function rpcFailure(error: ApiError): RpcFailure {
  return { apiError: { code: error.code, message: error.message, options: error.options } };
}

export function isRpcFailure(value: unknown): value is RpcFailure {
  return typeof value === 'object' && value !== null && 'apiError' in value && typeof (value as RpcFailure).apiError?.code === 'string';
}

export function fromRpcFailure(failure: RpcFailure): ApiError {
  return new ApiError(failure.apiError.code, failure.apiError.message, failure.apiError.options ?? {});
}

interface DurableObjectFailure extends Error {
  retryable?: boolean;
  overloaded?: boolean;
}

/** Retry-After on every answer that stands for the object being out of reach for a moment. */
const RETRY_SOON = { headers: { 'Retry-After': '2' } };

/** The runtime's words for a connection to an object that broke: the object was reset, or the link dropped. */
const LOST_CONNECTION = /Network connection lost|reset because|was reset|broken\.|disconnected|Durable Object (?:storage|reset)/i;

/** 503 `unavailable`: the object did not answer a call within its deadline. */
export function noAnswer(ms: number): ApiError {
  return new ApiError('unavailable', `The project's data did not answer within ${Math.round(ms / 1000)} s; retry in a few seconds.`, RETRY_SOON);
}

/** 503 `starting`: the object's start-up (its schema brought up to date) has not succeeded yet. */
export function starting(): ApiError {
  return new ApiError('starting', 'The project\'s data is starting up; retry in a few seconds.', RETRY_SOON);
}

/**
 * The answer an error of the object itself stands for, else null: overloaded 503 `try_again`; a call
 * whose connection broke before its answer (the object was reset, the link dropped: a JS RPC call is
 * sent as soon as it is made, so it had begun) 502 `bad_gateway`; any other error the runtime marks
 * retryable 503 `unavailable`.
 */
export function platformError(error: unknown): ApiError | null {
  if (error instanceof ApiError) return null;
  const failure = error as DurableObjectFailure;
  const message = error instanceof Error ? error.message : String(error);
  if (failure?.overloaded) return new ApiError('try_again', 'The project\'s data is busy; retry in a few seconds.', RETRY_SOON);
  if (LOST_CONNECTION.test(message)) {
    return new ApiError('bad_gateway', 'The connection to the project\'s data failed part way; retry in a few seconds.', RETRY_SOON);
  }
  if (failure?.retryable || /Durable Object/i.test(message)) {
    return new ApiError('unavailable', 'The project\'s data is temporarily unreachable; retry in a few seconds.', RETRY_SOON);
  }
  return null;
}

// Errors across the Durable Object boundary. A thrown error crosses Workers RPC as its message only
// (and workerd logs it as uncaught), so the object answers an ApiError as a plain failure value that
// the Worker side turns back into the same ApiError. Failures of the object itself (unreachable,
// overloaded, reset) become the specification's 503 codes.
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

/** The 503 an error of the object itself stands for (overloaded, unreachable), else null. */
export function platformError(error: unknown): ApiError | null {
  const failure = error as DurableObjectFailure;
  const message = error instanceof Error ? error.message : String(error);
  if (failure?.overloaded) return new ApiError('try_again', 'The project\'s data is busy; retry in a few seconds.', { headers: { 'Retry-After': '2' } });
  if (failure?.retryable || /Durable Object|Network connection lost|reset because/i.test(message)) {
    return new ApiError('unavailable', 'The project\'s data is temporarily unreachable; retry in a few seconds.', { headers: { 'Retry-After': '2' } });
  }
  return null;
}

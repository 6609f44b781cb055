// A deadline on one awaited call to another object. A Durable Object reset while its input gate was
// held (measured in workerd: `ctx.abort()` during `blockConcurrencyWhile`) leaves every call to it,
// waiting or new, without an answer or an error; without a deadline the request waits until its client
// gives up (Node's fetch after 300 s). The call that lost the race is still watched, so its late
// failure is logged, never left unhandled.

/** `promise`'s outcome, or `onTimeout()`'s error once `ms` passed without one. */
export function withDeadline<T>(promise: Promise<T>, ms: number, onTimeout: () => Error, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let late = false;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      late = true;
      reject(onTimeout());
    }, ms);
  });
  const watched = promise.then(
    (value) => value,
    (error: unknown) => {
      if (late) console.warn(JSON.stringify({ level: 'warn', message: `${what} failed after its deadline`, error: String(error) }));
      throw error;
    },
  );
  // The loser of the race must not reject unobserved.
  watched.catch(() => undefined);
  return Promise.race([watched, deadline]).finally(() => { if (timer !== null) clearTimeout(timer); });
}

/** A deadline setting in milliseconds (`PROJECT_CALL_DEADLINE_MS`), or `fallback` when unset or not a positive number. */
export function deadlineSetting(value: string | undefined, fallback: number): number {
  const configured = Number(value);
  return value !== undefined && Number.isFinite(configured) && configured > 0 ? configured : fallback;
}

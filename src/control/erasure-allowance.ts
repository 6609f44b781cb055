// What one cron run may spend on erasures (src/control/erasures.ts, src/control/people-retention.ts),
// and the count of what it spent: shared by both steps, so neither imports the other for it.
import { ERASE_SLICE_KEYS, R2_DELETE_BATCH } from '../project/erasure';

/** What one cron run may spend on erasures, next to the purge, the vulnerability refresh and the re-match queueing. */
export interface ErasureLimits {
  /** Calls to project objects (erasure slices, forgetting raters). */
  objectCalls: number;
  /** D1 statements (an invocation may run about 1,000, most of them the vulnerability refresh's). */
  queries: number;
  /** R2 objects one erasure slice deletes at most. */
  sliceKeys: number;
  /** Keys per R2 list and delete call (at most 1,000). */
  batchKeys: number;
  /** Activity rows per delete statement. */
  activityRows: number;
  /** People whose erasure starts per run. */
  people: number;
  /** Wall time the erasures may take (the refresh after them has 10 of the cron's 15 minutes). */
  timeMs: number;
}

export const ERASURE_LIMITS: ErasureLimits = {
  objectCalls: 100,
  queries: 60,
  sliceKeys: ERASE_SLICE_KEYS,
  batchKeys: R2_DELETE_BATCH,
  activityRows: 10_000,
  people: 100,
  timeMs: 3 * 60_000,
};

/** Counts what a run spends; a step that finds its allowance spent leaves the rest for the next run. */
export class RunAllowance {
  constructor(public calls: number, public queries: number, private readonly deadline = Infinity) {}

  call(): boolean {
    if (this.calls <= 0 || Date.now() > this.deadline) return false;
    this.calls -= 1;
    return true;
  }

  query(n = 1): boolean {
    if (this.queries < n) return false;
    this.queries -= n;
    return true;
  }
}

// Long work in a Worker shares its thread with every request the isolate answers: the queues' steps
// (analysis batches, report pages, rendering, scoring, re-matching) yield here, one rule for all.

/**
 * Lets everything else waiting for this thread run. A chain of awaited in-process calls (parsing, RPC
 * to the project object) never leaves the event loop idle, and workerd only looks for new
 * connections when nothing else is ready: a timer makes it look.
 */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Yields at most every YIELD_EVERY_MS of work: often enough to keep answering, rarely enough to cost nothing. */
const YIELD_EVERY_MS = 20;
let lastYield = 0;
export async function yieldNow(): Promise<void> {
  // Date.now() moves with I/O (each page read is a call to the project object).
  if (Date.now() - lastYield < YIELD_EVERY_MS) return;
  await yieldToEventLoop();
  lastYield = Date.now();
}

/** The survey's analysis step finished while the bundle was still being read (superseded): stop quietly. */
export class AnalysisAbandoned extends Error {}

// How much one call to or from the project object carries, whatever its rows hold. A batch is counted
// in items (STAGE_BATCH, FINDINGS_PAGE: 500), and one stored row may be up to 512 KiB of JSON
// (MAX_ITEM_JSON_BYTES): 500 such rows would be 256 MB in one call, twice an isolate's memory, and
// past the 32 MiB a Workers RPC message may carry. Bounding by size keeps a batch of large rows as
// small as a batch of small ones.

/**
 * The most characters the strings of one call should add up to. Typical rows (a component is 200 to
 * 400 characters) fill STAGE_BATCH items first, so the count of calls does not change for them:
 * measured, more and smaller calls cost more (each call's own work in the project object is
 * garbage too) and lowered no peak (docs/decisions.md, "Memory of a survey").
 */
export const RPC_PAYLOAD_CHARS = 1024 * 1024;

/** Characters a stored row (its data as JSON text) adds to a call: its strings, and a little for its structure. */
export function rowChars(row: { kind?: string; key: string; name: string; purl: string | null; version: string | null; data: string }): number {
  return 32 + (row.kind?.length ?? 0) + row.key.length + row.name.length + (row.purl?.length ?? 0) + (row.version?.length ?? 0) + row.data.length;
}

/**
 * Consecutive slices of `items` whose sizes add up to at most `max` each; an item larger than `max`
 * alone is a slice of its own. No items, no slices.
 */
export function slicesBySize<T>(items: T[], size: (item: T) => number, max = RPC_PAYLOAD_CHARS): T[][] {
  const slices: T[][] = [];
  let slice: T[] = [];
  let total = 0;
  for (const item of items) {
    const n = size(item);
    if (slice.length && total + n > max) {
      slices.push(slice);
      slice = [];
      total = 0;
    }
    slice.push(item);
    total += n;
  }
  if (slice.length) slices.push(slice);
  return slices;
}

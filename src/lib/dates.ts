/**
 * A date a record really states, as written: Go's zero time (`0001-01-01T00:00:00Z`, which OSV records
 * carry for "unknown") and anything before 1900 mean "not stated". Null for anything else.
 */
export const statedDate = (v: unknown): string | null => (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v) && v.slice(0, 10) >= '1900-01-01' ? v : null);

// How values read on a page: times in the person's timezone, counts with separators.
const formatters = new Map<string, Intl.DateTimeFormat>();

/** "28 Nov 2026, 14:05" in the zone (falls back to UTC for a zone the runtime does not know). */
export function formatTime(iso: string | null | undefined, timezone: string): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return formatterFor(timezone).format(date);
}

/** One formatter per zone the runtime knows (an unknown one, from a cookie, is UTC and is not kept). */
function formatterFor(timezone: string): Intl.DateTimeFormat {
  const known = formatters.get(timezone);
  if (known) return known;
  try {
    const formatter = new Intl.DateTimeFormat('en-GB', { timeZone: timezone, day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });
    formatters.set(timezone, formatter);
    return formatter;
  } catch {
    return formatterFor('UTC');
  }
}

export const formatCount = (n: number | null | undefined): string => (n == null ? '' : n.toLocaleString('en-US'));

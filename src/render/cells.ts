// Helpers the document renderers share: reading the model's ISO date strings, showing a cell as
// text, and turning the model's CSS colours into the bare hex the Office formats want.
import type { Cell, Column } from './model';

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** The instant an ISO `YYYY-MM-DD` or timestamp string names, or null. Dates and zoneless times are UTC. */
export function parseIsoDate(text: string): Date | null {
  const match = ISO_DATE.exec(text.trim());
  if (!match) return null;
  const [, year, month, day, hour, , , zone] = match;
  // Date.parse rolls 2026-02-30 over to March; a day the calendar lacks is not a date.
  const daysInMonth = new Date(Date.UTC(Number(year), Number(month), 0)).getUTCDate();
  if (Number(month) < 1 || Number(month) > 12 || Number(day) < 1 || Number(day) > daysInMonth) return null;
  // Date.parse reads a zoneless time as local time: pin it to UTC so every runtime agrees.
  const date = new Date(hour !== undefined && zone === undefined ? `${text.trim()}Z` : text.trim());
  return Number.isNaN(date.getTime()) ? null : date;
}

/** Whether the instant falls on a UTC midnight, i.e. is a date without a time of day. */
export function isWholeDay(date: Date): boolean {
  return date.getTime() % 86_400_000 === 0;
}

/** `2026-11-24`, or `2026-11-24 10:15 UTC` when the instant has a time of day. */
export function formatDate(date: Date): string {
  const iso = date.toISOString();
  return isWholeDay(date) ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** A cell as a reader sees it: numbers with thousands separators, dates as ISO days, empty as ''. */
export function cellText(value: Cell | undefined, column: Column): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? value.toLocaleString('en-US') : '';
  if (column.kind === 'date') {
    const date = parseIsoDate(value);
    if (date) return formatDate(date);
  }
  return value;
}

/** A number cell's value: numbers as they are, numeric strings parsed, anything else null. */
export function numericValue(value: Cell | undefined): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && /^-?\d+(?:\.\d+)?$/.test(value.trim())) return Number(value);
  return null;
}

/** `#c62828` or `#c28` as `C62828`; anything else as the fallback (a neutral grey). */
export function hexColor(css: string, fallback = '757575'): string {
  const hex = css.trim().replace(/^#/, '');
  if (/^[0-9a-f]{6}$/i.test(hex)) return hex.toUpperCase();
  if (/^[0-9a-f]{3}$/i.test(hex)) return [...hex].map((digit) => digit + digit).join('').toUpperCase();
  return fallback;
}

/** Black or white, whichever reads better on the background (WCAG relative luminance). */
export function textColorOn(backgroundHex: string): '000000' | 'FFFFFF' {
  const channel = (offset: number) => {
    const c = parseInt(backgroundHex.slice(offset, offset + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
  // The contrast against white and against black are equal at luminance 0.179.
  return luminance > 0.179 ? '000000' : 'FFFFFF';
}

/**
 * Column widths proportional to the hints over `total`, raised to their minimums where needed (the
 * others shrink in proportion); plainly proportional when the minimums do not fit together.
 */
export function fitWidths(hints: number[], minimums: number[], total: number): number[] {
  if (minimums.reduce((sum, minimum) => sum + minimum, 0) > total) minimums = minimums.map(() => 0);
  const raised = new Set<number>();
  for (;;) {
    const raisedWidth = [...raised].reduce((sum, index) => sum + minimums[index]!, 0);
    const freeHints = hints.reduce((sum, hint, index) => (raised.has(index) ? sum : sum + hint), 0);
    const widths = hints.map((hint, index) => (raised.has(index) ? minimums[index]! : ((total - raisedWidth) * hint) / freeHints));
    const tooNarrow = widths.findIndex((width, index) => !raised.has(index) && width < minimums[index]!);
    if (tooNarrow < 0) return widths;
    raised.add(tooNarrow);
  }
}

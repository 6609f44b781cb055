// The PDF's look, shared by its pages (src/render/pdf.ts): page geometry in points, colours, table
// text, and how numbers, timestamps and cells read.
import { rgb } from 'pdf-lib';
import type { RGB } from 'pdf-lib';
import type { Cell, Column } from './model';
import { PAGE_HEIGHT, PAGE_WIDTH } from './pdf-paint';

export const MARGIN = 40;
export const CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN;
export const RIGHT = PAGE_WIDTH - MARGIN;
/** Where content starts below the running header, and ends above the footer. */
export const BODY_TOP = 64;
export const BODY_BOTTOM = PAGE_HEIGHT - 48;

export const INK = rgb(0.12, 0.15, 0.19);
export const MUTED = rgb(0.4, 0.44, 0.5);
export const RULE = rgb(0.82, 0.85, 0.88);
export const ZEBRA = rgb(0.955, 0.963, 0.973);
export const CARD = rgb(0.965, 0.972, 0.98);
export const NAVY = rgb(0.09, 0.2, 0.31);
export const PALE = rgb(0.78, 0.84, 0.9);
export const WHITE = rgb(1, 1, 1);

const GROUPED = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/** From the top of a line box to the baseline of text of `size` centred in it. */
export function baselineOffset(size: number, lineHeight: number): number {
  return (lineHeight - size) / 2 + size * 0.8;
}

export function entriesLabel(count: number): string {
  return `${formatNumber(count)} ${count === 1 ? 'entry' : 'entries'}`;
}

export function formatNumber(value: number): string {
  return Number.isFinite(value) ? GROUPED.format(value) : String(value);
}

/** `24 November 2026, 10:15 UTC`, or the string itself when it is not a timestamp. */
export function formatTimestamp(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const day = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(date);
  return `${day}, ${date.toISOString().slice(11, 16)} UTC`;
}

export function cellText(value: Cell, column: Column): string {
  if (value === null) return '';
  if (typeof value === 'number') return column.kind === 'number' ? formatNumber(value) : String(value);
  // Timestamps in date columns read as UTC minutes; plain dates stay as they are.
  if (column.kind === 'date' && value.includes('T')) {
    const date = new Date(value);
    if (!Number.isNaN(date.getTime())) return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  }
  return value;
}

/** A CSS hex colour (`#c62828`, `#ccc`), grey when it is not one. */
export function parseColor(hex: string): RGB {
  const match = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(hex.trim());
  if (!match) return MUTED;
  const digits = match[1]!.length === 3 ? [...match[1]!].map((digit) => digit + digit).join('') : match[1]!;
  const channel = (offset: number) => Number.parseInt(digits.slice(offset, offset + 2), 16) / 255;
  return rgb(channel(0), channel(2), channel(4));
}

/** The colour darkened when it is too light for text on white (a yellow section's count). */
export function readable(color: RGB): RGB {
  const luminance = 0.2126 * color.red + 0.7152 * color.green + 0.0722 * color.blue;
  return luminance > 0.5 ? rgb(color.red * 0.6, color.green * 0.6, color.blue * 0.6) : color;
}

/** The colour mixed with white: `amount` 0 is white, 1 the colour. */
export function tint(color: RGB, amount: number): RGB {
  const mix = (channel: number) => 1 - (1 - channel) * amount;
  return rgb(mix(color.red), mix(color.green), mix(color.blue));
}

// The PDF's pages while they are laid out (src/render/pdf.ts): drawing operations per page, in top-down
// coordinates (y grows downwards from the page top), with the primitives every part of the document
// draws with. Painting them is src/render/pdf-paint.ts's.
import type { RGB } from 'pdf-lib';
import type { RenderModel } from './model';
import type { Op } from './pdf-paint';
import { BODY_BOTTOM, BODY_TOP, baselineOffset, CONTENT_WIDTH, formatTimestamp, INK, MARGIN, MUTED, RIGHT, RULE } from './pdf-style';
import type { Typesetter, Weight } from './pdf-type';

export interface TextStyle {
  size: number;
  weight?: Weight;
  color?: RGB;
  align?: 'left' | 'right';
}

/** An entry of the cover's contents list. */
export interface ContentsEntry {
  title: string;
  detail: string;
  color: RGB;
  /** The page (1-based, counting the cover) it starts on. */
  page: number;
}

export class PdfPages {
  /** Every page's operations; the cover is put in front once the other pages are known. */
  readonly pages: Op[][] = [];
  private ops: Op[] = [];
  /** The top of the free space on the current page. */
  y = BODY_TOP;
  readonly producedLabel: string;
  readonly contents: ContentsEntry[] = [];

  constructor(
    readonly type: Typesetter,
    readonly model: RenderModel,
  ) {
    this.producedLabel = formatTimestamp(model.producedAt);
  }

  /** Draws one line of text; returns its width. */
  text(line: string, x: number, baseline: number, style: TextStyle): number {
    const { size, weight = 'regular', color = INK, align = 'left' } = style;
    const runs = this.type.runs(line, weight);
    const width = runs.reduce((sum, run) => sum + run.width, 0) * size;
    if (runs.length) this.ops.push({ kind: 'text', x: align === 'right' ? x - width : x, y: baseline, size, runs, color });
    return width;
  }

  /** Draws wrapped lines from `top`; returns the height used. */
  paragraph(lines: string[], x: number, top: number, lineHeight: number, style: TextStyle): number {
    lines.forEach((line, index) => this.text(line, x, top + baselineOffset(style.size, lineHeight) + index * lineHeight, style));
    return lines.length * lineHeight;
  }

  rect(x: number, y: number, width: number, height: number, color: RGB): void {
    this.ops.push({ kind: 'rect', x, y, width, height, color });
  }

  line(x1: number, y1: number, x2: number, y2: number, thickness: number, color: RGB): void {
    this.ops.push({ kind: 'line', x1, y1, x2, y2, thickness, color });
  }

  newPage(): void {
    this.ops = [];
    this.pages.push(this.ops);
    this.y = BODY_TOP;
    // Running header: what the document is, and when it was produced.
    const produced = this.type.fit(`Produced ${this.producedLabel}`, CONTENT_WIDTH / 2, 7.5, 'regular');
    const producedWidth = this.text(produced, RIGHT, 30, { size: 7.5, color: MUTED, align: 'right' });
    this.text(this.type.fit(this.model.title, CONTENT_WIDTH - producedWidth - 24, 7.5, 'bold'), MARGIN, 30, { size: 7.5, weight: 'bold', color: MUTED });
    this.line(MARGIN, 38, RIGHT, 38, 0.5, RULE);
  }

  /** A page put in front of all the others, drawn on from now on (the cover, made last). */
  frontPage(): void {
    this.ops = [];
    this.pages.unshift(this.ops);
  }

  /** Draws on the page at `index` (0-based) again: footers, once the number of pages is known. */
  turnTo(index: number): void {
    this.ops = this.pages[index]!;
  }

  /** Starts a new page when fewer than `height` points are left. */
  ensure(height: number): void {
    if (this.y + height > BODY_BOTTOM) this.newPage();
  }

  /** The page number (1-based, the cover being page 1) of the current page. */
  get pageNumber(): number {
    return this.pages.length + 1;
  }
}

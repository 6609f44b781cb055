// Text for the PDF renderer: TrueType faces (metrics through fontkit), the choice of a face per
// character with fallback between fonts (pdf-lib's standard fonts are WinAnsi only), measuring, wrapping
// and fitting text. The layout (pdf.ts) sets every line through a Typesetter.
import fontkit from '@pdf-lib/fontkit';
import type { Font as FontkitFont } from '@pdf-lib/fontkit';

export type FontData = ArrayBuffer | Uint8Array;

/** TrueType fonts. A character is set in the first font of its weight's chain that has it. */
export interface PdfFonts {
  regular: FontData;
  bold: FontData;
  /** Fonts of other scripts, tried in order after the regular (or bold) font. */
  fallbacks: FontData[];
}

/** A cell shows at most this much text: hostile or huge values cannot make a row taller than a page. */
export const MAX_CELL_CHARS = 2400;
const REPLACEMENT = '\uFFFD';
const ELLIPSIS = '…';

// Fonts and text measurement.

export type Weight = 'regular' | 'bold';

/** One font: its metrics for layout, its bytes for embedding. */
export class Face {
  readonly font: FontkitFont;
  /** Fonts with substitutions (Arabic joining forms) are measured through their layout. */
  readonly shapes: boolean;
  private readonly advances = new Map<number, number>();

  constructor(readonly bytes: Uint8Array) {
    this.font = fontkit.create(bytes);
    this.shapes = this.font.availableFeatures.length > 0;
  }

  has(codePoint: number): boolean {
    return this.font.hasGlyphForCodePoint(codePoint);
  }

  /** The advance of a character, in ems. */
  advance(codePoint: number): number {
    let advance = this.advances.get(codePoint);
    if (advance === undefined) {
      advance = this.font.glyphForCodePoint(codePoint).advanceWidth / this.font.unitsPerEm;
      this.advances.set(codePoint, advance);
    }
    return advance;
  }

  /** The width of text set in this face, in ems: what pdf-lib draws (glyph advances after substitution). */
  width(text: string): number {
    let width = 0;
    if (this.shapes) {
      for (const glyph of this.font.layout(text).glyphs) width += glyph.advanceWidth;
      return width / this.font.unitsPerEm;
    }
    for (const char of text) width += this.advance(char.codePointAt(0)!);
    return width;
  }
}

/** Parsed once per isolate: the bundled font data lives as long as the module. */
const FACES = new WeakMap<FontData, Face>();
function faceOf(data: FontData): Face {
  let face = FACES.get(data);
  if (!face) {
    face = new Face(data instanceof Uint8Array ? data : new Uint8Array(data));
    FACES.set(data, face);
  }
  return face;
}

/** A piece of a line set in one face; width in ems. */
export interface Run {
  face: Face;
  text: string;
  width: number;
}

/** Combining marks and joiners belong with the character before them (shaping happens per face). */
const CLINGS = /^[\p{M}\u200C\u200D]$/u;
/** Invisible format characters and variation selectors: no font draws them, so they are left out. */
const INVISIBLE = /(?![\u200C\u200D])[\p{Cf}\p{Variation_Selector}]/gu;

/** Text as the layout reads it: line breaks as `\n`, tabs as spaces, invisible characters gone. */
export function clean(text: string): string {
  return text.replace(/\r\n?|[\u0085\u2028\u2029]/g, '\n').replace(/\t/g, ' ').replace(INVISIBLE, '');
}

/** Chooses a face for each character, measures, wraps and fits text. */
export class Typesetter {
  private readonly chains: Record<Weight, Face[]>;
  private readonly chosen: Record<Weight, Map<number, Face | null>> = { regular: new Map(), bold: new Map() };
  private readonly wordWidths: Record<Weight, Map<string, number>> = { regular: new Map(), bold: new Map() };

  constructor(fonts: PdfFonts) {
    const fallbacks = fonts.fallbacks.map(faceOf);
    const regular = faceOf(fonts.regular);
    this.chains = { regular: [regular, ...fallbacks], bold: [faceOf(fonts.bold), regular, ...fallbacks] };
  }

  private faceFor(codePoint: number, weight: Weight): Face | null {
    const chosen = this.chosen[weight];
    let face = chosen.get(codePoint);
    if (face === undefined) {
      face = this.chains[weight].find((candidate) => candidate.has(codePoint)) ?? null;
      chosen.set(codePoint, face);
    }
    return face;
  }

  /** Splits a line into runs of one face; a character no font has becomes a visible U+FFFD. */
  runs(line: string, weight: Weight): Run[] {
    const runs: Run[] = [];
    let current: Run | undefined;
    for (const char of line) {
      const codePoint = char.codePointAt(0)!;
      let face = current && CLINGS.test(char) && current.face.has(codePoint) ? current.face : this.faceFor(codePoint, weight);
      let piece = char;
      if (!face) {
        // The first face of each chain has U+FFFD.
        face = this.chains[weight][0]!;
        piece = REPLACEMENT;
      }
      if (current?.face === face) current.text += piece;
      else {
        current = { face, text: piece, width: 0 };
        runs.push(current);
      }
    }
    for (const run of runs) run.width = run.face.width(run.text);
    return runs;
  }

  /** The width of a line in ems. */
  private measure(line: string, weight: Weight): number {
    let width = 0;
    for (const char of line) {
      const codePoint = char.codePointAt(0)!;
      const face = this.faceFor(codePoint, weight);
      // Rare cases (shaping, marks, missing glyphs) go the exact way.
      if (!face || face.shapes || CLINGS.test(char)) return this.runs(line, weight).reduce((sum, run) => sum + run.width, 0);
      width += face.advance(codePoint);
    }
    return width;
  }

  private wordWidth(word: string, weight: Weight): number {
    const cache = this.wordWidths[weight];
    let width = cache.get(word);
    if (width === undefined) {
      width = this.measure(word, weight);
      cache.set(word, width);
    }
    return width;
  }

  width(line: string, size: number, weight: Weight): number {
    return this.measure(line, weight) * size;
  }

  /**
   * Wraps text into lines no wider than `maxWidth`: by words, breaking a word only when it is wider
   * than a line (after a `/`, `-`, `.` or similar where one is near the end). More than `maxLines`
   * lines end in an ellipsis.
   */
  wrap(text: string, maxWidth: number, size: number, weight: Weight, maxLines = Number.POSITIVE_INFINITY): string[] {
    const limit = maxWidth / size;
    const space = this.wordWidth(' ', weight);
    const truncated = text.length > MAX_CELL_CHARS;
    const lines: string[] = [];
    for (const paragraph of clean(clip(text)).trim().split('\n')) {
      let line = '';
      let lineWidth = 0;
      for (const word of paragraph.split(' ')) {
        if (lines.length > maxLines) break;
        if (!word) continue;
        const width = this.wordWidth(word, weight);
        if (line && lineWidth + space + width <= limit) {
          line += ` ${word}`;
          lineWidth += space + width;
          continue;
        }
        if (line) lines.push(line);
        if (width <= limit) {
          line = word;
          lineWidth = width;
          continue;
        }
        const pieces = this.breakWord(word, limit, weight);
        line = pieces.pop()!;
        lineWidth = this.measure(line, weight);
        lines.push(...pieces);
      }
      lines.push(line);
      if (lines.length > maxLines) break;
    }
    if (lines.length > maxLines || truncated) {
      const kept = lines.slice(0, maxLines);
      kept[kept.length - 1] = this.fit(`${kept.at(-1)!}${ELLIPSIS}`, maxWidth, size, weight);
      return kept;
    }
    return lines;
  }

  /** Cuts a word wider than a line into pieces that fit, keeping marks with their base character. */
  private breakWord(word: string, limit: number, weight: Weight): string[] {
    const pieces: string[] = [];
    let piece = '';
    let pieceWidth = 0;
    for (const cluster of word.match(/\P{M}\p{M}*|\p{M}+/gu) ?? []) {
      const width = this.measure(cluster, weight);
      if (piece && pieceWidth + width > limit) {
        const cut = lastBreak(piece);
        pieces.push(piece.slice(0, cut));
        piece = piece.slice(cut);
        pieceWidth = this.measure(piece, weight);
      }
      piece += cluster;
      pieceWidth += width;
    }
    pieces.push(piece);
    return pieces;
  }

  /** One line, shortened with an ellipsis when it is wider than `maxWidth`. */
  fit(text: string, maxWidth: number, size: number, weight: Weight): string {
    const line = clean(clip(text)).replace(/\n/g, ' ');
    if (this.width(line, size, weight) <= maxWidth) return line;
    const chars = Array.from(line);
    // Binary search for the longest prefix that fits with the ellipsis.
    let low = 0;
    let high = chars.length;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (this.width(chars.slice(0, middle).join('') + ELLIPSIS, size, weight) <= maxWidth) low = middle;
      else high = middle - 1;
    }
    return chars.slice(0, low).join('').trimEnd() + ELLIPSIS;
  }
}

/** At most MAX_CELL_CHARS of text, not cutting a surrogate pair in two. */
export function clip(text: string): string {
  if (text.length <= MAX_CELL_CHARS) return text;
  const end = /[\uD800-\uDBFF]/.test(text[MAX_CELL_CHARS - 1]!) ? MAX_CELL_CHARS - 1 : MAX_CELL_CHARS;
  return text.slice(0, end);
}

/**
 * Where to cut an overlong piece: after its last `/` in the second half (a path keeps its file name and
 * line whole), else after its last `- . _ : @ ? & = , ;` there, else at its end.
 */
function lastBreak(piece: string): number {
  for (const marks of ['/', '/-._:@?&=,;']) {
    for (let index = piece.length - 1; index > piece.length / 2; index--) {
      if (marks.includes(piece[index - 1]!)) return index;
    }
  }
  return piece.length;
}

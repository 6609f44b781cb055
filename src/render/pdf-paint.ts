// Painting the PDF renderer's pages: fonts embedded as subsets (only those used), then each page's
// drawing operations (pdf.ts lays them out) written as text into one content stream, compressed at
// once. pdf-lib's drawing methods would keep a dozen objects per text run until the document is
// saved: too much memory and time for thousands of rows.
import { PDFDocument } from 'pdf-lib';
import type { PDFFont, PDFPage, RGB } from 'pdf-lib';
import type { Face, Run } from './pdf-type';

/** A4 landscape, in points: wide tables wrap less. */
export const PAGE_WIDTH = 841.89;
export const PAGE_HEIGHT = 595.28;

// Drawing operations in top-down coordinates (y grows downwards from the page top).

export interface TextOp {
  kind: 'text';
  x: number;
  /** The baseline. */
  y: number;
  size: number;
  runs: Run[];
  color: RGB;
}
export interface RectOp {
  kind: 'rect';
  x: number;
  y: number;
  width: number;
  height: number;
  color: RGB;
}
export interface LineOp {
  kind: 'line';
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  thickness: number;
  color: RGB;
}
export type Op = TextOp | RectOp | LineOp;

/** A face embedded in the document, with the glyph codes of the characters drawn so far. */
class EmbeddedFace {
  private readonly codes = new Map<string, string>();

  constructor(
    readonly face: Face,
    readonly font: PDFFont,
    /** The font's number, for its resource names. */
    readonly index: number,
  ) {}

  /** The run's glyphs as hex codes; encoding also adds the glyphs to the font's subset. */
  encode(text: string): string {
    // A face without substitutions maps characters to glyphs one to one: encode each character once.
    if (this.face.shapes) return this.font.encodeText(text).asString();
    let hex = '';
    for (const char of text) {
      let code = this.codes.get(char);
      if (code === undefined) {
        code = this.font.encodeText(char).asString();
        this.codes.set(char, code);
      }
      hex += code;
    }
    return hex;
  }
}

export async function paint(doc: PDFDocument, pages: Op[][], reportId: string): Promise<void> {
  const embedded = new Map<Face, EmbeddedFace>();
  for (const ops of pages) {
    for (const op of ops) {
      if (op.kind !== 'text') continue;
      for (const { face } of op.runs) {
        if (embedded.has(face)) continue;
        const name = face.font.postscriptName ?? 'Font';
        // A subset's name carries a six-letter tag (ISO 32000 9.6.4); pdf-lib would only add a number.
        const customName = `${subsetTag(`${reportId}/${embedded.size}/${name}`)}+${name}`;
        embedded.set(face, new EmbeddedFace(face, await doc.embedFont(face.bytes, { subset: true, customName }), embedded.size));
      }
    }
  }
  for (const ops of pages) {
    const page = doc.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    const stream = doc.context.flateStream(contentStream(page, ops, embedded));
    page.node.addContentStream(doc.context.register(stream));
  }
}

/** A page's drawing operators (ISO 32000 8 and 9), in PDF coordinates (y up from the page bottom). */
function contentStream(page: PDFPage, ops: Op[], embedded: Map<Face, EmbeddedFace>): string {
  const out: string[] = [];
  const fontKeys = new Map<EmbeddedFace, string>();
  let fill = '';
  let stroke = '';
  let font = '';
  const setFill = (color: RGB) => {
    const operator = `${colorOperands(color)} rg`;
    if (operator !== fill) out.push((fill = operator));
  };
  for (const op of ops) {
    switch (op.kind) {
      case 'rect':
        setFill(op.color);
        out.push(`${num(op.x)} ${num(PAGE_HEIGHT - op.y - op.height)} ${num(op.width)} ${num(op.height)} re f`);
        break;
      case 'line': {
        const operator = `${colorOperands(op.color)} RG ${num(op.thickness)} w`;
        if (operator !== stroke) out.push((stroke = operator));
        out.push(`${num(op.x1)} ${num(PAGE_HEIGHT - op.y1)} m ${num(op.x2)} ${num(PAGE_HEIGHT - op.y2)} l S`);
        break;
      }
      case 'text': {
        setFill(op.color);
        let x = op.x;
        for (const run of op.runs) {
          const face = embedded.get(run.face)!;
          let key = fontKeys.get(face);
          if (key === undefined) {
            key = page.node.newFontDictionary(`F${face.index}`, face.font.ref).toString();
            fontKeys.set(face, key);
          }
          const fontOperator = `${key} ${num(op.size)} Tf`;
          if (fontOperator !== font) out.push((font = fontOperator));
          out.push(`BT ${num(x)} ${num(PAGE_HEIGHT - op.y)} Td <${face.encode(run.text)}> Tj ET`);
          x += run.width * op.size;
        }
      }
    }
  }
  return out.join('\n');
}

/** A number as a PDF operand: at most two decimals, no trailing zeros. */
function num(value: number): string {
  return value.toFixed(2).replace(/\.?0+$/, '');
}

function colorOperands(color: RGB): string {
  return `${color.red.toFixed(3)} ${color.green.toFixed(3)} ${color.blue.toFixed(3)}`;
}

/** Six uppercase letters derived from `seed` (FNV-1a), so the same report gets the same font names. */
function subsetTag(seed: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < seed.length; index++) hash = Math.imul(hash ^ seed.charCodeAt(index), 0x01000193) >>> 0;
  let tag = '';
  for (let index = 0; index < 6; index++) {
    tag += String.fromCharCode(65 + (hash % 26));
    hash = Math.floor(hash / 26);
  }
  return tag;
}

// The PDF renderer's fonts, bundled into the Worker (SOURCES.md says where they come from).
import type { PdfFonts } from '../pdf-type';
import arabic from './noto-sans-arabic.ttf';
import bold from './noto-sans-bold.ttf';
import devanagari from './noto-sans-devanagari.ttf';
import hebrew from './noto-sans-hebrew.ttf';
import regular from './noto-sans-regular.ttf';
import thai from './noto-sans-thai.ttf';
import cjk from './droid-sans-fallback-cjk.ttf';
import hangul from './hangul-square.ttf';

// The Worker gets ArrayBuffers (wrangler.toml's "Data" rule, fonts.d.ts); vite's client types, which
// some test files load, declare *.ttf imports as URL strings instead.
const data = (font: ArrayBuffer | string) => font as ArrayBuffer;

export const BUNDLED_FONTS: PdfFonts = {
  regular: data(regular),
  bold: data(bold),
  fallbacks: [arabic, hebrew, devanagari, thai, cjk, hangul].map(data),
};

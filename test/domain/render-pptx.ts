// The PPTX renderer (src/render/pptx.ts), read back as the zip of XML parts it is.
import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { ENTRIES_PER_SLIDE, PPTX_TEMPLATE, renderPptx } from '../../src/render/pptx';
import { sampleModel } from '../render-sample';

interface Deck {
  bytes: Uint8Array;
  /** The size of all parts uncompressed. */
  unpacked: number;
  /** The slides' XML in slide order. */
  slides: string[];
  charts: string[];
}

async function deckOf(model: ReturnType<typeof sampleModel>): Promise<Deck> {
  const bytes = await renderPptx(model);
  const parts = unzipSync(bytes);
  const numbered = (pattern: RegExp) =>
    Object.keys(parts)
      .filter((path) => pattern.test(path))
      .sort((a, b) => Number(/(\d+)\.xml$/.exec(a)![1]) - Number(/(\d+)\.xml$/.exec(b)![1]))
      .map((path) => strFromU8(parts[path]!));
  const unpacked = Object.values(parts).reduce((sum, part) => sum + part.byteLength, 0);
  return { bytes, unpacked, slides: numbered(/^ppt\/slides\/slide\d+\.xml$/), charts: numbered(/^ppt\/charts\/chart\d+\.xml$/) };
}

/** The text runs of a slide, unescaped, in order. */
function texts(xml: string): string[] {
  return [...xml.matchAll(/<a:t>([^<]*)<\/a:t>/g)].map(([, text]) =>
    text!.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&'),
  );
}

const small = sampleModel(60);
const deck = await deckOf(small);
/** The sample leaves some sections empty (yellow and green): they get no slide. */
const nonEmpty = (model: ReturnType<typeof sampleModel>) => model.sections.filter((section) => section.total > 0).length;

describe('the deck', () => {
  it('is a PPTX file: a title slide, a summary slide, one slide per non-empty section', async () => {
    expect(PPTX_TEMPLATE).toEqual({
      format: 'pptx',
      version: '2',
      library: 'pptxgenjs 4.0.1',
      contentType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    });
    expect(strFromU8(deck.bytes.subarray(0, 2))).toBe('PK');
    expect(nonEmpty(small)).toBe(5);
    expect(deck.slides).toHaveLength(2 + 5);

    const model = sampleModel(60);
    model.sections[0] = { ...model.sections[0]!, rows: [], total: 0 };
    expect((await deckOf(model)).slides).toHaveLength(2 + 4);
  });

  it('opens with the title, project, subject, survey tag and date', () => {
    const title = texts(deck.slides[0]!);
    expect(title).toContain(small.title);
    expect(title).toContain(small.project.name);
    expect(title).toContain(small.subject);
    expect(title.join('\n')).toContain(`Survey ${small.survey.tag} · ${small.survey.type}`);
    expect(title.join('\n')).toContain('Produced 2026-11-24 10:15 UTC');
    // The project name carries markup: escaped in the XML, not raw.
    expect(deck.slides[0]).toContain('Payments &lt;platform&gt; &amp; &quot;core&quot;');
  });

  it('sums up with the headline figures and a native bar chart, one bar per section in its colour, labelled', () => {
    const summary = texts(deck.slides[1]!);
    for (const figure of small.figures) {
      expect(summary).toContain(figure.label);
      expect(summary).toContain(typeof figure.value === 'number' ? figure.value.toLocaleString('en-US') : figure.value);
    }
    expect(summary).toContain('move first');
    expect(deck.slides[1]).toContain('graphicFrame');
    expect(deck.charts).toHaveLength(1);
    const chart = deck.charts[0]!;
    expect(chart).toContain('<c:barChart>');
    expect(chart).toContain('<c:barDir val="col"/>');
    expect(chart).toContain('<c:showVal val="1"/>');
    for (const section of small.sections) {
      expect(chart).toContain(`<c:v>${section.name}</c:v>`);
      expect(chart).toContain(`<a:srgbClr val="${section.color.slice(1).toUpperCase()}"/>`);
    }
  });
});

describe('a section slide', () => {
  const red = small.sections[0]!;
  const slide = deck.slides[2]!;

  it('shows the section title, description, count and its first entries in a table of at most four columns', () => {
    const shown = texts(slide);
    expect(shown).toContain(red.title);
    expect(shown).toContain(red.description);
    expect(shown).toContain(`${red.total} entries`);
    expect([...slide.matchAll(/<a:gridCol /g)]).toHaveLength(4);
    expect([...slide.matchAll(/<a:tr /g)]).toHaveLength(1 + ENTRIES_PER_SLIDE);
    // The name, the explanation, then the narrowest columns.
    for (const header of ['Name', 'Explanation', 'Deadline', 'Occurrences']) expect(shown).toContain(header);
    for (const header of ['Primitive', 'Component', 'Move to']) expect(shown).not.toContain(header);
    expect(shown).toContain(red.rows[1]!.name);
  });

  it('shortens long explanations and says how many more entries the XLSX and CSV hold', () => {
    const explanations = texts(slide).filter((text) => text.includes('quantum-vulnerable public-key'));
    expect(explanations.length).toBeGreaterThan(0);
    for (const text of explanations) {
      expect(text.endsWith('…')).toBe(true);
      expect(text.length).toBeLessThan(String(red.rows[0]!.explanation).length);
    }
    expect(texts(slide)).toContain(`${red.total - ENTRIES_PER_SLIDE} more in the XLSX/CSV export`);
  });

  it('escapes markup and drops control characters from entries', () => {
    // The first red entry is `<script>alert("x")</script>`; others carry tabs and line breaks.
    expect(slide).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(slide).not.toContain('<script>');
    for (const xml of deck.slides) expect(xml).not.toMatch(/[\x00-\x08\x0b\x0c\x0e-\x1f]/);
    const names = deck.slides.slice(2).flatMap(texts);
    expect(names).toContain('Tabbed');
    expect(names).toContain('Line break');
  });
});

describe('20,000 entries', () => {
  it('make the same short deck, compressed, pointing to the XLSX for the rest', async () => {
    const big = sampleModel(20_000);
    const started = performance.now();
    const large = await deckOf(big);
    const elapsed = performance.now() - started;
    console.log(`pptx, 20,000 entries: ${Math.round(elapsed)} ms, ${Math.round(large.bytes.byteLength / 1024)} KiB`);
    expect(large.slides).toHaveLength(2 + nonEmpty(big));
    expect(texts(large.slides[2]!)).toContain('9,992 more in the XLSX/CSV export');
    expect(large.bytes.byteLength).toBeLessThan(200 * 1024);
    // Deflated: stored parts would make the file about as large as its parts.
    expect(large.bytes.byteLength).toBeLessThan(large.unpacked / 4);
  });
});

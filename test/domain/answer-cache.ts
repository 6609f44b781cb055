// The project object's cache of compressed answers (src/project/answer-cache.ts), called as a plain class.
import { describe, expect, it } from 'vitest';
import { CompressedAnswers } from '../../src/project/answer-cache';

const inflate = async (bytes: Uint8Array) => new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).text();

describe('compressed answers', () => {
  it('compresses an answer once per key, and makes plain or unkept answers every time', async () => {
    const answers = new CompressedAnswers();
    let made = 0;
    const text = () => { made++; return JSON.stringify({ rows: Array.from({ length: 500 }, (_, i) => ({ rank: i + 1, item_key: `pkg:npm/p${i}` })) }); };
    const first = await answers.answer('a', text, { gzip: true });
    const again = await answers.answer('a', text, { gzip: true });
    expect(made).toBe(1);
    expect('gzip' in again && again.gzip).toBe('gzip' in first && first.gzip);
    expect(await inflate((first as { gzip: Uint8Array }).gzip)).toBe(text());
    made = 0;
    expect(await answers.answer('a', text, { gzip: false })).toEqual({ text: text() });
    expect(made).toBe(2);
    // Not kept (a deep page): plain text, made each time, nothing stored.
    made = 0;
    expect(await answers.answer('b', text, { gzip: true, keep: false })).toEqual({ text: text() });
    expect(await answers.answer('b', text, { gzip: true, keep: false })).toEqual({ text: text() });
    expect(made).toBe(4);
  });

  it('keeps at most its bytes, dropping the least recently used first', async () => {
    const noise = (seed: number) => Array.from({ length: 4000 }, (_, i) => ((i * 7919 + seed * 104729) % 65521).toString(36)).join(',');
    const size = (await new CompressedAnswers().answer('x', () => noise(0), { gzip: true }) as { gzip: Uint8Array }).gzip.byteLength;
    const answers = new CompressedAnswers(Math.floor(size * 2.5));
    const made: string[] = [];
    const ask = (key: string, seed: number) => answers.answer(key, () => { made.push(key); return noise(seed); }, { gzip: true });
    await ask('a', 1);
    await ask('b', 2);
    await ask('a', 1); // a is now the most recently used
    await ask('c', 3); // over the bound: b goes
    await ask('a', 1);
    await ask('c', 3);
    expect(made).toEqual(['a', 'b', 'c']);
    await ask('b', 2);
    expect(made).toEqual(['a', 'b', 'c', 'b']);
  });
});

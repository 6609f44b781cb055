// The writer of large documents (full reports, HTML and CSV exports) into R2, with real local R2:
// small writes become one object, and a document larger than a part goes up as a multipart upload
// whose parts (all but the last of the same size) join back into exactly what was written.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { BlobWriter } from '../../src/reports/blob-writer';

const PART = 5 * 1024 * 1024; // R2's smallest part

async function written(key: string, pieces: string[], partBytes = PART) {
  const writer = new BlobWriter(env.BUNDLES, key, 'text/plain; charset=utf-8', partBytes);
  for (const piece of pieces) await writer.write(piece);
  await writer.close();
  const object = await env.BUNDLES.get(key);
  return { writer, object: object!, text: await object!.text() };
}

describe('BlobWriter', () => {
  it('a small document is one object with its content type and size', async () => {
    const pieces = ['{"a":', '"héllo ✓ 暗号"', '}'];
    const { writer, object, text } = await written(`test/blob-writer/${crypto.randomUUID()}`, pieces);
    expect(text).toBe(pieces.join(''));
    expect(writer.size).toBe(new TextEncoder().encode(pieces.join('')).byteLength);
    expect(object.httpMetadata?.contentType).toBe('text/plain; charset=utf-8');
  });

  it('many small writes past one part: a multipart upload that joins back exactly', async () => {
    // 300,000 rows of about 46 bytes (14 MB, three parts), with multi-byte characters across part boundaries.
    const pieces = Array.from({ length: 300_000 }, (_, i) => `{"row":${i},"name":"component-${i}-ü✓"},`);
    const { writer, text } = await written(`test/blob-writer/${crypto.randomUUID()}`, pieces);
    const expected = pieces.join('');
    expect(writer.size).toBe(new TextEncoder().encode(expected).byteLength);
    expect(writer.size).toBeGreaterThan(2 * PART);
    expect(text.length).toBe(expected.length);
    expect(text === expected).toBe(true);
  });

  it('bytes (a streamed XLSX) and text in turn, past one part: joined back in the order written', async () => {
    const key = `test/blob-writer/${crypto.randomUUID()}`;
    const writer = new BlobWriter(env.BUNDLES, key, 'application/octet-stream', PART);
    const pieces: Uint8Array[] = [];
    // 48 pieces of 256 KiB of bytes, each followed by a little text: 12 MB, three parts.
    for (let i = 0; i < 48; i++) {
      const bytes = new Uint8Array(256 * 1024).fill(i);
      await writer.write(bytes);
      await writer.write(`piece ${i} ✓`);
      pieces.push(bytes, new TextEncoder().encode(`piece ${i} ✓`));
    }
    const expected = new Uint8Array(pieces.reduce((n, piece) => n + piece.byteLength, 0));
    pieces.reduce((offset, piece) => (expected.set(piece, offset), offset + piece.byteLength), 0);
    await writer.close();
    const written = new Uint8Array(await (await env.BUNDLES.get(key))!.arrayBuffer());
    expect(writer.size).toBe(expected.length);
    expect(writer.size).toBeGreaterThan(2 * PART);
    expect(written.byteLength).toBe(expected.length);
    expect(written.every((byte, index) => byte === expected[index])).toBe(true);
  });
});

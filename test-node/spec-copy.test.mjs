// The MCP server offers the interface specification as a resource from a copy bundled into the Worker
// (docs/posture-api.md); it must stay the specification itself.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const shared = path.resolve(root, '../shared/spec/posture-api.md');

describe('the bundled interface specification', () => {
  it.skipIf(!existsSync(shared))('equals ../shared/spec/posture-api.md', () => {
    expect(readFileSync(path.join(root, 'docs/posture-api.md'), 'utf8')).toBe(readFileSync(shared, 'utf8'));
  });
});

// Small storage tests of the platform (tokens and key rotation, the dev routes, headers, reads from
// the primary, the offline docs, the blob writer, error shapes, calls to project objects), in one file
// so that they share one workerd (each test file starts its own and evaluates the Worker's modules,
// several seconds each; docs/decisions.md, "The test suite's start-up"). Each part (test/platform/*.ts)
// runs in a describe of its own name, so its hooks stay its own, and keeps to what it creates. Run one
// with `npx vitest run test/platform.test.ts -t '<part>'`.
import { describe } from 'vitest';

describe('auth', async () => void (await import('./platform/auth')));
describe('key-rotation', async () => void (await import('./platform/key-rotation')));
describe('dev', async () => void (await import('./platform/dev')));
describe('headers-and-reads', async () => void (await import('./platform/headers-and-reads')));
describe('primary-reads', async () => void (await import('./platform/primary-reads')));
describe('docs-offline', async () => void (await import('./platform/docs-offline')));
describe('blob-writer', async () => void (await import('./platform/blob-writer')));
describe('errors', async () => void (await import('./platform/errors')));
describe('project-calls', async () => void (await import('./platform/project-calls')));

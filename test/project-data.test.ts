// A project's data (the analysis of documents and archives, jobs and their stream, the data plane's
// rules and its access rules, scoring refreshes, the store's limits), in one file so that they share one
// workerd (each test file starts its own and evaluates the Worker's modules, about 4 s of CPU each;
// docs/decisions.md, "The test suite's start-up"). Each part (test/project-data/*.ts) runs in a describe
// of its own name, so its hooks stay its own, and keeps to the tenants it creates. Run one with
// `npx vitest run test/project-data.test.ts -t '<part>'`.
import { describe } from 'vitest';

describe('analysis', async () => void (await import('./project-data/analysis')));
describe('jobs', async () => void (await import('./project-data/jobs')));
describe('data-plane-hardening', async () => void (await import('./project-data/data-plane-hardening')));
describe('access-hardening', async () => void (await import('./project-data/access-hardening')));
describe('scoring-refresh', async () => void (await import('./project-data/scoring-refresh')));
describe('store-limits', async () => void (await import('./project-data/store-limits')));

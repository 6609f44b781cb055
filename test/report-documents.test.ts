// A survey's reports and their documents (the cbom report, the dependency graph, rendered documents,
// reports too large to hold, search in a report), in one file so that they share one workerd (each test
// file starts its own and evaluates the Worker's modules, about 4 s of CPU each; docs/decisions.md,
// "The test suite's start-up"). Each part (test/report-documents/*.ts) runs in a describe of its own
// name, so its hooks stay its own, and keeps to the tenants it creates. report-search imports a
// vulnerability record into the control database: it runs last, so no other part's findings change.
// Run one with `npx vitest run test/report-documents.test.ts -t '<part>'`.
import { describe } from 'vitest';

describe('cbom-report', async () => void (await import('./report-documents/cbom-report')));
describe('dependency-graph', async () => void (await import('./report-documents/dependency-graph')));
describe('render-stream', async () => void (await import('./report-documents/render-stream')));
describe('documents', async () => void (await import('./report-documents/documents')));
describe('report-search', async () => void (await import('./report-documents/report-search')));

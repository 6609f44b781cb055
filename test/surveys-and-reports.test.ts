// Surveys and what they answer through the API (provisioning and jobs, replayed requests, the report
// endpoints, data health), in one file so that they share one workerd (each test file starts its own
// and evaluates the Worker's modules, about 4 s of CPU each; docs/decisions.md, "The test suite's
// start-up"). Each part (test/surveys-and-reports/*.ts) runs in a describe of its own name, so its hooks
// stay its own. Run one with `npx vitest run test/surveys-and-reports.test.ts -t '<part>'`.
import { describe } from 'vitest';

describe('surveys', async () => void (await import('./surveys-and-reports/surveys')));
describe('replays', async () => void (await import('./surveys-and-reports/replays')));
describe('reports', async () => void (await import('./surveys-and-reports/reports')));
describe('data-health', async () => void (await import('./surveys-and-reports/data-health')));

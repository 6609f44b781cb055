// The dashboard's pages, in one file so that they share one workerd (each test file starts its own and
// evaluates the Worker's modules, several seconds each; docs/decisions.md, "The test suite's start-up").
// Each part (test/dashboard-pages/*.ts) runs in a describe of its own name, so its hooks stay its own,
// and keeps to tenants it creates. Run one with `npx vitest run test/dashboard-pages.test.ts -t '<part>'`.
import { describe } from 'vitest';

describe('activity', async () => void (await import('./dashboard-pages/activity')));
describe('credentials', async () => void (await import('./dashboard-pages/credentials')));
describe('data-health', async () => void (await import('./dashboard-pages/data-health')));
describe('mcp', async () => void (await import('./dashboard-pages/mcp')));
describe('people', async () => void (await import('./dashboard-pages/people')));
describe('portfolios', async () => void (await import('./dashboard-pages/portfolios')));
describe('projects', async () => void (await import('./dashboard-pages/projects')));
describe('reports', async () => void (await import('./dashboard-pages/reports')));
describe('sign-in', async () => void (await import('./dashboard-pages/sign-in')));
describe('surveys', async () => void (await import('./dashboard-pages/surveys')));
describe('triage', async () => void (await import('./dashboard-pages/triage')));

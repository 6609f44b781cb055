// An organization's people and access (users, organizations, teams, credentials, the activity log, an
// assistant connecting as a person, roles and permissions), in one file so that they share one workerd (each test file starts
// its own and evaluates the Worker's modules, about 4 s of CPU each; docs/decisions.md, "The test
// suite's start-up"). Each part (test/organization/*.ts) runs in a describe of its own name, so its hooks
// stay its own, and keeps to the tenants it creates. Run one with
// `npx vitest run test/organization.test.ts -t '<part>'`.
import { describe } from 'vitest';

describe('users', async () => void (await import('./organization/users')));
describe('organizations', async () => void (await import('./organization/organizations')));
describe('teams', async () => void (await import('./organization/teams')));
describe('credentials', async () => void (await import('./organization/credentials')));
describe('activity', async () => void (await import('./organization/activity')));
describe('mcp-connect', async () => void (await import('./organization/mcp-connect')));
describe('roles-permissions', async () => void (await import('./organization/roles-permissions')));

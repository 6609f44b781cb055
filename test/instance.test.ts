// The instance as a whole (the first administrator of a closed deployment, the alarm's sweep of
// abandoned surveys, the scheduled retention purge and the access cache, the public routes' rate
// limits), in one file so that they share one workerd (each test file starts its own and evaluates the
// Worker's modules, about 4 s of CPU each; docs/decisions.md, "The test suite's start-up"). Each part
// (test/instance/*.ts) runs in a describe of its own name, so its hooks stay its own. bootstrap-admin
// needs a database with no organization yet: it runs first. Run one with
// `npx vitest run test/instance.test.ts -t '<part>'`.
import { describe } from 'vitest';

describe('bootstrap-admin', async () => void (await import('./instance/bootstrap-admin')));
describe('sweep', async () => void (await import('./instance/sweep')));
describe('scheduled-and-cache', async () => void (await import('./instance/scheduled-and-cache')));
describe('sign-in-limits', async () => void (await import('./instance/sign-in-limits')));

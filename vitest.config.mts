import { availableParallelism } from 'node:os';
import path from 'node:path';
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';

/**
 * The real queues deliver on their own (scoring, renders), and the pool imports the Worker's module for
 * each delivery, asking the Vitest process to resolve it. A delivery that starts as a file's
 * environment is torn down finds that channel closing: the pool's teardown, not a test's failure, and
 * every test of the file has passed by then (docs/decisions.md, "The test suite's start-up"). Only
 * that error is ignored (and printed); every other unhandled error still fails the run.
 */
function harnessTeardownRace(error: { name?: string; message?: string }): boolean {
  const race = error.name === 'EnvironmentTeardownError' && /^\[vitest-worker\]: Closing rpc while "resolve" was pending$/.test(error.message ?? '');
  if (race) console.warn(`vitest.config.mts: ignored the pool's teardown race (${error.message})`);
  return !race;
}

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, 'migrations'));
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: './wrangler.toml' },
        miniflare: {
          bindings: {
            TEST_MIGRATIONS: migrations,
            // Fixed test values; they take precedence over a local .dev.vars, so runs match CI.
            JWT_SECRET: 'test-signing-secret-0123456789abcdef0123456789abcdef',
            DEV_SECRET: 'test-dev-secret',
            // Tests call http://localhost (test/helpers.ts): the MCP server's OAuth issuer and resource live there.
            API_URL: 'http://localhost',
          },
          // A second control database standing in for a lagging read replica (local D1 has none):
          // test/replica.ts serves D1 sessions from it, as production may (test/primary-reads.test.ts).
          d1Databases: { REPLICA_DB: 'test-replica' },
        },
      }),
    ],
    test: {
      include: ['test/**/*.test.ts'],
      setupFiles: ['./test/setup.ts'],
      testTimeout: 20_000,
      // Hooks run real surveys (beforeAll) and wait for their renderings (afterAll): a loaded machine needs more than 10 s.
      hookTimeout: 60_000,
      // Vitest's default leaves a core to itself: on a 2-core machine that is one worker, every file in turn.
      maxWorkers: Math.max(2, availableParallelism() - 1),
      onUnhandledError: harnessTeardownRace,
    },
  };
});

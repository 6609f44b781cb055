import { builtinModules } from 'node:module';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './scripts/vitest-sequencer.mjs';
import RunWatchdog from './scripts/vitest-run-watchdog.mjs';

/**
 * The real queues deliver on their own (scoring, renders): a delivery that starts as a file's
 * environment is torn down finds the channel to the Vitest process closing, as it asks to resolve the
 * Worker's module or sends a console log. That is the pool's teardown, not a test's failure, and every
 * test of the file has passed by then (docs/decisions.md, "The test suite's start-up" and "The pool
 * keeps the Worker's module between calls"). Only those errors are ignored (and printed); every other
 * unhandled error still fails the run.
 */
function harnessTeardownRace(error: { name?: string; message?: string }): boolean {
  const race = error.name === 'EnvironmentTeardownError' && /^\[vitest-worker\]: Closing rpc while "(resolve|onUserConsoleLog)" was pending$/.test(error.message ?? '');
  if (race) console.warn(`vitest.config.mts: ignored the pool's teardown race (${error.message})`);
  return !race;
}

/**
 * The packages the Worker and the tests import, bundled once per run by Vite's dependency optimizer:
 * each test file's workerd then evaluates a few dozen bundled modules instead of several hundred
 * files of node_modules, each fetched from the Vitest process (docs/decisions.md, "The test suite's
 * start-up"). A package missing here still loads, file by file, as before.
 */
const PREBUNDLED = [
  'drizzle-orm', 'drizzle-orm/durable-sqlite', 'drizzle-orm/durable-sqlite/migrator', 'drizzle-orm/sqlite-core', 'drizzle-orm/d1', 'drizzle-orm/batch',
  'hono', 'hono/jsx', 'hono/jsx/jsx-runtime', 'hono/cookie', 'hono/http-exception', 'hono/cors', 'hono/accepts',
  '@hono/zod-openapi', 'zod', 'jose', 'fflate', 'pdf-lib', '@pdf-lib/fontkit', 'parse5', 'packageurl-js', 'exceljs', 'pptxgenjs',
  '@modelcontextprotocol/server', 'modern-tar', '@cloudflare/workers-oauth-provider', 'agents/mcp', 'ae-cvss-calculator',
  '@streamparser/json', '@scalar/hono-api-reference', '@renovatebot/pep440', '@cfworker/json-schema',
  'semver/functions/parse.js', 'semver/functions/compare.js', 'csv-parse/sync',
  '@modelcontextprotocol/sdk/client/index.js', '@modelcontextprotocol/sdk/client/streamableHttp.js', '@modelcontextprotocol/sdk/client/auth.js',
];

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, 'migrations'));
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: './wrangler.toml' },
        // The production entry with the render queue's deliveries held back (test/worker.ts).
        main: './test/worker.ts',
        miniflare: {
          bindings: {
            TEST_MIGRATIONS: migrations,
            // Fixed test values; they take precedence over a local .dev.vars, so runs match CI.
            JWT_SECRET: 'test-signing-secret-0123456789abcdef0123456789abcdef',
            DEV_SECRET: 'test-dev-secret',
            NOTIFY_KEY: 'test-notify-key-0123456789abcdef0123456789abcdef',
            // A receiver that answers too late is given up on after 3 s (10 s in production).
            NOTIFY_TIMEOUT_MS: '3000',
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
      // The webhook receiver the notification tests deliver to (a real HTTP server on 127.0.0.1).
      globalSetup: ['./test/receiver/global-setup.mjs'],
      testTimeout: 20_000,
      // Hooks run real surveys (beforeAll) and wait for their renderings (afterAll): a loaded machine needs more than 10 s.
      hookTimeout: 60_000,
      // Vitest's default leaves a core to itself: on a 2-core machine that is one worker, every file in turn.
      maxWorkers: Math.max(2, availableParallelism() - 1),
      onUnhandledError: harnessTeardownRace,
      // A run whose every file has reported but which never ends is ended (scripts/vitest-run-watchdog.mjs).
      reporters: ['default', new RunWatchdog()],
      // The longest files start first, on a fresh clone too (scripts/vitest-sequencer.mjs).
      sequence: { sequencer: LongestFirstSequencer },
      deps: {
        optimizer: {
          ssr: {
            enabled: true,
            include: PREBUNDLED,
            // Node's built-ins and the runtime's own modules stay imports (workerd provides them).
            rolldownOptions: { external: [...builtinModules, ...builtinModules.map((m) => `node:${m}`), /^cloudflare:/] },
          },
        },
      },
    },
  };
});

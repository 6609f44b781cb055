// Node-side tests (the upload CLI): plain Node, no workerd. Run: npx vitest run -c vitest.node.config.mts
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Apart from the workerd files' cache (their prebundled dependencies): `npm test` runs both configs at once.
  cacheDir: 'node_modules/.vite-node',
  test: {
    include: ['test-node/**/*.test.mjs'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Vitest's default leaves a core to itself: on a 2-core machine that is one worker, every file in turn.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});

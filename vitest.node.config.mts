// Node-side tests (the upload CLI): plain Node, no workerd. Run: npx vitest run -c vitest.node.config.mts
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test-node/**/*.test.mjs'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});

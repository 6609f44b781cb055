import type { D1Migration } from 'cloudflare:test';
import type { Env as WorkerEnv } from '../src/env';

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {
      TEST_MIGRATIONS: D1Migration[];
      /** A lagging copy of DB (test/replica.ts). */
      REPLICA_DB: D1Database;
    }
    interface GlobalProps {
      mainModule: typeof import('../src/index');
      durableNamespaces: 'ProjectObject' | 'AccessEpoch';
    }
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The port of the webhook receiver (test/receiver/global-setup.mjs). */
    receiverPort: number;
  }
}

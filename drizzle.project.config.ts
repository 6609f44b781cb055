import { defineConfig } from 'drizzle-kit';

// The project Durable Object's own SQLite migrations (applied by the object on first use).
export default defineConfig({
  dialect: 'sqlite',
  driver: 'durable-sqlite',
  schema: './src/project/schema.ts',
  out: './src/project/migrations',
});

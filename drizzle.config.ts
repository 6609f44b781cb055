import { defineConfig } from 'drizzle-kit';

// D1 migrations: flat NNNN_name.sql files that wrangler and readD1Migrations apply in order.
export default defineConfig({
  dialect: 'sqlite',
  schema: ['./src/control/schema.ts', './src/vulndb/schema.ts'],
  out: './migrations',
});

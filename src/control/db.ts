import { drizzle } from 'drizzle-orm/d1';
import * as schema from './schema';

export type ControlDb = ReturnType<typeof controlDb>;

/** The control-plane database (D1) through drizzle. Cheap to create per request. */
export const controlDb = (d1: D1Database) => drizzle(d1, { schema });

// The project Durable Object: one per project, holding the project's data plane in its own SQLite
// storage (ARCHITECTURE section 1). The data plane issue gives it its schema and RPC surface.
import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../env';

export class ProjectObject extends DurableObject<Env> {}

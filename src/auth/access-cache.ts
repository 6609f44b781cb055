// A read-through cache for the hot path of every request: the credential row, permissions, and
// read models of the control plane, kept in the Worker isolate and tagged with the organization's
// access epoch. The epoch lives in one Durable Object per organization (AccessEpoch); every
// successful change to an organization's control plane bumps it before the answer is sent, so no
// isolate anywhere serves a cached value across a change: a canceled credential still fails on its
// very next request. D1 stays the system of record; this only saves its round trips (a D1 query
// costs several times a Durable Object call). Entries also expire after a minute, so a change made
// outside the API (an operator's SQL) is seen within that time.
import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../env';
import { deadlineSetting, withDeadline } from '../lib/deadline';

declare module '../env' {
  interface Env {
    /** One access epoch per organization, named by its id. */
    ACCESS_EPOCH: DurableObjectNamespace<AccessEpoch>;
  }
}

const MAX_AGE_MS = 60_000;
const MAX_ENTRIES = 20_000;

/** The organization's access epoch: changes whenever its control plane changes. In memory only:
 * a new instance starts a new series, which also invalidates every cached value. */
export class AccessEpoch extends DurableObject<Env> {
  private readonly series = crypto.randomUUID();
  private counter = 0;

  current(): string {
    return `${this.series}:${this.counter}`;
  }

  bump(): string {
    this.counter++;
    return this.current();
  }
}

interface Entry {
  epoch: string;
  at: number;
  value: unknown;
}

// Module scope: shared by the requests one isolate serves. Map order gives a cheap LRU.
const entries = new Map<string, Entry>();

/**
 * How long a request waits for the epoch object: 2 s (at most the project call deadline). It holds one
 * counter in memory and answers in well under a millisecond; every request of the organization asks
 * it, so an object that does not answer must cost little: the request then reads D1 directly.
 */
const EPOCH_DEADLINE_MS = 2_000;

function epochCall(env: Env, orgId: string, call: (stub: DurableObjectStub<AccessEpoch>) => Promise<string>): Promise<string> {
  const ms = Math.min(EPOCH_DEADLINE_MS, deadlineSetting(env.PROJECT_CALL_DEADLINE_MS, EPOCH_DEADLINE_MS));
  const stub = env.ACCESS_EPOCH.get(env.ACCESS_EPOCH.idFromName(orgId));
  return withDeadline(Promise.resolve().then(() => call(stub)), ms, () => new Error(`the access epoch did not answer within ${ms} ms`), `access epoch ${orgId}`);
}

export class AccessCache {
  constructor(
    private readonly orgId: string,
    /** null when the epoch could not be read: then nothing is cached or served from cache. */
    private readonly epoch: string | null,
    /**
     * The control database's primary, which every load reads: a value cached under the epoch must
     * be at least as new as the change that set the epoch. A replica read just after a change may
     * not have it yet, and cached under the new epoch it would be served for up to MAX_AGE_MS.
     */
    private readonly primary: D1Database,
  ) {}

  /** The cached value for `key` in this organization, or what `load` reads from the primary (then cached). */
  async get<T>(key: string, load: (primary: D1Database) => Promise<T>): Promise<T> {
    if (this.epoch === null) return load(this.primary);
    const full = `${this.orgId}|${key}`;
    const now = Date.now();
    const hit = entries.get(full);
    if (hit && hit.epoch === this.epoch && now - hit.at < MAX_AGE_MS) {
      entries.delete(full);
      entries.set(full, hit);
      return hit.value as T;
    }
    // The value is kept once read, never the read in flight: a pending D1 read belongs to the request
    // that started it, and workerd refuses another request's awaiting it ("Cannot perform I/O on behalf
    // of a different request"). Concurrent misses each read; a failed read is not kept.
    const value = await load(this.primary);
    entries.set(full, { epoch: this.epoch, at: now, value });
    if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!);
    return value;
  }
}

/**
 * The cache of one organization for one request, loading from `primary` (the control database before
 * any read session is opened on it). Never fails: without an epoch it passes through.
 */
export async function openAccessCache(env: Env, orgId: string, primary: D1Database = env.DB): Promise<AccessCache> {
  try {
    return new AccessCache(orgId, await epochCall(env, orgId, (stub) => stub.current()), primary);
  } catch (error) {
    console.warn(JSON.stringify({ level: 'warn', message: 'access epoch unavailable; reading D1 directly', orgId, error: String(error) }));
    return new AccessCache(orgId, null, primary);
  }
}

/** Marks a change of the organization's control plane: every isolate reloads what it cached. */
export async function bumpAccessEpoch(env: Env, orgId: string): Promise<void> {
  try {
    await epochCall(env, orgId, (stub) => stub.bump());
  } catch (error) {
    // Cached values still expire within MAX_AGE_MS; say so loudly, this should not happen.
    console.error(JSON.stringify({ level: 'error', message: 'could not bump the access epoch', orgId, error: String(error) }));
  }
}

// D1 read replication through the Sessions API (ARCHITECTURE section 1; docs/deploy.md): once a
// request is authenticated, the handler's control-plane reads go through a D1 session. A read may be
// served by the nearest replica; a client that sends back the bookmark of its last answer
// (`X-D1-Bookmark`) reads at least what that answer saw, its own writes included. Changes start on the
// primary whatever bookmark is sent (the answer still carries one), so what they read before writing is
// current; the checks that decide whether a change is allowed read `primaryDb` itself. Credential and permission checks never use
// the session: they read the primary, so a canceled credential or a removed person is refused at once.
import type { Context } from 'hono';
import type { AppEnv } from '../lib/context';
import { invalidParameter } from '../lib/errors';

export const BOOKMARK_HEADER = 'X-D1-Bookmark';

// D1 bookmarks are dash-separated hexadecimal groups; anything else is a client's mistake, not a 500.
const BOOKMARK = /^[0-9a-f]{1,64}(-[0-9a-f]{1,64}){1,8}$/i;

/** Switches `c.env.DB` to a session for the rest of the request; answers a function that sets the answer's bookmark. */
export function openReadSession(c: Context<AppEnv>, write: boolean): () => void {
  const sent = c.req.header(BOOKMARK_HEADER);
  if (sent !== undefined && !BOOKMARK.test(sent)) {
    throw invalidParameter(BOOKMARK_HEADER, `${BOOKMARK_HEADER} must be a bookmark this service answered with.`);
  }
  // A change starts on the primary whatever bookmark is sent: what it reads before writing (the
  // escalation guard's grants, a name's uniqueness) is the current state, never a replica's older one.
  const session = c.env.DB.withSession(write ? 'first-primary' : sent ?? 'first-unconstrained');
  c.set('primaryDb', c.env.DB);
  // The handlers and domain functions read `c.env.DB`: the session serves them without each knowing.
  c.env = { ...c.env, DB: session as unknown as D1Database };
  return () => {
    const bookmark = session.getBookmark();
    if (bookmark) c.header(BOOKMARK_HEADER, bookmark);
  };
}

/** The control database's primary, for the checks that decide whether a change is allowed (never a replica's older state). */
export const primaryDb = (c: Context<AppEnv>): D1Database => c.var.primaryDb ?? c.env.DB;

import type { DashContext } from '../context';

/** A posted form's text fields, trimmed. */
export async function formOf(c: DashContext): Promise<Record<string, string>> {
  const body = await c.req.parseBody().catch(() => ({}));
  return Object.fromEntries(Object.entries(body).filter((e): e is [string, string] => typeof e[1] === 'string').map(([k, v]) => [k, v.trim()]));
}


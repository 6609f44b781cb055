// What the People pages read from the API (spec 2 "Team, team member, role", 4.3, 4.4, 4.5, 4.15).
export interface Member { id: string; email: string; name: string }
export interface Role { id: string; name: string; systemRole: boolean; permissions: string[] }
export interface TeamSummary { id: string; name: string; allProjects: boolean; memberCount: number; projectCount?: number; roles: string[] }
export interface Team {
  id: string; name: string; allProjects: boolean; memberCount: number; projectCount?: number; builtIn: boolean;
  members: Member[]; projects: { id: string; name: string }[]; roles: Role[];
}
export interface Permissions { orgPermissions: string[]; projectPermissions: Record<string, string[]> }
export interface InviteResult { ok: true; message: string; status?: 'already_exists'; userId: string; emailSent: boolean }

/** Form errors by field name, shown beside their field. */
export type Errors = Partial<Record<string, string>>;

/** A posted form: single values trimmed, and every value of a repeated name (checkboxes). */
export interface Posted {
  one: (name: string) => string;
  many: (name: string) => string[];
}

export const PAGE_SIZE = 100;

/** One page of at most PAGE_SIZE, the page number kept in range. */
export function pageOf<T>(rows: T[], page: number) {
  const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
  const at = Math.min(Math.max(1, Math.floor(page) || 1), pages);
  return { rows: rows.slice((at - 1) * PAGE_SIZE, at * PAGE_SIZE), page: at, pages, total: rows.length };
}

/** Which field an API 400 is about ("Invalid request body: teamIds: …"), else `fallback`. */
export function fieldOf(message: string, fields: Record<string, RegExp>, fallback: string): string {
  for (const [field, pattern] of Object.entries(fields)) if (pattern.test(message)) return field;
  return fallback;
}

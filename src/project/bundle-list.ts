// The project's bundles, newest first (spec 4.7 rule 5).
import { and, asc, desc, eq, gt, lt, or, sql, type SQL } from 'drizzle-orm';
import { invalidParameter } from '../lib/errors';
import type { ProjectState } from './state';
import { bundles } from './schema';

export interface BundleQuery {
  limit: number;
  after?: string;
  before?: string;
}

export interface BundleAnswer {
  id: string;
  sha256: string;
  mime_type: string;
  comment: string | null;
  uploaded_at: string;
  size_bytes: number;
  survey_id: string;
}

export interface BundlePage {
  bundles: BundleAnswer[];
  pagination: { firstId: string | null; lastId: string | null; hasMore: boolean; total: number };
}

/** Bundles newest first, keyset-paged by (uploaded_at, id): `after` goes older, `before` newer. */
export function listBundles(state: ProjectState, query: BundleQuery): BundlePage {
  const { db } = state;
  if (query.after && query.before) throw invalidParameter('before', 'Pass after or before, never both.');
  const total = db.select({ n: sql<number>`count(*)` }).from(bundles).get()!.n;
  const cursorId = query.after ?? query.before;
  const older = !query.before;
  let beyond: SQL | undefined;
  if (cursorId) {
    const cursor = db.select({ uploadedAt: bundles.uploadedAt, id: bundles.id }).from(bundles).where(eq(bundles.id, cursorId)).get();
    if (!cursor) throw invalidParameter(query.after ? 'after' : 'before', 'The cursor names no bundle.');
    beyond = older
      ? or(lt(bundles.uploadedAt, cursor.uploadedAt), and(eq(bundles.uploadedAt, cursor.uploadedAt), lt(bundles.id, cursor.id)))
      : or(gt(bundles.uploadedAt, cursor.uploadedAt), and(eq(bundles.uploadedAt, cursor.uploadedAt), gt(bundles.id, cursor.id)));
  }
  const order = older ? [desc(bundles.uploadedAt), desc(bundles.id)] : [asc(bundles.uploadedAt), asc(bundles.id)];
  const rows = db.select().from(bundles).where(beyond).orderBy(...order).limit(query.limit + 1).all();
  const hasMore = rows.length > query.limit;
  const kept = rows.slice(0, query.limit);
  if (!older) kept.reverse();
  const answers = kept.map((b) => ({
    id: b.id, sha256: b.sha256, mime_type: b.mimeType, comment: b.comment, uploaded_at: b.uploadedAt, size_bytes: b.sizeBytes, survey_id: b.surveyId,
  }));
  return { bundles: answers, pagination: { firstId: answers[0]?.id ?? null, lastId: answers.at(-1)?.id ?? null, hasMore, total } };
}

// Cursor pages (ARCHITECTURE rule 8): newest first, keyed by the K-sortable id, so a page
// query is an index range scan and rows created meanwhile never shift later pages.
import type { SelectQueryBuilder } from 'kysely';

export interface PageInput {
  limit: number;
  startingAfter?: string | undefined;
}

/**
 * Runs a filtered list query as one page: rows older than the cursor, newest first, and
 * one row more than the limit so that toPage() can tell whether another page exists.
 */
export function fetchPage<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>, page: PageInput): Promise<O[]> {
  // Every listed table's key is `id`; Kysely cannot express "has an id column" generically.
  let q = query as unknown as SelectQueryBuilder<any, any, O>;
  if (page.startingAfter) q = q.where('id', '<', page.startingAfter);
  return q.orderBy('id', 'desc').limit(page.limit + 1).execute();
}
export interface PageResult<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** `rows` were fetched with limit + 1 to learn whether another page exists. */
export function toPage<R extends { id: string }, T>(rows: R[], limit: number, present: (row: R) => T): PageResult<T> {
  const hasMore = rows.length > limit;
  const slice = hasMore ? rows.slice(0, limit) : rows;
  return {
    object: 'list',
    data: slice.map(present),
    has_more: hasMore,
    next_cursor: hasMore ? slice[slice.length - 1]!.id : null,
  };
}

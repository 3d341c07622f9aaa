// Cursor pages (ARCHITECTURE rule 8): newest first, keyed by the K-sortable id, so a page
// query is an index range scan and rows created meanwhile never shift later pages.
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

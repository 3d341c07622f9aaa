// Percentiles computed the same way on both engines: nearest rank (the smallest value with at
// least p% of the values at or below it). SQLite has no percentile_cont, and an interpolated
// percentile would differ between engines; nearest rank is exact, integer, and checkable by hand.
//
// The values are read once (an index-only range scan on the hot paths) and ranked here, not
// with one SQL window per partition: each window is a sort of every value in the window, so a
// grouped query (four partitions: bucket and group, group, bucket, all) sorted a month's 71,500
// message delivery times four times, 480 ms of CPU on SQLite and as much on a PostgreSQL
// backend (docs/benchmarks.md). Ranking them here costs one sort per partition of plain numbers.
// The database hands each bucket and group's values over as one comma-separated string: a row
// per value cost the driver more CPU (decoding 71,500 rows) than all the ranking does.
import { PostgresAdapter, sql, type Kysely, type SelectQueryBuilder } from 'kysely';

/** What a percentile is computed over: each bucket and group, each group, each bucket, or everything. */
export type Partition = 'bucket_group' | 'group' | 'bucket' | 'all';

export interface PercentileRow {
  partition: Partition;
  b: string;
  g: string;
  p: number;
  v: number;
}

/** The nearest rank of percentile p among n values: ceil(p * n / 100). */
function rank(p: number, n: number): number {
  return Math.floor((p * n + 99) / 100);
}

interface Cell {
  b: string;
  g: string;
  values: number[];
}

/** Which cells a partition puts together, and the bucket and group its answer is for. */
const PARTITION_OF: Record<Partition, (cell: Cell) => { key: string; b: string; g: string }> = {
  bucket_group: (c) => ({ key: `${c.b}\u0000${c.g}`, b: c.b, g: c.g }),
  group: (c) => ({ key: c.g, b: '', g: c.g }),
  bucket: (c) => ({ key: c.b, b: c.b, g: '' }),
  all: () => ({ key: '', b: '', g: '' }),
};

/**
 * `source` selects `b` (bucket key), `g` (group, '' without one) and `v` (the value, never
 * null) for every row to rank. Answers the value at each percentile in `ps` (whole numbers,
 * 1 to 100) for each partition asked for, from one read of the source (no sort in SQL).
 */
export async function percentiles(
  db: Kysely<any>,
  source: SelectQueryBuilder<any, any, { b: string; g: string; v: number }>,
  ps: readonly number[],
  partitions: readonly Partition[],
): Promise<PercentileRow[]> {
  // The finest partition (bucket and group) holds every value once; coarser ones join its cells.
  const joined = db.getExecutor().adapter instanceof PostgresAdapter ? sql<string>`string_agg(v::text, ',')` : sql<string>`group_concat(v, ',')`;
  const rows = await db.selectFrom(source.as('x')).select(['b', 'g', joined.as('vs')]).groupBy(['b', 'g'])
    .execute() as Array<{ b: string; g: string; vs: string }>;
  const cells: Cell[] = rows.map((row) => ({ b: String(row.b), g: String(row.g), values: row.vs.split(',').map(Number) }));
  const out: PercentileRow[] = [];
  for (const partition of partitions) {
    const joined = new Map<string, { b: string; g: string; cells: Cell[] }>();
    for (const cell of cells) {
      const { key, b, g } = PARTITION_OF[partition](cell);
      const entry = joined.get(key);
      if (entry) entry.cells.push(cell);
      else joined.set(key, { b, g, cells: [cell] });
    }
    for (const { b, g, cells: members } of joined.values()) {
      const sorted = sortedValues(members);
      for (const p of ps) out.push({ partition, b, g, p, v: sorted[rank(p, sorted.length) - 1]! });
    }
  }
  return out;
}

/** The cells' values in ascending numeric order (a typed array sorts numbers, not strings). */
function sortedValues(cells: readonly Cell[]): Float64Array {
  const sorted = new Float64Array(cells.reduce((n, c) => n + c.values.length, 0));
  let at = 0;
  for (const cell of cells) {
    sorted.set(cell.values, at);
    at += cell.values.length;
  }
  return sorted.sort();
}

// Folds grouped SQL rows into an analytics answer: every bucket of the window (empty ones
// with zeros), optional groups inside each bucket and in the totals, and percentiles put
// where their partition belongs. Each figure (calls, messages, webhooks, AI) brings its own
// accumulator and how to render it.
import type { Window } from './range.ts';
import type { Kysely, SelectQueryBuilder } from 'kysely';
import { percentiles, type PercentileRow } from './percentiles.ts';

export function ratio(part: number, whole: number): number | null {
  return whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000;
}

export function zeros<K extends string>(keys: readonly K[]): Record<K, number> {
  return Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
}

export function bump(map: Record<string, number>, key: string | null, by: number): void {
  if (key === null) return;
  map[key] = (map[key] ?? 0) + by;
}

/** Buckets in window order, each with its groups in order of first appearance by value. */
export class Folder<Acc> {
  private readonly buckets = new Map<string, { acc: Acc; groups: Map<string, Acc> }>();
  readonly totals: { acc: Acc; groups: Map<string, Acc> };
  constructor(private readonly window: Window, private readonly fresh: () => Acc) {
    for (const b of window.buckets) this.buckets.set(b.key, { acc: fresh(), groups: new Map() });
    this.totals = { acc: fresh(), groups: new Map() };
  }
  /** The accumulators a row adds to: its bucket, its bucket's group, the totals and the totals' group. */
  targets(bucketKey: string, group: string | null): Acc[] {
    const bucket = this.buckets.get(bucketKey);
    if (!bucket) return []; // outside the window: cannot happen with the WHERE clause, but never count it
    const out = [bucket.acc, this.totals.acc];
    if (group !== null) out.push(this.group(bucket.groups, group), this.group(this.totals.groups, group));
    return out;
  }
  /**
   * Ranks `source`'s values (percentiles.ts) for every bucket and the totals, and for their
   * groups when the answer is grouped, and hands each accumulator its value at each of `ps`.
   */
  async addPercentiles(
    db: Kysely<any>,
    source: SelectQueryBuilder<any, any, { b: string; g: string; v: number }>,
    ps: readonly number[],
    grouped: boolean,
    set: (acc: Acc, p: number, v: number) => void,
  ): Promise<void> {
    const partitions = grouped ? ['bucket_group', 'group', 'bucket', 'all'] as const : ['bucket', 'all'] as const;
    for (const row of await percentiles(db, source, ps, partitions)) {
      const acc = this.percentileTarget(row);
      if (acc) set(acc, row.p, row.v);
    }
  }
  /** The accumulator a percentile of one partition belongs to. */
  private percentileTarget(row: PercentileRow): Acc | undefined {
    switch (row.partition) {
      case 'bucket_group': return this.buckets.get(row.b)?.groups.get(row.g);
      case 'bucket': return this.buckets.get(row.b)?.acc;
      case 'group': return this.totals.groups.get(row.g);
      case 'all': return this.totals.acc;
    }
  }
  private group(groups: Map<string, Acc>, value: string): Acc {
    let acc = groups.get(value);
    if (!acc) groups.set(value, (acc = this.fresh()));
    return acc;
  }
  render<Out>(grouped: boolean, out: (acc: Acc) => Out): { totals: Out & { groups?: Array<{ value: string } & Out> }; data: Array<{ start: string; end: string } & Out & { groups?: Array<{ value: string } & Out> }> } {
    const groupsOf = (groups: Map<string, Acc>) =>
      [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([value, acc]) => ({ value, ...out(acc) }));
    type WithGroups<T> = T & { groups?: Array<{ value: string } & Out> };
    const withGroups = <T>(base: T, groups: Map<string, Acc>): WithGroups<T> => (grouped ? { ...base, groups: groupsOf(groups) } : base as WithGroups<T>);
    return {
      totals: withGroups(out(this.totals.acc), this.totals.groups),
      data: this.window.buckets.map((b) => {
        const bucket = this.buckets.get(b.key)!;
        return withGroups({ start: b.start, end: b.end, ...out(bucket.acc) }, bucket.groups);
      }),
    };
  }
}

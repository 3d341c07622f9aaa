// GET /v1/analytics/queues: the callers that joined a queue in each bucket, by how their wait
// ended (answered: taken out and bridged; abandoned: hung up while waiting; timed out; still
// waiting), how long they waited (nearest-rank p50/p95 and the longest, over the waits that
// ended), per queue with group_by=queue. One grouped scan of the queue stays' (account_id,
// mode, enqueued_at) index range, like every figure; the waits are ranked in SQL.
import { sql, type Kysely } from 'kysely';
import type { Mode } from '../../store/platform-tables.ts';
import { BUCKET_KEY_LENGTH, type Window } from './range.ts';
import { Folder, bump, ratio } from './folder.ts';

export type QueueGroupBy = 'queue';

export interface QueueFilter {
  queueId: string | undefined;
  groupBy: QueueGroupBy | undefined;
}

interface QueueAcc {
  entered: number;
  waiting: number;
  ended: number;
  by_result: Record<string, number>;
  longest: number | null;
  p50: number | null;
  p95: number | null;
}

export async function queueAnalytics(db: Kysely<any>, accountId: string, mode: Mode, window: Window, filter: QueueFilter) {
  const scope = () => {
    let q = db.selectFrom('queue_members')
      .where('account_id', '=', accountId).where('mode', '=', mode)
      .where('enqueued_at', '>=', window.start).where('enqueued_at', '<', window.end);
    if (filter.queueId !== undefined) q = q.where('queue_id', '=', filter.queueId);
    return q;
  };
  const bucket = sql<string>`substr(enqueued_at, 1, ${sql.lit(BUCKET_KEY_LENGTH[window.interval])})`;
  const group = filter.groupBy === 'queue' ? sql<string>`queue_id` : sql<string>`''`;
  // A stay still in the queue (or bridged right now) has no reason yet; one that ended has its reason and wait.
  const rows = await scope()
    .select([
      bucket.as('b'),
      group.as('g'),
      'reason',
      sql<number>`count(*)`.as('n'),
      sql<number>`sum(case when status in ('waiting', 'reserved') then 1 else 0 end)`.as('waiting'),
      sql<number | null>`max(wait_seconds)`.as('longest'),
    ])
    .groupBy([sql`b`, sql`g`, 'reason'])
    .execute() as Array<{ b: string; g: string; reason: string | null; n: number; waiting: number; longest: number | null }>;

  const folder = new Folder<QueueAcc>(window, () => ({ entered: 0, waiting: 0, ended: 0, by_result: {}, longest: null, p50: null, p95: null }));
  for (const row of rows) {
    for (const acc of folder.targets(row.b, filter.groupBy ? String(row.g) : null)) {
      const n = Number(row.n);
      acc.entered += n;
      acc.waiting += Number(row.waiting);
      if (row.reason !== null) acc.ended += n;
      bump(acc.by_result, row.reason, n);
      if (row.longest !== null) acc.longest = Math.max(acc.longest ?? 0, Number(row.longest));
    }
  }

  const waits = scope().where('wait_seconds', 'is not', null).where('reason', 'is not', null)
    .select([bucket.as('b'), group.as('g'), sql<number>`wait_seconds`.as('v')]);
  await folder.addPercentiles(db, waits as any, [50, 95], Boolean(filter.groupBy), (acc, p, v) => {
    if (p === 50) acc.p50 = v;
    else acc.p95 = v;
  });

  return {
    object: 'queue_analytics' as const,
    mode,
    interval: window.interval,
    start: window.start,
    end: window.end,
    group_by: filter.groupBy ?? null,
    queue_id: filter.queueId ?? null,
    ...folder.render(filter.groupBy !== undefined, (acc) => {
      const answered = acc.by_result.bridged ?? 0;
      return {
        entered: acc.entered,
        answered,
        abandoned: acc.by_result.hangup ?? 0,
        timed_out: acc.by_result.timeout ?? 0,
        waiting: acc.waiting,
        answer_rate: ratio(answered, acc.ended),
        wait_seconds: { p50: acc.p50, p95: acc.p95 },
        longest_wait_seconds: acc.longest,
        by_result: acc.by_result,
      };
    }),
  };
}

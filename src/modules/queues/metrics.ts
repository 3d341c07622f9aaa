// switchboard_queue_callers_waiting and switchboard_queue_longest_wait_seconds, read from the
// queue stays when scraped: a caller waits on whichever node holds its call, so the store is
// the one place that knows, and nothing on the enqueue or dequeue path keeps a count. The
// query repeats the predicate of the partial index queue_members_in_queue (migration 0033)
// term for term, so both engines answer from that small index alone.
import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../store/tables.ts';
import type { Clock } from '../../platform/clock.ts';
import { queueCallersWaiting, queueLongestWaitSeconds } from '../../platform/metrics.ts';
import type { ScrapeCollector } from '../../platform/metrics-endpoint.ts';

export function queueGauges(db: Kysely<Tables>, clock: Clock): ScrapeCollector {
  return {
    name: 'queues',
    async collect() {
      const rows = await db.selectFrom('queue_members')
        .select(['mode', (eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.min('enqueued_at').as('oldest')])
        .where(sql<boolean>`status in ('waiting', 'reserved')`)
        .groupBy('mode')
        .execute();
      const now = clock.now().getTime();
      for (const mode of ['sandbox', 'live'] as const) {
        const row = rows.find((r) => r.mode === mode);
        queueCallersWaiting.set({ mode }, row ? Number(row.n) : 0);
        queueLongestWaitSeconds.set({ mode }, row?.oldest ? Math.max(0, (now - Date.parse(String(row.oldest))) / 1000) : 0);
      }
    },
  };
}

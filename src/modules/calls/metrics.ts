// switchboard_calls_active, read from the calls table when scraped: a call holds a line from
// creation until it ends, on whichever node, so the store is the one place that knows. The
// query matches the partial index calls_active (migration 0026) term for term, literals
// included: that is what lets SQLite and PostgreSQL answer from the index alone.
import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../store/tables.ts';
import type { Trx } from '../../store/transaction.ts';
import { callsActive, callsTotal } from '../../platform/metrics.ts';
import type { CallRow } from './tables.ts';
import type { ScrapeCollector } from '../../platform/metrics-endpoint.ts';

export function activeCallsGauge(db: Kysely<Tables>): ScrapeCollector {
  return {
    name: 'calls_active',
    async collect() {
      const rows = await db.selectFrom('calls')
        .select(['mode', (eb) => eb.fn.countAll<number>().as('n')])
        .where(sql<boolean>`status in ('queued', 'ringing', 'in_progress')`)
        .groupBy('mode')
        .execute();
      const counts = { sandbox: 0, live: 0 };
      for (const row of rows) counts[row.mode] = Number(row.n);
      callsActive.set({ mode: 'sandbox' }, counts.sandbox);
      callsActive.set({ mode: 'live' }, counts.live);
    },
  };
}

/** switchboard_calls_total: a call entered `row.status` in `trx` (created, or moved); counted once that commits. */
export function countCallStatus(trx: Trx, row: Pick<CallRow, 'mode' | 'direction' | 'status'>): void {
  const labels = { mode: row.mode, direction: row.direction ?? 'outbound', status: row.status };
  trx.afterCommit(() => callsTotal.inc(labels));
}

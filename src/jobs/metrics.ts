// The job queue's gauges, read from the jobs table when scraped: how many jobs are due and
// unclaimed per kind, and how long the oldest of them has waited. Both describe the whole
// store (every node's worker claims from it), so each node reports the same figure.
import type { Kysely } from 'kysely';
import type { Tables } from '../store/tables.ts';
import type { Clock } from '../platform/clock.ts';
import { jobLagSeconds, jobsReady } from '../platform/metrics.ts';
import type { ScrapeCollector } from '../platform/metrics-endpoint.ts';

export function jobGauges(db: Kysely<Tables>, clock: Clock): ScrapeCollector {
  // A kind seen once is reported as 0 when it drains, rather than vanishing from the graph.
  const seen = new Set<string>();
  return {
    name: 'jobs',
    async collect() {
      const now = clock.now();
      // One range of the jobs(state, run_at, id) index: the claim's own.
      const rows = await db.selectFrom('jobs')
        .select(['kind', (eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.min('run_at').as('oldest')])
        .where('state', '=', 'pending').where('run_at', '<=', now.toISOString())
        .groupBy('kind')
        .execute();
      for (const kind of seen) jobsReady.set({ kind }, 0);
      let oldest: string | null = null;
      for (const row of rows) {
        seen.add(row.kind);
        jobsReady.set({ kind: row.kind }, Number(row.n));
        const at = String(row.oldest);
        if (oldest === null || at < oldest) oldest = at;
      }
      jobLagSeconds.set(oldest === null ? 0 : Math.max(0, (now.getTime() - Date.parse(oldest)) / 1000));
    },
  };
}

// Sandbox test clocks: each account's sandbox has a simulated "now" that is real time plus
// an offset. Advancing it moves every pending job on that clock forward by the same amount,
// then runs whatever fell due, in order, before the request answers.
import type { Kysely } from 'kysely';
import type { Database } from '../store/db.ts';
import type { Tables } from '../store/tables.ts';
import type { Mode } from '../store/platform-tables.ts';
import type { Clock } from '../platform/clock.ts';
import { offsetClock } from '../platform/clock.ts';
import { inTransaction } from '../store/transaction.ts';
import type { JobQueue } from './queue.ts';

export class SandboxClocks {
  /** `onChange` runs after a clock moves (the auth cache holds each key's clock offset). */
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly jobs: JobQueue,
    private readonly onChange: () => void = () => {},
  ) {}

  /**
   * Pass the caller's transaction as `db` when inside one: on SQLite Kysely has a single
   * connection, and a read on the plain database would wait for that transaction forever.
   */
  async offsetMs(accountId: string, db: Kysely<Tables> = this.database.db): Promise<number> {
    const row = await db.selectFrom('sandbox_clocks').select('offset_ms')
      .where('account_id', '=', accountId).executeTakeFirst();
    return row ? Number(row.offset_ms) : 0;
  }

  /** The clock of an account in a mode: real time, or its sandbox test clock. */
  async clockFor(accountId: string, mode: Mode, db: Kysely<Tables> = this.database.db): Promise<Clock> {
    return mode === 'sandbox' ? offsetClock(this.clock, await this.offsetMs(accountId, db)) : this.clock;
  }

  /** Moves the account's sandbox time forward by `ms` (> 0) and runs the jobs that fell due. */
  async advance(accountId: string, ms: number): Promise<{ offsetMs: number; jobsRun: number }> {
    const offset = await inTransaction(this.database.db, async (trx) => {
      const now = this.clock.now().toISOString();
      const current = await trx.selectFrom('sandbox_clocks').select('offset_ms').where('account_id', '=', accountId).executeTakeFirst();
      const next = (current ? Number(current.offset_ms) : 0) + ms;
      if (current) {
        await trx.updateTable('sandbox_clocks').set({ offset_ms: next, updated_at: now }).where('account_id', '=', accountId).execute();
      } else {
        await trx.insertInto('sandbox_clocks').values({ account_id: accountId, offset_ms: next, updated_at: now }).execute();
      }
      const pending = await trx.selectFrom('jobs').select(['id', 'run_at'])
        .where('clock_id', '=', accountId).where('state', '=', 'pending').execute();
      for (const job of pending) {
        const shifted = new Date(Date.parse(job.run_at) - ms).toISOString();
        await trx.updateTable('jobs').set({ run_at: shifted }).where('id', '=', job.id).execute();
      }
      return next;
    });
    this.onChange();
    const jobsRun = await this.jobs.drainClock(accountId);
    return { offsetMs: offset, jobsRun };
  }
}

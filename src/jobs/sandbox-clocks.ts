// Sandbox test clocks: each account's sandbox has a simulated "now" that is real time plus
// an offset. Advancing it moves every pending job on that clock forward by the same amount,
// then runs whatever fell due, in order, before the request answers.
import type { Kysely } from 'kysely';
import type { Database } from '../store/db.ts';
import type { Tables } from '../store/tables.ts';
import type { Mode } from '../store/platform-tables.ts';
import type { Clock } from '../platform/clock.ts';
import { offsetClock } from '../platform/clock.ts';
import { IDEMPOTENCY_KEY_RETENTION_MS } from '../platform/idempotency-retention.ts';
import { sql } from 'kysely';
import { inTransaction, type Trx } from '../store/transaction.ts';
import type { JobQueue } from './queue.ts';
import { prepareFor } from '../store/prepared.ts';

/** Every sandbox message and call step reads its account's offset (three per simulated SMS): compiled once. */
const offsetOf = prepareFor((db, accountId: string) => db.selectFrom('sandbox_clocks').select('offset_ms').where('account_id', '=', accountId), 1);

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
    const [row] = await offsetOf(db, accountId);
    return row ? Number(row.offset_ms) : 0;
  }

  /** The clock of an account in a mode: real time, or its sandbox test clock. */
  async clockFor(accountId: string, mode: Mode, db: Kysely<Tables> = this.database.db): Promise<Clock> {
    return mode === 'sandbox' ? offsetClock(this.clock, await this.offsetMs(accountId, db)) : this.clock;
  }

  /**
   * The clock for a job that schedules another at an absolute sandbox time (a port's FOC
   * date): read inside the job's transaction, under a lock that an advance of the same clock
   * takes exclusively. Without it, on PostgreSQL an advance could commit between our read of
   * the offset and our insert of the job, leaving the new job unshifted: late by the whole
   * advance (a port stuck at foc_scheduled after the clock passed its FOC date).
   */
  async lockedClockFor(trx: Trx, accountId: string, mode: Mode): Promise<Clock> {
    if (mode !== 'sandbox') return this.clock;
    await this.lock(trx, accountId, 'shared');
    return offsetClock(this.clock, await this.offsetMs(accountId, trx));
  }

  /** SQLite runs one writer at a time, so only PostgreSQL needs the advisory lock. */
  private async lock(trx: Trx, accountId: string, kind: 'shared' | 'exclusive'): Promise<void> {
    if (this.database.engine !== 'postgres') return;
    const key = `sandbox_clock:${accountId}`;
    await (kind === 'shared'
      ? sql`select pg_advisory_xact_lock_shared(hashtextextended(${key}, 0))`
      : sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`).execute(trx);
  }

  /**
   * Moves the account's sandbox time forward by `ms` (> 0) and runs the jobs that fell due.
   * With an idempotency key the move happens once per key: a retry (after a crash between the
   * move and the stored answer) finds the key, leaves the clock where it is and only runs what
   * is still due. The jobs run after the move commits, each in its own transaction, so the
   * advance never holds one transaction open for as long as they take.
   */
  async advance(accountId: string, ms: number, idempotencyKey?: string): Promise<{ offsetMs: number; jobsRun: number }> {
    const offset = await inTransaction(this.database.db, async (trx) => {
      await this.lock(trx, accountId, 'exclusive');
      const now = this.clock.now().toISOString();
      if (idempotencyKey !== undefined) {
        const done = await trx.selectFrom('sandbox_clock_advances').select('offset_ms')
          .where('account_id', '=', accountId).where('idempotency_key', '=', idempotencyKey).executeTakeFirst();
        if (done) return Number(done.offset_ms);
      }
      const current = await trx.selectFrom('sandbox_clocks').select('offset_ms').where('account_id', '=', accountId).executeTakeFirst();
      const next = (current ? Number(current.offset_ms) : 0) + ms;
      if (current) {
        await trx.updateTable('sandbox_clocks').set({ offset_ms: next, updated_at: now }).where('account_id', '=', accountId).execute();
      } else {
        await trx.insertInto('sandbox_clocks').values({ account_id: accountId, offset_ms: next, updated_at: now }).execute();
      }
      if (idempotencyKey !== undefined) {
        // Kept as long as Idempotency-Keys are (24 h); older ones of this account go now.
        await trx.deleteFrom('sandbox_clock_advances').where('account_id', '=', accountId)
          .where('created_at', '<', new Date(Date.parse(now) - IDEMPOTENCY_KEY_RETENTION_MS).toISOString()).execute();
        await trx.insertInto('sandbox_clock_advances')
          .values({ account_id: accountId, idempotency_key: idempotencyKey, offset_ms: next, created_at: now }).execute();
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

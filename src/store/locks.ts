// Locks for read-then-write sequences that a row lock cannot cover: the next number of a
// per-resource sequence, or the next free number of an inventory, where what the transaction
// must wait for is a row that does not exist yet. On PostgreSQL two transactions would read
// the same "next" value and the second insert would fail its unique index (a 500 under
// concurrency); a transaction-scoped advisory lock on the name makes them take turns, and
// is released by COMMIT or ROLLBACK. SQLite needs none: its writers already take turns (one
// connection, BEGIN IMMEDIATE), so a transaction reads what the one before it committed.
import { PostgresAdapter, sql, type Kysely } from 'kysely';
import type { Tables } from './tables.ts';

/** Holds the lock named `name` until the transaction `trx` ends (no-op on SQLite). */
export async function lockUntilCommit(trx: Kysely<Tables>, name: string): Promise<void> {
  if (!(trx.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`select pg_advisory_xact_lock(hashtextextended(${name}, 0))`.execute(trx);
}

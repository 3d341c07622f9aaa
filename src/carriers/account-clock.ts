// The clock of an account in a mode (real time, or the sandbox test clock), read through
// the caller's transaction. On SQLite, Kysely has one connection: a query on the plain
// database while a transaction is open would wait for that transaction forever.
import type { Kysely } from 'kysely';
import type { Tables } from '../store/tables.ts';
import type { Mode } from '../store/platform-tables.ts';
import { offsetClock, type Clock } from '../platform/clock.ts';

export async function accountClock(db: Kysely<Tables>, base: Clock, accountId: string, mode: Mode): Promise<Clock> {
  if (mode !== 'sandbox') return base;
  const row = await db.selectFrom('sandbox_clocks').select('offset_ms').where('account_id', '=', accountId).executeTakeFirst();
  return offsetClock(base, row ? Number(row.offset_ms) : 0);
}

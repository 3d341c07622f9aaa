// One database transaction per state change (ARCHITECTURE rule 1), with hooks that run
// only after it commits: the job worker is woken then, never for work that rolled back.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Kysely, Transaction } from 'kysely';
import type { Tables } from './tables.ts';

/** Set while code runs inside one of our transactions (see the SQLite guard in db.ts). */
export const insideTransaction = new AsyncLocalStorage<true>();

export type Trx = Transaction<Tables> & { afterCommit(fn: () => void): void };

export async function inTransaction<T>(db: Kysely<Tables>, fn: (trx: Trx) => Promise<T>): Promise<T> {
  const hooks: Array<() => void> = [];
  const result = await db.transaction().execute(async (raw) => {
    const trx = raw as Trx;
    trx.afterCommit = (hook) => hooks.push(hook);
    return insideTransaction.run(true, () => fn(trx));
  });
  for (const hook of hooks) hook();
  return result;
}

// One database transaction per state change (ARCHITECTURE rule 1), with hooks that run
// only after it commits: the job worker is woken then, never for work that rolled back.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Kysely, Transaction } from 'kysely';
import type { Tables } from './tables.ts';
import { currentRequestScope } from './request-transaction.ts';
import { inDirectTransaction, isDirect } from './direct-connection.ts';

/** Set while code runs inside one of our transactions, when the guard is on (see below). */
export const insideTransaction = new AsyncLocalStorage<true>();

let guarded = false;

/**
 * Code inside a transaction that queries the database instead of its `trx` waits for that
 * very transaction on SQLite's one connection: a silent, permanent hang. With the guard on,
 * such a query fails at once with a message naming the mistake. It costs AsyncLocalStorage's
 * promise hooks on every promise in the process (about 6% of a write request's CPU on
 * Node 20), so it is for tests and development: SWITCHBOARD_TRANSACTION_GUARD.
 */
export function guardTransactions(on: boolean): void {
  guarded = on;
}

export type Trx = Transaction<Tables> & { afterCommit(fn: () => void): void };

/**
 * Work a caller adds as the last statements of a service's transaction, given what the
 * transaction made (an Idempotency-Key's stored answer, answer-once.ts): it commits with the
 * change or not at all, and if it throws, the change rolls back.
 */
export type BeforeCommit<R> = (trx: Trx, result: R) => Promise<void>;

/**
 * Runs `fn` in a transaction and commits it, or rolls it back if `fn` throws. On a database
 * db.ts opened, the transaction holds its connection itself (direct-connection.ts: the
 * driver sees what Kysely's own transaction would have shown it, with far fewer promises);
 * on any other Kysely, Kysely's transaction runs it.
 */
export function inTransaction<T>(db: Kysely<Tables>, fn: (trx: Trx) => Promise<T>): Promise<T> {
  const hooks: Array<() => void> = [];
  const run = (raw: Transaction<Tables>) => {
    const trx = raw as Trx;
    trx.afterCommit = (hook) => hooks.push(hook);
    return guarded ? insideTransaction.run(true, () => fn(trx)) : fn(trx);
  };
  const committed = isDirect(db) ? inDirectTransaction(db, run) : db.transaction().execute(run);
  return committed.then((result) => {
    // Inside a request-wide transaction this one was a savepoint: its hooks wait for the real commit.
    const scope = currentRequestScope();
    if (scope) scope.afterCommit.push(...hooks);
    else for (const hook of hooks) hook();
    return result;
  });
}

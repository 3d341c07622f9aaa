// One database transaction per state change (ARCHITECTURE rule 1), with hooks that run
// only after it commits: the job worker is woken then, never for work that rolled back.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Kysely, Transaction } from 'kysely';
import type { Tables } from './tables.ts';
import { currentRequestScope } from './request-transaction.ts';
import { boundTransaction, directDriver } from './direct-connection.ts';

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
 * Runs `fn` in a transaction and commits it, or rolls it back if `fn` throws. On a database
 * db.ts opened, the transaction holds its connection itself (direct-connection.ts: the
 * driver sees what Kysely's own transaction would have shown it, with far fewer promises);
 * on any other Kysely, Kysely's transaction runs it.
 */
export async function inTransaction<T>(db: Kysely<Tables>, fn: (trx: Trx) => Promise<T>): Promise<T> {
  const hooks: Array<() => void> = [];
  const run = (trx: Trx) => {
    trx.afterCommit = (hook) => hooks.push(hook);
    return guarded ? insideTransaction.run(true, () => fn(trx)) : fn(trx);
  };
  const direct = directDriver(db);
  let result!: T;
  if (!direct) {
    result = await db.transaction().execute((trx) => run(trx as Trx));
  } else {
    if (!direct.driver.initialised) await direct.driver.init();
    const { driver } = direct;
    const connection = await driver.acquireConnection();
    const bound = boundTransaction(db, connection);
    try {
      let begun = false;
      try {
        await driver.beginTransaction(connection, {});
        begun = true;
        result = await run(bound.trx as Trx);
        bound.end();
        await driver.commitTransaction(connection);
      } catch (err) {
        bound.end();
        if (begun) await driver.rollbackTransaction(connection);
        throw err;
      }
    } finally {
      await driver.releaseConnection(connection);
    }
  }
  // Inside a request-wide transaction this one was a savepoint: its hooks wait for the real commit.
  const scope = currentRequestScope();
  if (scope) scope.afterCommit.push(...hooks);
  else for (const hook of hooks) hook();
  return result;
}

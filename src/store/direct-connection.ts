// Statements on a connection we hold, without Kysely's per-query connection provider.
//
// Kysely runs every query through a chain of async layers (its executor, its connection
// provider, its runtime driver, then ours): about 20 promises a query, 35 a transaction. A
// POST /v1/calls made about 190. Promises are cheap until a request scope is open: its
// AsyncLocalStorage turns on Node's promise hooks for the whole process, and each promise then
// costs its hooks too (issue 29: an Idempotency-Key nearly doubled the request's CPU).
//
// So our own transactions (transaction.ts) hold their connection themselves, and the
// statements compiled once (compile-once.ts) run straight on it. Queries built with Kysely
// still go through Kysely, on an executor bound to the same connection. The driver is ours
// either way: the request scope, the group commit and every deadline see the same calls in
// the same order as before.
import {
  Transaction,
  type CompiledQuery, type DatabaseConnection, type Dialect, type Driver, type Kysely, type QueryResult,
} from 'kysely';

/** A driver that says, synchronously, whether it is initialised (ScopingDriver does). */
export interface DirectDriver extends Driver {
  readonly initialised: boolean;
}

interface Direct {
  driver: DirectDriver;
  dialect: Dialect;
}

/** The databases we opened (db.ts): their driver, reached without Kysely's layers. */
const opened = new WeakMap<object, Direct>();
/** Each of our transactions still open, and the connection it runs on. */
const bound = new WeakMap<object, DatabaseConnection>();

/** Registers a database db.ts opened, with the driver and dialect it was built from. */
export function registerDirect(db: Kysely<any>, driver: DirectDriver, dialect: Dialect): void {
  opened.set(db, { driver, dialect });
}

/** Whether we opened `db` (db.ts): its transactions can run in inDirectTransaction. */
export function isDirect(db: Kysely<any>): boolean {
  return opened.has(db);
}

/**
 * Runs `fn` in a transaction on a connection of our driver (`db` is one we opened: isDirect).
 * Acquire, begin, commit or roll back, release: what Kysely's own transaction does, in the
 * same order, with far fewer promises.
 */
export async function inDirectTransaction<DB, T>(db: Kysely<DB>, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  const direct = opened.get(db);
  if (!direct) throw new Error('inDirectTransaction: this database was not opened by db.ts');
  const { driver } = direct;
  // Kysely initialises a driver on its first query, and calls init again later: ours does the work once.
  if (!driver.initialised) await driver.init();
  const connection = await driver.acquireConnection();
  const trx = boundTransaction(db, direct, connection);
  let begun = false;
  try {
    await driver.beginTransaction(connection, {});
    begun = true;
    const result = await fn(trx);
    bound.delete(trx);
    await driver.commitTransaction(connection);
    return result;
  } catch (err) {
    bound.delete(trx);
    if (begun) await driver.rollbackTransaction(connection);
    throw err;
  } finally {
    await driver.releaseConnection(connection);
  }
}

/**
 * A Kysely transaction whose every query runs on `connection`, while it is `bound`. Once its
 * COMMIT or ROLLBACK has begun it refuses every query, as Kysely's own transactions do,
 * instead of running it on a connection that has gone back to the pool.
 */
function boundTransaction<DB>(db: Kysely<DB>, direct: Direct, connection: DatabaseConnection): Transaction<DB> {
  const executor = db.getExecutor().withConnectionProvider({
    provideConnection: (consume) => (bound.has(trx) ? consume(connection) : Promise.reject(new Error('Transaction is already committed or rolled back'))),
  });
  const trx: Transaction<DB> = new Transaction<DB>({ config: { dialect: direct.dialect }, dialect: direct.dialect, driver: direct.driver, executor });
  bound.set(trx, connection);
  return trx;
}

/**
 * Runs a compiled query on `executor`: on its connection directly when it is one of our
 * transactions, on a connection of our driver when it is a database we opened, and through
 * Kysely otherwise. No plugin is installed on our databases, so Kysely would hand back the
 * driver's result unchanged.
 */
export function executeDirect<R>(executor: Kysely<any>, query: CompiledQuery<R>): Promise<QueryResult<R>> {
  const connection = bound.get(executor);
  if (connection) return executeOn(connection, query);
  const direct = opened.get(executor);
  if (!direct) return executor.executeQuery(query);
  return onOwnConnection(direct, query);
}

/** The query on a connection of our own, given back once it has answered (or failed). Promise chains, not async and await: fewer promises (see the top of this file). */
function onOwnConnection<R>(direct: Direct, query: CompiledQuery<R>): Promise<QueryResult<R>> {
  const { driver } = direct;
  // Kysely initialises a driver on its first query, and calls init again later: ours does the work once.
  if (!driver.initialised) return driver.init().then(() => onOwnConnection(direct, query));
  return driver.acquireConnection().then((connection) => {
    const release = () => driver.releaseConnection(connection);
    return executeOn(connection, query).then((result) => release().then(() => result), (err: unknown) => release().then(() => { throw err; }));
  });
}

/** `query` on `connection`. better-sqlite3 throws where it fails (a constraint, say): the caller gets a rejection, as from Kysely. */
function executeOn<R>(connection: DatabaseConnection, query: CompiledQuery<R>): Promise<QueryResult<R>> {
  try {
    return connection.executeQuery<R>(query);
  } catch (err) {
    return Promise.reject(err);
  }
}

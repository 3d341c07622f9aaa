// One database transaction around a whole request, for idempotent writes (ARCHITECTURE rule
// 5): the Idempotency-Key claim, everything the handler changes and the stored response
// commit together or not at all. A crash at any moment leaves either the finished request
// with its replayable answer, or nothing, so a retry never runs a request twice.
//
// It works below Kysely, in the driver: while a request scope is open, every query made in
// its async context (services' own `inTransaction`, plain reads on `db`) runs on the scope's
// one connection, and a transaction begun there becomes a savepoint of the outer one. The
// services need not know: their code is the same inside a scope and out of it.
//
// The transaction begins lazily, at the request's first query, not when the request arrives:
// SQLite has one connection, and a request holding it while it waits on something else (a
// webhook host's DNS lookup before the first query, say) would stall every other request.
// `begin` runs first inside the new transaction (the Idempotency-Key claim).
//
// Every transaction has a deadline (SWITCHBOARD_TRANSACTION_TIMEOUT_MS, set by the server;
// the CLI and migrations run without one). A transaction that outlives it is rolled back
// and its connection given back at once, whatever its code is waiting for: on SQLite the
// writer is free again for everyone else. The code that held it fails with a
// TransactionTimeoutError at its next statement or commit, never runs outside it.
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  CompiledQuery,
  type DatabaseConnection, type Driver, type QueryCompiler, type QueryResult, type TransactionSettings,
} from 'kysely';

export interface RequestScope {
  /** The connection the scope's transaction runs on; null until it has begun. */
  connection: DatabaseConnection | null;
  /** Set while the transaction is being begun: queries made meanwhile wait for it. */
  opening: Promise<void> | null;
  /** Runs first inside the transaction once it has begun; if it throws, the scope rolls back. */
  begin: () => Promise<void>;
  /** Savepoints opened so far (names must be unique within the transaction). */
  savepoints: number;
  /** Hooks of inner transactions: they run when the outer transaction commits, not before. */
  afterCommit: Array<() => void>;
  state: 'open' | 'committed' | 'rolled_back';
  /** Set when the scope outlived its deadline and was rolled back under its code. */
  expired: TransactionTimeoutError | null;
  /** Called once when the deadline rolls the scope back (the request answers 503 then). */
  onExpired: ((err: TransactionTimeoutError) => void) | null;
  /** The deadline's bookkeeping while the transaction is open. */
  watch: Watch | null;
}

/** A transaction rolled back because it outlived the deadline; the request answers 503. */
export class TransactionTimeoutError extends Error {
  readonly code = 'transaction_timeout';
  constructor(readonly timeoutMs: number, readonly waitingOn: string) {
    super(`the database transaction was rolled back after ${timeoutMs} ms (the transaction deadline); it was waiting on ${waitingOn}`);
    this.name = 'TransactionTimeoutError';
  }
}

export interface TransactionDeadline {
  /** How long a transaction may stay open. */
  ms: number;
  /** Told once per transaction rolled back by the deadline (log it, count it). */
  onTimeout(report: TimeoutReport): void;
  /** Told, when set, how long each transaction that ended in time stayed open, COMMIT or ROLLBACK included (metrics). */
  onClosed?(seconds: number): void;
}

export interface TimeoutReport {
  /** `request`: an idempotent write's request-wide transaction; `transaction`: any other. */
  scope: 'request' | 'transaction';
  timeoutMs: number;
  /** What the transaction was waiting on when the deadline passed, in words. */
  waitingOn: string;
  /** The last statement it ran (SQL text, no parameters). */
  lastStatement: string | null;
}

/** One open transaction's deadline timer and what it did last. */
class Watch {
  readonly openedAt = performance.now();
  timer: NodeJS.Timeout | null = null;
  lastStatement: string | null = null;
  /** Statements sent and not yet answered (PostgreSQL; SQLite answers synchronously). */
  inFlight = 0;

  /** `countsInFlight`: false where every statement is answered before its call returns (SQLite). */
  constructor(readonly countsInFlight: boolean) {}

  waitingOn(): string {
    const last = this.lastStatement ? `"${this.lastStatement.replace(/\s+/g, ' ').slice(0, 200)}"` : null;
    if (this.inFlight > 0) return `the database, to answer ${last ?? 'a statement'}`;
    return last
      ? `work outside the database (a promise, a lock, the network) after its last statement ${last}`
      : 'work outside the database (a promise, a lock, the network) before its first statement';
  }
}

const scopes = new AsyncLocalStorage<RequestScope>();

/**
 * Scopes run and not yet ended. While there is none, `scopes` is disabled: an enabled
 * AsyncLocalStorage keeps Node's promise hooks on for the whole process, and with them every
 * promise of the job worker and the carriers costs more (a quarter of a simulated message's
 * CPU, docs/benchmarks.md). Disabling is safe then: a scope that has ended, committed or
 * rolled back, is no scope to its leftover code either way (getStore answers undefined
 * instead of a closed scope). A scope the deadline rolled back never counts as ended, as
 * its code may still be running and must keep failing, never run outside its transaction.
 */
let liveScopes = 0;
const liveScope = new WeakSet<RequestScope>();

function scopeEnded(scope: RequestScope): void {
  if (!liveScope.delete(scope)) return;
  if (--liveScopes === 0) scopes.disable();
}

/**
 * True when the caller runs inside an open request scope: its queries use (or will begin) the
 * scope's transaction. Work it awaits must not need another connection or transaction.
 */
export function inRequestScope(): boolean {
  return scopes.getStore()?.state === 'open';
}

/**
 * Runs `fn` outside any request scope: for work shared with other callers (a batch several
 * join), which must never run on, or wait for, one request's transaction.
 */
export function outsideRequestScope<T>(fn: () => T): T {
  return liveScopes === 0 ? fn() : scopes.exit(fn);
}

/** The request scope the caller runs in, if any (inTransaction defers its hooks to it). */
export function currentRequestScope(): RequestScope | undefined {
  const scope = scopes.getStore();
  return scope && scope.state === 'open' && scope.connection ? scope : undefined;
}

/** Runs `query` on `inner`, noting it in `watch` (what a timed-out transaction last did). */
function watched<R>(watch: Watch | null, inner: DatabaseConnection, query: CompiledQuery): Promise<QueryResult<R>> {
  if (!watch) return inner.executeQuery<R>(query);
  watch.lastStatement = query.sql;
  // An answered statement needs no count, nor the promise that would count it (one per
  // statement, each paying the promise hooks of an open request scope).
  if (!watch.countsInFlight) return inner.executeQuery<R>(query);
  watch.inFlight++;
  const result = inner.executeQuery<R>(query);
  const settled = () => { watch.inFlight--; };
  result.then(settled, settled);
  return result;
}

/** A connection lent to code inside a scope: a transaction begun on it is a savepoint. */
class ScopedConnection implements DatabaseConnection {
  savepoint: string | null = null;
  constructor(readonly scope: RequestScope, private readonly inner: DatabaseConnection) {}
  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.scope.expired) return Promise.reject(this.scope.expired);
    return watched<R>(this.scope.watch, this.inner, query);
  }
  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    if (this.scope.expired) throw this.scope.expired;
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/**
 * A connection outside any scope, as the engine's driver gave it: while a transaction is open
 * on it, its deadline runs; once the deadline has rolled it back, it refuses every statement.
 */
class PlainConnection implements DatabaseConnection {
  watch: Watch | null = null;
  expired: TransactionTimeoutError | null = null;
  released = false;
  constructor(readonly inner: DatabaseConnection) {}
  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.expired) return Promise.reject(this.expired);
    return watched<R>(this.watch, this.inner, query);
  }
  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    if (this.expired) throw this.expired;
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

const unwrap = (connection: DatabaseConnection): DatabaseConnection => (connection instanceof PlainConnection ? connection.inner : connection);

const raw = (sql: string) => CompiledQuery.raw(sql);
const RESOLVED: Promise<void> = Promise.resolve();

/** Wraps a dialect's driver so request scopes can hold one connection and transaction. */
export class ScopingDriver implements Driver {
  private deadline: TransactionDeadline | null = null;
  /** Open transactions (request scopes and plain ones), for readiness: the oldest one's age. */
  private readonly open = new Set<Watch>();

  /**
   * `statementsAnswerAtOnce`: the inner driver answers each statement before its call returns
   * (better-sqlite3), so a transaction is never waiting on the database for one.
   */
  constructor(private readonly inner: Driver, private readonly statementsAnswerAtOnce = false) {}

  /** From now on every transaction has this deadline (the server sets it after migrating). */
  setDeadline(deadline: TransactionDeadline | null): void {
    this.deadline = deadline;
  }

  get deadlineMs(): number | null {
    return this.deadline?.ms ?? null;
  }

  /** How long the oldest open transaction has been open, in ms (0: none is). */
  oldestTransactionMs(): number {
    let oldest = 0;
    const now = performance.now();
    for (const watch of this.open) oldest = Math.max(oldest, now - watch.openedAt);
    return oldest;
  }

  /** The engine's own view of a held writer, where it has one (SQLite: ms the connection is held). */
  writerHeldMs(): number | null {
    const inner = this.inner as Driver & { writerHeldMs?: () => number | null };
    return inner.writerHeldMs ? inner.writerHeldMs() : null;
  }

  private initialising: Promise<void> | null = null;
  private initDone = false;

  /** Once, whoever asks first: Kysely's runtime driver, or our own direct path (direct-connection.ts). */
  init(): Promise<void> {
    this.initialising ??= this.inner.init().then(() => {
      this.initDone = true;
    }, (err: unknown) => {
      this.initialising = null; // as Kysely's runtime driver does: the next caller tries again
      throw err;
    });
    return this.initialising;
  }

  /**
   * Whether init has finished. Asked synchronously, so that the direct path acquires the
   * connection in the same turn as its caller, as Kysely does: awaiting init once more would
   * let a later query take the connection first.
   */
  get initialised(): boolean {
    return this.initDone;
  }

  // Not async where it need not be: each async function and await is a promise more, and
  // while a request scope is open every promise pays Node's promise hooks (direct-connection.ts).
  acquireConnection(): Promise<DatabaseConnection> {
    const scope = scopes.getStore();
    if (scope?.expired) return Promise.reject(scope.expired); // never run a timed-out request's work outside its transaction
    if (!scope || scope.state !== 'open') {
      const ownRead = this.ownReadNext;
      this.ownReadNext = false;
      return this.inner.acquireConnection().then((connection) => {
        if (ownRead) (this.inner as Driver & { markRequestOwned?: (c: DatabaseConnection) => void }).markRequestOwned?.(connection);
        return new PlainConnection(connection);
      });
    }
    return this.acquireScoped(scope);
  }

  private async acquireScoped(scope: RequestScope): Promise<DatabaseConnection> {
    if (!scope.connection) await this.begin(scope);
    if (scope.expired) throw scope.expired;
    if (scope.state !== 'open') throw new Error('the request transaction has ended; its work is over');
    return new ScopedConnection(scope, scope.connection!);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    if (connection instanceof PlainConnection) {
      await this.inner.beginTransaction(connection.inner, settings);
      this.arm(connection, 'transaction');
      return;
    }
    if (!(connection instanceof ScopedConnection)) return this.inner.beginTransaction(connection, settings);
    connection.savepoint = `sb_request_${++connection.scope.savepoints}`;
    await connection.executeQuery(raw(`SAVEPOINT ${connection.savepoint}`));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    if (connection instanceof PlainConnection) {
      if (connection.expired) throw connection.expired;
      const watch = connection.watch;
      this.disarm(watch);
      connection.watch = null;
      await this.inner.commitTransaction(connection.inner);
      return this.closed(watch);
    }
    if (!(connection instanceof ScopedConnection)) return this.inner.commitTransaction(connection);
    await connection.executeQuery(raw(`RELEASE SAVEPOINT ${connection.savepoint}`));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (connection instanceof PlainConnection) {
      if (connection.expired) return; // the deadline rolled it back already
      const watch = connection.watch;
      this.disarm(watch);
      connection.watch = null;
      await this.inner.rollbackTransaction(connection.inner);
      return this.closed(watch);
    }
    if (!(connection instanceof ScopedConnection)) return this.inner.rollbackTransaction(connection);
    if (connection.scope.expired) return;
    await connection.executeQuery(raw(`ROLLBACK TO SAVEPOINT ${connection.savepoint}`));
    await connection.executeQuery(raw(`RELEASE SAVEPOINT ${connection.savepoint}`));
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    if (connection instanceof ScopedConnection) return RESOLVED; // the scope keeps it until it ends
    if (connection instanceof PlainConnection) {
      if (connection.released) return RESOLVED;
      connection.released = true;
      return this.inner.releaseConnection(connection.inner);
    }
    return this.inner.releaseConnection(connection);
  }

  /** Starts the deadline of a transaction just begun on a plain connection. */
  private arm(connection: PlainConnection, scope: 'transaction'): void {
    const deadline = this.deadline;
    if (!deadline) return;
    const watch = new Watch(!this.statementsAnswerAtOnce);
    connection.watch = watch;
    this.open.add(watch);
    watch.timer = setTimeout(() => {
      if (connection.watch !== watch) return;
      this.open.delete(watch);
      connection.watch = null;
      const waitingOn = watch.waitingOn();
      connection.expired = new TransactionTimeoutError(deadline.ms, waitingOn);
      deadline.onTimeout({ scope, timeoutMs: deadline.ms, waitingOn, lastStatement: watch.lastStatement });
      // Roll back and give the connection back now; PostgreSQL queues the ROLLBACK behind a
      // statement still in flight (which waits at most for another transaction's deadline).
      connection.released = true;
      void this.inner.rollbackTransaction(connection.inner).catch(() => {})
        .then(() => this.inner.releaseConnection(connection.inner)).catch(() => {});
    }, deadline.ms);
    watch.timer.unref();
  }

  /** Reports how long a transaction that ended in time was open (its deadline's watch knows when it began). */
  private closed(watch: Watch | null): void {
    if (watch) this.deadline?.onClosed?.((performance.now() - watch.openedAt) / 1000);
  }

  private disarm(watch: Watch | null): void {
    if (!watch) return;
    if (watch.timer) clearTimeout(watch.timer);
    this.open.delete(watch);
  }

  savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.inner.savepoint!(unwrap(connection), name, compile);
  }

  rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.inner.rollbackToSavepoint!(unwrap(connection), name, compile);
  }

  releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.inner.releaseSavepoint!(unwrap(connection), name, compile);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }

  /**
   * Runs a request's read that only that request awaits (its Idempotency-Key check, before its
   * scope begins): on SQLite, request-wide transactions may then still share a commit with it.
   * Only for reads whose promise is never shared with other callers.
   */
  ownRead<T>(fn: () => Promise<T>): Promise<T> {
    // No AsyncLocalStorage: `fn` asks for its connection in the turn it is called in (as the
    // compiled statements do), so a flag for that one acquire is enough. Were it asked later,
    // the read would only be taken for a shared one: a group commit more, nothing else.
    this.ownReadNext = true;
    try {
      return fn();
    } finally {
      this.ownReadNext = false;
    }
  }

  /** The next plain acquire is a request's own read (see ownRead). */
  private ownReadNext = false;

  /** A scope whose transaction begins at its first query (or at `begin`, whichever is first). */
  createScope(begin: () => Promise<void>): RequestScope {
    return {
      connection: null, opening: null, begin, savepoints: 0, afterCommit: [], state: 'open',
      expired: null, onExpired: null, watch: null,
    };
  }

  /** Begins the scope's transaction now if it has not begun (call it inside the scope). */
  begin(scope: RequestScope): Promise<void> {
    scope.opening ??= (async () => {
      const connection = await this.inner.acquireConnection();
      try {
        // SQLite's group commit: this transaction lasts a whole request, so it joins only a
        // group of such transactions, or starts one (see beforeRequestTransaction).
        (this.inner as Driver & { beforeRequestTransaction?: (c: DatabaseConnection) => void }).beforeRequestTransaction?.(connection);
        await this.inner.beginTransaction(connection, {});
      } catch (err) {
        await this.inner.releaseConnection(connection);
        throw err;
      }
      scope.connection = connection;
      this.armScope(scope, connection);
      try {
        await scope.begin();
      } catch (err) {
        await this.closeScope(scope, false).catch(() => {});
        throw err;
      }
    })();
    return scope.opening;
  }

  /** Starts the deadline of a request scope's transaction, just begun on `connection`. */
  private armScope(scope: RequestScope, connection: DatabaseConnection): void {
    const deadline = this.deadline;
    if (!deadline) return;
    const watch = new Watch(!this.statementsAnswerAtOnce);
    scope.watch = watch;
    this.open.add(watch);
    watch.timer = setTimeout(() => {
      if (scope.watch !== watch || scope.state !== 'open') return;
      this.open.delete(watch);
      scope.watch = null;
      const waitingOn = watch.waitingOn();
      const err = new TransactionTimeoutError(deadline.ms, waitingOn);
      scope.expired = err;
      scope.state = 'rolled_back';
      deadline.onTimeout({ scope: 'request', timeoutMs: deadline.ms, waitingOn, lastStatement: watch.lastStatement });
      void this.inner.rollbackTransaction(connection).catch(() => {})
        .then(() => this.inner.releaseConnection(connection)).catch(() => {});
      scope.onExpired?.(err);
    }, deadline.ms);
    watch.timer.unref();
  }

  /** Commits (or rolls back) the scope's transaction and gives its connection back. */
  async closeScope(scope: RequestScope, commit: boolean): Promise<void> {
    if (scope.state !== 'open') return;
    if (scope.opening && !scope.connection) await scope.opening.catch(() => {});
    const connection = scope.connection;
    if (!connection) {
      scope.state = 'rolled_back'; // it never began: nothing to end
      scopeEnded(scope);
      return;
    }
    if (scope.state !== 'open') return;
    scope.state = commit ? 'committed' : 'rolled_back';
    scopeEnded(scope);
    const watch = scope.watch;
    this.disarm(watch);
    scope.watch = null;
    try {
      if (commit) await this.inner.commitTransaction(connection);
      else await this.inner.rollbackTransaction(connection);
    } catch (err) {
      scope.state = 'rolled_back';
      if (commit) await this.inner.rollbackTransaction(connection).catch(() => {});
      throw err;
    } finally {
      await this.inner.releaseConnection(connection);
    }
    this.closed(watch);
    if (commit) for (const hook of scope.afterCommit) hook();
  }
}

/** Runs `fn` (and everything it starts) inside `scope`. */
export function runInScope<T>(scope: RequestScope, fn: () => T): T {
  if (scope.state === 'open' && !liveScope.has(scope)) {
    liveScope.add(scope);
    liveScopes++;
  }
  return scopes.run(scope, fn);
}

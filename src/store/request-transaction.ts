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
}

const scopes = new AsyncLocalStorage<RequestScope>();

/** The request scope the caller runs in, if any (inTransaction defers its hooks to it). */
export function currentRequestScope(): RequestScope | undefined {
  const scope = scopes.getStore();
  return scope && scope.state === 'open' && scope.connection ? scope : undefined;
}

/** A connection lent to code inside a scope: a transaction begun on it is a savepoint. */
class ScopedConnection implements DatabaseConnection {
  savepoint: string | null = null;
  constructor(readonly scope: RequestScope, private readonly inner: DatabaseConnection) {}
  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.inner.executeQuery<R>(query);
  }
  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

const raw = (sql: string) => CompiledQuery.raw(sql);

/** Wraps a dialect's driver so request scopes can hold one connection and transaction. */
export class ScopingDriver implements Driver {
  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const scope = scopes.getStore();
    if (!scope || scope.state !== 'open') return this.inner.acquireConnection();
    if (!scope.connection) await this.begin(scope);
    if (scope.state !== 'open') throw new Error('the request transaction has ended; its work is over');
    return new ScopedConnection(scope, scope.connection!);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    if (!(connection instanceof ScopedConnection)) return this.inner.beginTransaction(connection, settings);
    connection.savepoint = `sb_request_${++connection.scope.savepoints}`;
    await connection.executeQuery(raw(`SAVEPOINT ${connection.savepoint}`));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    if (!(connection instanceof ScopedConnection)) return this.inner.commitTransaction(connection);
    await connection.executeQuery(raw(`RELEASE SAVEPOINT ${connection.savepoint}`));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (!(connection instanceof ScopedConnection)) return this.inner.rollbackTransaction(connection);
    await connection.executeQuery(raw(`ROLLBACK TO SAVEPOINT ${connection.savepoint}`));
    await connection.executeQuery(raw(`RELEASE SAVEPOINT ${connection.savepoint}`));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    if (connection instanceof ScopedConnection) return; // the scope keeps it until it ends
    return this.inner.releaseConnection(connection);
  }

  savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.inner.savepoint!(connection, name, compile);
  }

  rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.inner.rollbackToSavepoint!(connection, name, compile);
  }

  releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.inner.releaseSavepoint!(connection, name, compile);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }

  /** A scope whose transaction begins at its first query (or at `begin`, whichever is first). */
  createScope(begin: () => Promise<void>): RequestScope {
    return { connection: null, opening: null, begin, savepoints: 0, afterCommit: [], state: 'open' };
  }

  /** Begins the scope's transaction now if it has not begun (call it inside the scope). */
  begin(scope: RequestScope): Promise<void> {
    scope.opening ??= (async () => {
      const connection = await this.inner.acquireConnection();
      try {
        await this.inner.beginTransaction(connection, {});
      } catch (err) {
        await this.inner.releaseConnection(connection);
        throw err;
      }
      scope.connection = connection;
      try {
        await scope.begin();
      } catch (err) {
        await this.closeScope(scope, false).catch(() => {});
        throw err;
      }
    })();
    return scope.opening;
  }

  /** Commits (or rolls back) the scope's transaction and gives its connection back. */
  async closeScope(scope: RequestScope, commit: boolean): Promise<void> {
    if (scope.state !== 'open') return;
    if (scope.opening && !scope.connection) await scope.opening.catch(() => {});
    const connection = scope.connection;
    if (!connection) {
      scope.state = 'rolled_back'; // it never began: nothing to end
      return;
    }
    if (scope.state !== 'open') return;
    scope.state = commit ? 'committed' : 'rolled_back';
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
    if (commit) for (const hook of scope.afterCommit) hook();
  }
}

/** Runs `fn` (and everything it starts) inside `scope`. */
export function runInScope<T>(scope: RequestScope, fn: () => T): T {
  return scopes.run(scope, fn);
}

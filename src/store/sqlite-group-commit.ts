// Kysely's driver for better-sqlite3, with group commit. SQLite has one writer, and each
// COMMIT writes every page its transaction touched to the WAL: with requests in flight,
// most of a write request's database time was its own commit. Here the transactions that
// queue up for the connection run inside one SQLite transaction, each in its own savepoint,
// and commit together (as PostgreSQL's commit_delay does). Nobody hears "committed" before
// the group's COMMIT has run; a failing transaction rolls back to its savepoint alone.
//
// The connection is handed from one holder to the next in FIFO order. A group commits when
// it is big or old enough, or at the end of the event-loop turn in which the connection
// fell idle: on an idle server each transaction commits at the end of the turn it ran in.
import type SQLite from 'better-sqlite3';
import {
  CompiledQuery, SelectQueryNode,
  type DatabaseConnection, type Driver, type QueryResult,
} from 'kysely';
import { insideTransaction } from './transaction.ts';

export interface GroupLimits {
  /** Commit once this many transactions have joined the group... */
  members: number;
  /** ...or once it is this old (bounds the wait a transaction adds to its caller's latency). */
  ageMs: number;
}

const DEFAULT_LIMITS: GroupLimits = { members: 256, ageMs: 10 };
const RESOLVED: Promise<void> = Promise.resolve();
const STATEMENT_CACHE_SIZE = 500;

/** One SQLite transaction shared by the Kysely transactions that ran while it was open. */
class Group {
  readonly openedAt = Date.now();
  members = 0;
  /**
   * Set once anything but a request-wide transaction ran in the group: a job's batch, a plain
   * read, a service's own transaction. Such code may be awaited by a request (a shared batch
   * the request joins), so a request-wide transaction must not join its group: it would
   * hold back the commit that code waits for while waiting for that code.
   */
  shared = false;
  readonly done: Promise<void>;
  resolve!: () => void;
  reject!: (err: Error) => void;

  constructor() {
    this.done = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.done.catch(() => {}); // reported to each member that waits on it, never unhandled
  }
}

/** One holder's use of the connection, from acquire to release. */
class Lease implements DatabaseConnection {
  /** `member` while its own savepoint is open. */
  state: 'plain' | 'member' | 'released' = 'plain';
  /** The group this lease's statements ran in, if one was open: it must commit before we answer. */
  group: Group | null = null;
  handedOff = false;
  /**
   * Work of one request that only that request awaits: its request-wide transaction
   * (request-transaction.ts), or its Idempotency-Key check just before it.
   */
  requestOwned = false;

  constructor(private readonly driver: GroupCommitSqliteDriver) {}

  executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    this.group ??= this.driver.openGroup;
    if (this.group && !this.requestOwned) this.group.shared = true;
    const statement = this.driver.statement(compiled.sql);
    const parameters = compiled.parameters as unknown[];
    if (statement.reader) return Promise.resolve({ rows: statement.all(parameters) as R[] });
    const { changes, lastInsertRowid } = statement.run(parameters);
    return Promise.resolve({ numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] });
  }

  async *streamQuery<R>(compiled: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(compiled.query)) throw new Error('SQLite only streams SELECT queries');
    this.group ??= this.driver.openGroup;
    if (this.group) this.group.shared = true;
    for (const row of this.driver.statement(compiled.sql).iterate(compiled.parameters as unknown[])) {
      yield { rows: [row as R] };
    }
  }
}

export class GroupCommitSqliteDriver implements Driver {
  private held = false;
  /** When the current holder got the connection (performance.now()), for readiness. */
  private heldSince = 0;
  private readonly waiters: Array<() => void> = [];
  private group: Group | null = null;
  private commitScheduled = false;
  private readonly statements = new Map<string, SQLite.Statement>();

  constructor(private readonly sqlite: SQLite.Database, private readonly limits: GroupLimits = DEFAULT_LIMITS) {}

  /** The group now open, if any (statements run now become part of it). */
  get openGroup(): Group | null {
    return this.group;
  }

  async init(): Promise<void> {}

  /**
   * Kysely's own driver prepares every query afresh, and preparing costs more than running
   * most of ours. Statements are reusable and queries use parameters, so the set of texts
   * is small: the most recent ones are kept.
   */
  statement(sql: string): SQLite.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.sqlite.prepare(sql);
      if (this.statements.size >= STATEMENT_CACHE_SIZE) this.statements.delete(this.statements.keys().next().value!);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  // The methods below answer promises without being async functions: each async function and
  // await is a promise more, and while a request scope is open every promise in the process
  // pays Node's promise hooks (direct-connection.ts). What they do is unchanged.

  acquireConnection(): Promise<DatabaseConnection> {
    // One connection: code inside a transaction that queries the database instead of its
    // `trx` would wait for that very transaction forever. Fail at once, naming the mistake.
    if (insideTransaction.getStore()) {
      return Promise.reject(new Error('a query on the database was made inside a transaction: pass the transaction (trx) instead, or it would wait for itself'));
    }
    if (!this.held) return Promise.resolve(this.take());
    return new Promise<DatabaseConnection>((resolve) => this.waiters.push(() => resolve(this.take())));
  }

  /** The connection goes to a new holder (it was free, or handed off to the next in line). */
  private take(): Lease {
    this.held = true;
    this.heldSince = performance.now();
    return new Lease(this);
  }

  /**
   * Call it holding the connection, before beginning a transaction that stays open across
   * awaits (an idempotent request's, request-transaction.ts). Such a transaction joins the
   * open group only if every member so far was one too: those members have answered their
   * request's work and only wait for the COMMIT, which no request awaits, so the requests of
   * a burst share one COMMIT (it was one per request, about a sixth of POST /v1/calls' CPU).
   * (A request's Idempotency-Key check runs in the group as such a member: markRequestOwned.)
   * Any other member (a job batch, a plain read, a service's own transaction) may be what the
   * request is about to await, and joining its group would make it wait for itself: that
   * group commits first, as it did for every request before.
   */
  beforeRequestTransaction(connection: DatabaseConnection): void {
    (connection as Lease).requestOwned = true;
    if (this.group && (this.group.shared || this.isFull(this.group))) this.commitGroup();
  }

  /** Marks a connection as used by one request's own read, which no other code awaits. */
  markRequestOwned(connection: DatabaseConnection): void {
    (connection as Lease).requestOwned = true;
  }

  /** How long the one connection (the writer) has been held by its current holder; null: free. */
  writerHeldMs(): number | null {
    return this.held ? performance.now() - this.heldSince : null;
  }

  beginTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    try {
      if (this.group && this.isFull(this.group)) this.commitGroup();
      if (!this.group) {
        this.sqlite.exec('BEGIN IMMEDIATE');
        this.group = new Group();
      }
      lease.group = this.group;
      if (!lease.requestOwned) this.group.shared = true;
      this.sqlite.exec('SAVEPOINT member');
    } catch (err) {
      return Promise.reject(err);
    }
    lease.state = 'member';
    return RESOLVED;
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    const group = lease.group!;
    if (this.group !== group || !this.sqlite.inTransaction) return Promise.reject(this.lost(group));
    try {
      this.sqlite.exec('RELEASE member');
    } catch (err) {
      return Promise.reject(err);
    }
    lease.state = 'released';
    group.members++;
    this.handOff(lease);
    return group.done;
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    if (lease.state !== 'member') return; // its group's COMMIT failed: nothing left to undo
    lease.state = 'released';
    // Some errors (a full disk, say) make SQLite roll back the whole transaction, and with
    // it the members before this one: they must hear so instead of "committed".
    if (this.group !== lease.group || !this.sqlite.inTransaction) {
      this.lost(lease.group!);
      return;
    }
    this.sqlite.exec('ROLLBACK TO member');
    this.sqlite.exec('RELEASE member');
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    if (lease.handedOff) return RESOLVED;
    this.handOff(lease);
    // Plain statements that ran inside an open group (reads included) answer only once
    // what they saw or wrote is committed.
    return lease.group ? lease.group.done : RESOLVED;
  }

  async destroy(): Promise<void> {
    if (this.group) this.commitGroup();
    this.sqlite.close();
  }

  private handOff(lease: Lease): void {
    lease.handedOff = true;
    const next = this.waiters.shift();
    if (next) {
      if (this.group && this.isFull(this.group)) this.commitGroup();
      next();
      return;
    }
    this.held = false;
    if (this.group && this.isFull(this.group)) this.commitGroup();
    else if (this.group && !this.commitScheduled) {
      // better-sqlite3 answers synchronously, so a whole transaction runs within one turn of
      // the event loop and nobody is ever waiting when it ends. Waiting for the end of this
      // turn lets the requests whose I/O is already due run theirs into the same group.
      this.commitScheduled = true;
      setImmediate(() => {
        this.commitScheduled = false;
        if (!this.held && this.group) this.commitGroup();
      });
    }
  }

  private isFull(group: Group): boolean {
    return group.members >= this.limits.members || Date.now() - group.openedAt >= this.limits.ageMs;
  }

  private commitGroup(): void {
    const group = this.group!;
    this.group = null;
    try {
      this.sqlite.exec('COMMIT');
      group.resolve();
    } catch (err) {
      if (this.sqlite.inTransaction) this.sqlite.exec('ROLLBACK');
      group.reject(err as Error);
    }
  }

  /** SQLite rolled the group's transaction back under us: fail every member of it. */
  private lost(group: Group): Error {
    const err = new Error('SQLite rolled back the transaction this change was part of; it was not saved');
    if (this.group === group) this.group = null;
    group.reject(err);
    return err;
  }
}

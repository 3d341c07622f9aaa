// What one batch transaction of a SerialBatcher (src/store/serial-batch.ts) knows for its
// whole life: rows it already read or wrote, and rows it has yet to insert. A batch applies
// dozens of small writes one after another in one transaction; without this each write
// read again what the one before it had just read (the account's webhook endpoints, the
// message it moved) and inserted its event, delivery and job rows one statement at a time.
//
// Both halves are opt-in and only inside a batch: any other transaction (a request's, a
// write applied alone after its batch failed) gets no scope, so `remember` loads every time
// and `deferInsert` declines (the caller inserts at once), exactly as before.
//
// Deferred rows are inserted in one statement per table just before the batch commits
// (flushDeferred), in the order the tables were first deferred (a table's rows with the
// same columns in one statement): still in the transaction
// that changed the state, so the outbox rule holds (they commit with it or not at all).
// Nothing in a batch reads the deferred tables back, except an event's sequence, which the
// emitter remembers per resource for the batch (src/events/emit.ts).
import type { Kysely } from 'kysely';
import type { Tables } from './tables.ts';

interface Scope {
  memo: Map<string, unknown>;
  /** Rows to insert, by table and set of columns (rows of one INSERT must have the same columns). */
  deferred: Map<string, { table: keyof Tables & string; rows: object[] }>;
}

const scopes = new WeakMap<object, Scope>();

/** Opens the scope of a batch's transaction (the batcher does, once it has begun). */
export function openBatchScope(trx: object): void {
  scopes.set(trx, { memo: new Map(), deferred: new Map() });
}

/** True inside a batch's transaction. */
export function inBatchScope(trx: object): boolean {
  return scopes.has(trx);
}

/** The value remembered under `key` in this batch, else `load()` (remembered for the rest of the batch). */
export async function remember<T>(trx: object, key: string, load: () => Promise<T>): Promise<T> {
  const scope = scopes.get(trx);
  if (!scope) return load();
  if (scope.memo.has(key)) return scope.memo.get(key) as T;
  const value = await load();
  scope.memo.set(key, value);
  return value;
}

/** What this batch remembers under `key`, if anything. */
export function recall<T>(trx: object, key: string): T | undefined {
  return scopes.get(trx)?.memo.get(key) as T | undefined;
}

/** Sets what this batch remembers under `key` (no-op outside a batch). */
export function note(trx: object, key: string, value: unknown): void {
  scopes.get(trx)?.memo.set(key, value);
}

/**
 * In a batch: keeps `rows` to be inserted with the batch's other rows of `table`, in one
 * statement before it commits, and answers true. Elsewhere answers false: the caller inserts
 * them now, as it always did.
 */
export function deferInsert(trx: object, table: keyof Tables & string, rows: readonly object[]): boolean {
  const scope = scopes.get(trx);
  if (!scope) return false;
  for (const row of rows) {
    const shape = `${table}(${Object.keys(row).join(',')})`;
    let group = scope.deferred.get(shape);
    if (!group) scope.deferred.set(shape, (group = { table, rows: [] }));
    group.rows.push(row);
  }
  return true;
}

/**
 * Rows per INSERT: every row of a batch in one statement, below SQLite's limit of bound
 * parameters (32,766) and PostgreSQL's (65,535) for the widest of these tables (20 columns).
 */
const ROWS_PER_INSERT = 500;

/** Inserts what the batch deferred; the batcher calls it after the last write, before COMMIT. */
export async function flushDeferred(trx: Kysely<Tables>): Promise<void> {
  const scope = scopes.get(trx);
  if (!scope) return;
  for (const { table, rows } of scope.deferred.values()) {
    for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
      await trx.insertInto(table).values(rows.slice(i, i + ROWS_PER_INSERT) as never).execute();
    }
  }
  scope.deferred.clear();
}

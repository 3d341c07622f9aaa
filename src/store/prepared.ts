// Compile a query once, run it many times. Kysely rebuilds and recompiles a query on every
// call, which costs more than SQLite takes to run a small indexed one; for the queries on
// the hot path (every authenticated request, every event, every message and call step) we
// compile once with placeholder arguments and substitute the real ones by position
// (src/store/compile-once.ts). These are the forms typed for our tables.
import type { Kysely, QueryResult } from 'kysely';
import type { Tables } from './tables.ts';
import { MAX_SHAPES, compileOnce, isPlainValue, type Compilable } from './compile-once.ts';

export { prepareUpdateByIdAndStatus } from './compile-once.ts';

/**
 * A query compiled once per dialect. The returned function takes the executor first (a
 * transaction, or the database) and answers the driver's whole result (rows, and the rows an
 * UPDATE or DELETE changed).
 */
export function prepareStatement<Args extends unknown[], Row>(
  build: (db: Kysely<Tables>, ...args: Args) => Compilable<Row>,
  arity: Args['length'],
): (executor: Kysely<Tables>, ...args: Args) => Promise<QueryResult<Row>> {
  return compileOnce<Tables, Args, Row>(build, arity);
}

/** A prepared query that answers its rows (a SELECT, or a statement with RETURNING). */
export function prepareFor<Args extends unknown[], Row>(
  build: (db: Kysely<Tables>, ...args: Args) => Compilable<Row>,
  arity: Args['length'],
): (executor: Kysely<Tables>, ...args: Args) => Promise<Row[]> {
  const run = prepareStatement(build, arity);
  return async (executor, ...args) => (await run(executor, ...args)).rows;
}

/**
 * The INSERT of one whole row into `table`, compiled once. A row that leaves out a listed
 * column, has one more, or holds anything but plain values (an SQL expression, say) goes
 * through Kysely as before (which omits undefined columns, so the database default
 * applies): the prepared form never changes what is written.
 */
export function prepareInsert(table: keyof Tables & string, columns: readonly string[]): (executor: Kysely<Tables>, row: object) => Promise<void> {
  const run = prepareStatement((db, ...values: unknown[]) => db.insertInto(table)
    .values(Object.fromEntries(columns.map((c, i) => [c, values[i]])) as never), columns.length);
  return async (executor, row) => {
    const fields = row as Record<string, unknown>;
    const values = columns.map((c) => fields[c]);
    if (Object.keys(fields).length !== columns.length || !values.every(isPlainValue)) {
      await executor.insertInto(table).values(row as never).execute();
      return;
    }
    await run(executor, ...values);
  };
}

/**
 * The INSERT of one row into `table`, compiled once per set of columns the row has (a
 * handful per table: optional columns set or not). Undefined columns are left out and a row
 * holding an SQL expression goes through Kysely, as with prepareInsert.
 */
export function prepareRowInsert(table: keyof Tables & string): (executor: Kysely<Tables>, row: object) => Promise<void> {
  const byShape = new Map<string, (executor: Kysely<Tables>, row: object) => Promise<void>>();
  return async (executor, row) => {
    const fields = row as Record<string, unknown>;
    const columns = Object.keys(fields).filter((c) => fields[c] !== undefined);
    const shape = columns.join(',');
    let insert = byShape.get(shape);
    if (!insert) {
      insert = prepareInsert(table, columns);
      if (byShape.size < MAX_SHAPES) byShape.set(shape, insert);
    }
    await insert(executor, columns.length === Object.keys(fields).length ? row : Object.fromEntries(columns.map((c) => [c, fields[c]])));
  };
}

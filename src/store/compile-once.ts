// The engine of src/store/prepared.ts, typed for any database: compile a query once with
// placeholder arguments, then run it with the real ones substituted by position. It imports
// no table types, so the platform's state machines can use it without importing every
// module's tables.
import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import { executeDirect } from './direct-connection.ts';

const MARK = '\u0000arg:';

export type Compilable<Row> = { compile(): CompiledQuery<Row> };
type Prepared<Row> = { compiled: CompiledQuery<Row>; slots: number[] };
export type Run<DB, Args extends unknown[], Row> = (executor: Kysely<DB>, ...args: Args) => Promise<QueryResult<Row>>;

/**
 * The returned function takes the executor first (a transaction, or the database), so one
 * compiled query serves both. The query is compiled on first use with that executor's
 * dialect, once per dialect: the SQL text differs between engines. It answers the driver's
 * whole result (rows, and the rows an UPDATE or DELETE changed).
 */
export function compileOnce<DB, Args extends unknown[], Row>(
  build: (db: Kysely<DB>, ...args: Args) => Compilable<Row>,
  arity: Args['length'],
): Run<DB, Args, Row> {
  const byAdapter = new Map<unknown, Prepared<Row>>();
  const preparedFor = (executor: Kysely<DB>): Prepared<Row> => {
    const adapter = executor.getExecutor().adapter.constructor;
    let entry = byAdapter.get(adapter);
    if (!entry) {
      entry = compileWithSlots(executor, build, arity);
      byAdapter.set(adapter, entry);
    }
    return entry;
  };
  return (executor, ...args) => {
    const { compiled, slots } = preparedFor(executor);
    const parameters = compiled.parameters.map((p, i) => (slots[i]! >= 0 ? args[slots[i]!] : p));
    return executeDirect<Row>(executor, { ...compiled, parameters });
  };
}

export const MAX_SHAPES = 256;

/**
 * `UPDATE table SET <changes> WHERE id = ? AND status = ?`, the state machines' move,
 * compiled once per set of columns it writes (a handful per table: each move stamps its
 * own). Columns whose value is undefined are left out, as Kysely does; a change that sets
 * an SQL expression goes through Kysely. Answers the number of rows it changed.
 */
export function prepareUpdateByIdAndStatus(table: string): (executor: Kysely<any>, changes: object, id: string, status: string) => Promise<number> {
  const byShape = new Map<string, Run<any, unknown[], unknown>>();
  return async (executor, changes, id, status) => {
    const fields = changes as Record<string, unknown>;
    const columns = Object.keys(fields).filter((c) => fields[c] !== undefined);
    if (!columns.every((c) => isPlainValue(fields[c]))) {
      const result = await executor.updateTable(table).set(fields).where('id', '=', id).where('status', '=', status).executeTakeFirst();
      return Number(result.numUpdatedRows);
    }
    const shape = columns.join(',');
    let run = byShape.get(shape);
    if (!run) {
      run = compileOnce((db: Kysely<any>, ...args: unknown[]) => db.updateTable(table)
        .set(Object.fromEntries(columns.map((c, i) => [c, args[i]])))
        .where('id', '=', args[columns.length]).where('status', '=', args[columns.length + 1]), columns.length + 2);
      if (byShape.size < MAX_SHAPES) byShape.set(shape, run);
    }
    const result = await run(executor, ...columns.map((c) => fields[c]), id, status);
    return Number(result.numAffectedRows ?? 0n);
  };
}

/** A value bound as a parameter as it is (an expression or object is not). */
export function isPlainValue(value: unknown): boolean {
  return value === null || (typeof value !== 'object' && typeof value !== 'function' && value !== undefined);
}

/** Compiles with a marker in place of each argument and records which parameter is which argument (-1: a constant). */
function compileWithSlots<DB, Args extends unknown[], Row>(
  executor: Kysely<DB>,
  build: (db: Kysely<DB>, ...args: Args) => Compilable<Row>,
  arity: number,
): Prepared<Row> {
  const placeholders = Array.from({ length: arity }, (_, i) => `${MARK}${i}`) as unknown as Args;
  const compiled = build(executor, ...placeholders).compile();
  const slots = compiled.parameters.map((p) => (typeof p === 'string' && p.startsWith(MARK) ? Number(p.slice(MARK.length)) : -1));
  if (new Set(slots.filter((s) => s >= 0)).size !== arity) throw new Error('prepareFor(): every argument must appear as a query parameter');
  return { compiled, slots };
}

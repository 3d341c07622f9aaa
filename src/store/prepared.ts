// Compile a query once, run it many times. Kysely rebuilds and recompiles a query on every
// call, which costs more than SQLite takes to run a small indexed one; for the few queries
// on the hot path (every authenticated request, every event) we compile once with
// placeholder arguments and substitute the real ones by position.
import type { CompiledQuery, Kysely } from 'kysely';
import type { Tables } from './tables.ts';

const MARK = '\u0000arg:';

type Compilable<Row> = { compile(): CompiledQuery<Row> };
type Prepared<Row> = { compiled: CompiledQuery<Row>; slots: number[] };

/**
 * The returned function takes the executor first (a transaction, or the database), so one
 * prepared query serves both. The query is compiled on first use with that executor's
 * dialect, once per dialect: the SQL text differs between engines.
 */
export function prepareFor<Args extends unknown[], Row>(
  build: (db: Kysely<Tables>, ...args: Args) => Compilable<Row>,
  arity: Args['length'],
): (executor: Kysely<Tables>, ...args: Args) => Promise<Row[]> {
  const byAdapter = new Map<unknown, Prepared<Row>>();
  const preparedFor = (executor: Kysely<Tables>): Prepared<Row> => {
    const adapter = executor.getExecutor().adapter.constructor;
    let entry = byAdapter.get(adapter);
    if (!entry) {
      entry = compileWithSlots(executor, build, arity);
      byAdapter.set(adapter, entry);
    }
    return entry;
  };
  return async (executor, ...args) => {
    const { compiled, slots } = preparedFor(executor);
    const parameters = compiled.parameters.map((p, i) => (slots[i]! >= 0 ? args[slots[i]!] : p));
    return (await executor.executeQuery<Row>({ ...compiled, parameters })).rows;
  };
}

/** Compiles with a marker in place of each argument and records which parameter is which argument (-1: a constant). */
function compileWithSlots<Args extends unknown[], Row>(
  executor: Kysely<Tables>,
  build: (db: Kysely<Tables>, ...args: Args) => Compilable<Row>,
  arity: number,
): Prepared<Row> {
  const placeholders = Array.from({ length: arity }, (_, i) => `${MARK}${i}`) as unknown as Args;
  const compiled = build(executor, ...placeholders).compile();
  const slots = compiled.parameters.map((p) => (typeof p === 'string' && p.startsWith(MARK) ? Number(p.slice(MARK.length)) : -1));
  if (new Set(slots.filter((s) => s >= 0)).size !== arity) throw new Error('prepareFor(): every argument must appear as a query parameter');
  return { compiled, slots };
}

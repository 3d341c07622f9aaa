// Compile a query once, run it many times. Kysely rebuilds and recompiles a query on every
// call, which costs more than SQLite takes to run a small indexed one; for the few queries
// on the hot path (every authenticated request) we compile once with placeholder arguments
// and substitute the real ones by position.
import type { CompiledQuery, Kysely } from 'kysely';
import type { Tables } from './tables.ts';

const MARK = '\u0000arg:';

export function prepare<Args extends unknown[], Row>(
  db: Kysely<Tables>,
  build: (...args: Args) => { compile(): CompiledQuery<Row> },
  arity: Args['length'],
): (...args: Args) => Promise<Row[]> {
  const placeholders = Array.from({ length: arity }, (_, i) => `${MARK}${i}`) as unknown as Args;
  const compiled = build(...placeholders).compile();
  const slots = compiled.parameters.map((p) => (typeof p === 'string' && p.startsWith(MARK) ? Number(p.slice(MARK.length)) : -1));
  if (new Set(slots.filter((s) => s >= 0)).size !== arity) {
    throw new Error('prepare(): every argument must appear as a query parameter');
  }
  return async (...args: Args) => {
    const parameters = compiled.parameters.map((p, i) => (slots[i]! >= 0 ? args[slots[i]!] : p));
    return (await db.executeQuery<Row>({ ...compiled, parameters })).rows;
  };
}

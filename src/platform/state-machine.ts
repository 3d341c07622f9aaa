// One state machine helper for every resource (ARCHITECTURE rule 2). A resource's states.ts
// holds its table as data (TRANSITIONS, and its events) and defines its machine here; the
// machine is then the only way the resource's status moves:
//
//   - an illegal move is a 409 problem (`invalid_state_transition`, or the resource's own);
//   - a move is one conditional UPDATE ... WHERE id = ? AND status = <the status we read>.
//     When no row is updated, somebody else moved the row since we read it: the move fails
//     with a 409 `conflict`, and the caller's transaction rolls back. Of two racers from the
//     same state, exactly one moves (PostgreSQL re-checks the WHERE after the winner commits;
//     SQLite runs one writer at a time).
//
// Events stay with the resource (each presents and emits its own way), called right after
// `move` in the same transaction, so a move and its event commit together.
//
// A table is either a list of next states per state, or, per state, a map from each next
// state to the event the move emits (recordings: a resume is not a start). A machine with no
// `table` (a transfer inside a call's JSON) only checks moves; its owner stores them.
import type { Kysely } from 'kysely';
import { Problem } from './problems.ts';
import { prepareUpdateByIdAndStatus } from '../store/compile-once.ts';

export type TransitionTable<S extends string> = Record<S, readonly S[] | Partial<Record<S, unknown>>>;

interface Stated<S extends string> {
  id: string;
  status: S;
}

export interface MachineDefinition<S extends string, Row extends Stated<S>> {
  /** The resource's name in problems: `Call`, `Port`, ... */
  resource: string;
  transitions: TransitionTable<S>;
  /** A rule beyond the table (only WhatsApp messages are `read`). */
  allows?(row: Row, to: S): boolean;
  /** A problem more precise than `invalid_state_transition` for some refused moves. */
  refusal?(row: Row, to: S): Problem | undefined;
}

export interface StoredMachineDefinition<S extends string, Row extends Stated<S>> extends MachineDefinition<S, Row> {
  /** The table whose `status` column the machine moves. */
  table: string;
  /**
   * The columns a move writes besides `status` and `updated_at`, from the caller's `set`:
   * a state's timestamp, `ended_at`, ... (default: `set` as given).
   */
  stamp?(row: Row, to: S, now: string, set: Partial<Row>): Partial<Row>;
}

export interface StateMachine<S extends string, Row extends Stated<S>> {
  readonly resource: string;
  readonly transitions: TransitionTable<S>;
  /** Whether the table allows `from -> to`. */
  can(from: S, to: S): boolean;
  /** A state with no way out. */
  isFinal(state: S): boolean;
  /** Throws the 409 problem when `row` may not become `to`. */
  assert(row: Row, to: S): void;
}

export interface MoveOptions<Row> {
  /** The transition's instant (from the injected Clock), stamped as `updated_at`. */
  now: string;
  /** Other columns the same change writes. */
  set?: Partial<Row>;
  /** Narrows the UPDATE further (a move that also depends on another column). */
  where?: (update: any) => any;
}

export interface StoredStateMachine<S extends string, Row extends Stated<S>> extends StateMachine<S, Row> {
  readonly table: string;
  /**
   * Moves `row` (as read in this transaction) to `to`: checks, stamps and UPDATEs it if it is
   * still in the status read. Returns the row as it now is.
   */
  move(trx: Kysely<any>, row: Row, to: S, options: MoveOptions<Row>): Promise<Row>;
}

export function defineStateMachine<S extends string, Row extends Stated<S>>(def: StoredMachineDefinition<S, Row>): StoredStateMachine<S, Row>;
export function defineStateMachine<S extends string, Row extends Stated<S>>(def: MachineDefinition<S, Row>): StateMachine<S, Row>;
export function defineStateMachine<S extends string, Row extends Stated<S>>(
  def: MachineDefinition<S, Row> | StoredMachineDefinition<S, Row>,
): StateMachine<S, Row> | StoredStateMachine<S, Row> {
  const { resource, transitions } = def;
  const nextOf = (from: S): readonly string[] => {
    const next = transitions[from];
    return Array.isArray(next) ? next : Object.keys(next);
  };
  const can = (from: S, to: S) => nextOf(from).includes(to);
  const machine: StateMachine<S, Row> = {
    resource,
    transitions,
    can,
    isFinal: (state) => nextOf(state).length === 0,
    assert(row, to) {
      if (can(row.status, to) && (def.allows?.(row, to) ?? true)) return;
      throw def.refusal?.(row, to) ?? new Problem('invalid_state_transition', `${resource} ${row.id} is ${row.status} and cannot become ${to}.`);
    },
  };
  if (!('table' in def)) return machine;
  const { table } = def;
  const stamp = def.stamp ?? ((_row, _to, _now, set) => set);
  // Every status change runs this UPDATE: compiled once per set of columns, unless the caller narrows it.
  const updateById = prepareUpdateByIdAndStatus(table);
  return {
    ...machine,
    table,
    async move(trx, row, to, { now, set = {}, where }) {
      machine.assert(row, to);
      // Object.assign, not a spread given new keys: on Node 20 each such copy gets a V8 map of its
      // own, which costs every status change and every reader of the object (docs/benchmarks.md).
      const changes = Object.assign({}, stamp(row, to, now, set), { status: to, updated_at: now }) as Partial<Row>;
      const updated = where
        ? Number((await where(trx.updateTable(table).set(changes).where('id', '=', row.id).where('status', '=', row.status)).executeTakeFirst()).numUpdatedRows)
        : await updateById(trx, changes, row.id, row.status);
      if (updated !== 1) {
        throw new Problem('conflict', `${resource} ${row.id} changed while this request ran; retry.`);
      }
      return { ...row, ...changes };
    },
  };
}

// A call's flow, durable in its row: the verbs, which one runs (`pc`), the media operation it
// awaits (`op`, so a late or repeated report from the port is ignored), and the log of every
// verb run so far. Written in the same transaction as the media command it goes with, so a
// restart finds the call exactly where the flow was.
import type { Trx } from '../../../store/transaction.ts';
import type { CallRow } from '../tables.ts';
import type { Verb, VerbName } from './schema.ts';

export interface FlowState {
  verbs: Verb[];
  /** Index of the verb running (or about to run). */
  pc: number;
  /** Id of the media operation the running verb awaits; null between verbs. */
  op: string | null;
  /** Counter behind op ids: `<call id>:<seq>`. */
  seq: number;
}

export interface FlowLogEntry {
  /** Position of the verb in the flow that ran it. */
  index: number;
  verb: VerbName;
  started_at: string;
  ended_at: string | null;
  /** What came of it: `{reason}` for say and pause (finished, interrupted, hangup). */
  result: Record<string, unknown> | null;
}

export function newFlowState(verbs: Verb[]): FlowState {
  return { verbs, pc: 0, op: null, seq: 0 };
}

export function flowStateOf(call: CallRow): FlowState | null {
  return call.flow_state ? JSON.parse(call.flow_state) as FlowState : null;
}

export function flowLogOf(call: CallRow): FlowLogEntry[] {
  return JSON.parse(call.flow_log ?? '[]') as FlowLogEntry[];
}

export function verbName(verb: Verb): VerbName {
  return Object.keys(verb)[0] as VerbName;
}

/** Saves state and log; returns the row as it now is. */
export async function saveFlow(trx: Trx, call: CallRow, state: FlowState, log: FlowLogEntry[]): Promise<CallRow> {
  const changes = { flow_state: JSON.stringify(state), flow_log: JSON.stringify(log) };
  await trx.updateTable('calls').set(changes).where('id', '=', call.id).execute();
  return { ...call, ...changes };
}

// A call's flow, durable in its row: the verbs, which one runs (`pc`), the media operation or
// webhook it awaits (`op`, so a late or repeated report is ignored), the webhook to fetch
// while one is pending, and the log of every verb run so far. Written in the same transaction
// as the media command or fetch job it goes with, so a restart finds the call exactly where
// the flow was.
import type { Trx } from '../../../store/transaction.ts';
import type { CallRow } from '../tables.ts';

/**
 * The verbs a flow holds, and their names. Flow state is verb-neutral: the verbs themselves
 * read and save it, so it cannot import their union; the registry (verbs/registry.ts) plugs
 * the union in by augmenting this interface, and every file sees the full types.
 */
export interface FlowVerbs {}
type Verb = FlowVerbs extends { verb: infer V } ? V : never;
type VerbName = FlowVerbs extends { name: infer N } ? N : never;

/** A flow webhook the call waits on: why it is asked, where, and whether it is the fallback. */
export interface PendingFetch {
  /**
   * `answer`: the call's first flow; `update`: POST /v1/calls/{id}/flow gave a URL to take
   * the call's flow from; a verb's name: that verb asks (a redirect, a gather's or dial's action_url).
   */
  reason: 'answer' | 'update' | VerbName;
  url: string;
  fallback: boolean;
  /** Under the asking verb's name (`gather`, `dial`): the result its action_url receives. */
  [result: string]: unknown;
}

export interface FlowState {
  verbs: Verb[];
  /** Index of the verb running (or about to run). */
  pc: number;
  /** Id of the media operation or webhook fetch the flow awaits; null between verbs. */
  op: string | null;
  /** Counter behind op ids: `<call id>:<seq>`. */
  seq: number;
  /** The webhook being fetched while `op` awaits one; the flow's first one (answer_url, voice_url) before the answer. */
  fetch?: PendingFetch | null;
  /** Asked when a flow webhook fails (a number's voice_fallback_url, or answer_fallback_url). */
  fallbackUrl?: string | null;
  /** Flow webhooks answered in a row with no media verb finishing between: bounds redirect loops. */
  hops?: number;
  /** The flow failed and its apology runs: nothing more is fetched. */
  failed?: boolean;
  /**
   * POST /v1/calls/{id}/flow asked for a new flow while a verb ran: the verb was interrupted,
   * and when the media port reports its end (with what it had, e.g. a gather's digits so far)
   * this replaces the flow instead of the next verb running.
   */
  replacement?: FlowReplacement | null;
  /** The verb at `pc` waits for its audio to be fetched (`op` names that fetch). */
  loading?: boolean;
  /** The recording the running record verb fills. */
  recordingId?: string | null;
  /** A transfer verb waits for the call's transfer of this index to settle. */
  transfer?: number | null;
  /** The flow ended the call, and how: the call's hangup_reason says so (states.ts). */
  ended?: FlowEnd;
}

/** How a flow ended its call: a hangup verb, no verb left, or the apology after a failure. */
export type FlowEnd = 'hangup_verb' | 'ran_out' | 'apology';

/** What a live update runs instead: a flow, or the URL that answers one. */
export type FlowReplacement = { verbs: Verb[] } | { url: string };

export interface FlowLogEntry {
  /** Position of the verb in the flow that ran it. */
  index: number;
  verb: VerbName;
  started_at: string;
  ended_at: string | null;
  /** What came of it: `{reason}` for say and pause (finished, interrupted, hangup), the input for gather. */
  result: Record<string, unknown> | null;
}

export function newFlowState(verbs: Verb[]): FlowState {
  return { verbs, pc: 0, op: null, seq: 0 };
}

/** A flow that starts by asking `url` for its verbs when the call is answered. */
export function fetchedFlowState(url: string, fallbackUrl: string | null): FlowState {
  return { verbs: [], pc: 0, op: null, seq: 0, fetch: { reason: 'answer', url, fallback: false }, fallbackUrl };
}

export function flowStateOf(call: CallRow): FlowState | null {
  return call.flow_state ? JSON.parse(call.flow_state) as FlowState : null;
}

export function flowLogOf(call: CallRow): FlowLogEntry[] {
  return JSON.parse(call.flow_log ?? '[]') as FlowLogEntry[];
}

/** Saves state and log; returns the row as it now is. */
export async function saveFlow(trx: Trx, call: CallRow, state: FlowState, log: FlowLogEntry[]): Promise<CallRow> {
  const changes = { flow_state: JSON.stringify(state), flow_log: JSON.stringify(log) };
  await trx.updateTable('calls').set(changes).where('id', '=', call.id).execute();
  return { ...call, ...changes };
}

/** Ends the log's open entry (the verb running) with its result; nothing when none is open. */
export function closeEntry(log: FlowLogEntry[], at: string, result: Record<string, unknown>): void {
  const open = log.at(-1);
  if (open && open.ended_at === null) {
    open.ended_at = at;
    open.result = result;
  }
}

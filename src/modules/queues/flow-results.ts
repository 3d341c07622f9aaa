// How a queue's result reaches the flow that waits on it: the enqueue (or dequeue) verb's log
// entry closes with the result, and the flow goes on (the verb's action_url, told the result
// under the verb's name, else the next verb), as the interpreter does for any verb.
import type { Clock } from '../../platform/clock.ts';
import type { Trx } from '../../store/transaction.ts';
import type { CallRow } from '../calls/tables.ts';
import { closeEntry, flowLogOf, flowStateOf, type FlowLogEntry, type FlowState } from '../calls/flows/state.ts';
import type { FlowRuntime } from '../calls/flows/verbs/verb.ts';

export interface VerbOutcome {
  verb: 'enqueue' | 'dequeue';
  /** What the verb's log entry shows. */
  entry: Record<string, unknown>;
  /** What its action_url receives under the verb's name. */
  result: Record<string, unknown>;
  actionUrl: string | undefined;
  /**
   * The caller waited (or talked) before this result: the chain of webhook answers is broken
   * and the hop count restarts. A result at once (full, no such queue) keeps counting, so a
   * flow that re-enqueues into a full queue forever still hits the redirect-loop bound.
   */
  waited: boolean;
}

/** Goes on from the verb at `state.pc` (its entry open) with `outcome`. */
export async function continueFlow(flow: FlowRuntime, trx: Trx, call: CallRow, state: FlowState, log: FlowLogEntry[], clock: Clock, outcome: VerbOutcome): Promise<void> {
  closeEntry(log, clock.now().toISOString(), outcome.entry);
  const next: FlowState = { ...state, op: null, pc: state.pc + 1, ...(outcome.waited ? { hops: 0 } : {}) };
  if (outcome.actionUrl) {
    return flow.startFetch(trx, call, next, log, clock, { reason: outcome.verb, url: outcome.actionUrl, fallback: false, [outcome.verb]: outcome.result });
  }
  await flow.advance(trx, call, next, log, clock);
}

/**
 * The verb that waits under `opId` on the locked `call` gets its outcome. False when the
 * flow no longer waits there (a live update replaced it, or the call ended): nothing to do.
 */
export async function settleWaitingVerb(flow: FlowRuntime, trx: Trx, call: CallRow, opId: string, outcome: VerbOutcome): Promise<boolean> {
  const state = flowStateOf(call);
  if (!state || state.op !== opId || call.status !== 'in_progress') return false;
  const clock = await flow.platform.sandboxClocks.clockFor(call.account_id, call.mode, trx);
  // The waiting verb's own action_url, unless the caller names one.
  const body = (state.verbs[state.pc] as Record<string, { action_url?: string } | undefined> | undefined)?.[outcome.verb];
  await continueFlow(flow, trx, call, state, flowLogOf(call), clock, { ...outcome, actionUrl: outcome.actionUrl ?? body?.action_url });
  return true;
}

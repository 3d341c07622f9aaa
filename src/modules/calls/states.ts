// The call state machine as data (ARCHITECTURE rule 2), and the one function that moves a
// call: CALL_MACHINE checks the move against TRANSITIONS, stamps the time and UPDATEs the row
// if it is still in the status read; `transition` then emits the new status's event in the
// same transaction.
import type { Trx } from '../../store/transaction.ts';
import type { Clock } from '../../platform/clock.ts';
import type { EventEmitter } from '../../events/emit.ts';
import type { EventType } from '../../events/catalogue.ts';
import { defineStateMachine } from '../../platform/state-machine.ts';
import type { CallRow } from './tables.ts';
import type { FlowEnd } from './flows/state.ts';
import { CALL_STATUSES, type CallStatus } from '../../telephony/call-ref.ts';
import { NODE_LOST, type HangupCause } from '../../telephony/call-end.ts';

export { CALL_STATUSES, type CallStatus };

export const TRANSITIONS: Record<CallStatus, readonly CallStatus[]> = {
  queued: ['ringing', 'busy', 'no_answer', 'failed', 'canceled'],
  ringing: ['in_progress', 'busy', 'no_answer', 'failed', 'canceled'],
  // An answered call ends completed, however it ended, except when the platform lost it: its
  // media node died (the SIP dialog and audio with it), and a surviving node fails it.
  in_progress: ['completed', 'failed'],
  completed: [],
  busy: [],
  no_answer: [],
  failed: [],
  canceled: [],
};

/** The event each status emits when a call enters it (`queued` on creation). */
export const STATE_EVENTS: Record<CallStatus, EventType> = {
  queued: 'call.queued',
  ringing: 'call.ringing',
  in_progress: 'call.answered',
  completed: 'call.completed',
  busy: 'call.busy',
  no_answer: 'call.no_answer',
  failed: 'call.failed',
  canceled: 'call.canceled',
};

/** Statuses that hold a line: they count against the plan's concurrent-call limit. */
export const ACTIVE_STATUSES: readonly CallStatus[] = ['queued', 'ringing', 'in_progress'];

export function isFinal(status: CallStatus): boolean {
  return TRANSITIONS[status].length === 0;
}

const FLOW_END_REASONS: Record<FlowEnd, string> = {
  hangup_verb: 'The call\'s flow hung up (a hangup verb).',
  ran_out: 'The call\'s flow ran out of verbs, so Switchboard hung up (as after the last verb of a TwiML document).',
  apology: 'The call\'s flow failed (see call.flow.failed for why), so the caller heard an apology and Switchboard hung up.',
};

/** A readable sentence for how a call ended (the call's `hangup_reason`, and `failure.message`). */
export function hangupReason(call: Pick<CallRow, 'hangup_cause' | 'hangup_source' | 'timeout' | 'time_limit' | 'direction' | 'flow_state' | 'carrier_code'>): string | null {
  const cause = call.hangup_cause as HangupCause | null;
  if (call.carrier_code === NODE_LOST) {
    return 'The Switchboard media node holding the call stopped (a crash, or it lost its lease), and the call\'s SIP dialog and audio with it; a surviving node ended the call.';
  }
  switch (cause) {
    case null: return null;
    case 'normal_clearing': {
      // Our side hung up: the call's flow did it (a sentence of its own), or the API.
      const ours = call.hangup_source === (call.direction === 'inbound' ? 'callee' : 'caller');
      const ended = ours && call.flow_state ? (JSON.parse(call.flow_state) as { ended?: FlowEnd }).ended : undefined;
      if (ended) return FLOW_END_REASONS[ended];
      if (call.hangup_source === 'caller') return 'The call was hung up through the API (POST /v1/calls/{id}/hangup).';
      if (call.hangup_source === 'callee') return 'The called party hung up.';
      return 'The call ended normally.';
    }
    case 'user_busy': return 'The called party was busy.';
    case 'no_answer': return `The called party did not answer within the ring timeout (${call.timeout} s).`;
    case 'call_rejected': return 'The called party rejected the call.';
    case 'unallocated_number': return 'The called number does not exist (unallocated number).';
    case 'network_out_of_order': return 'The carrier could not reach the called number (network out of order).';
    case 'originator_cancel': return 'The call was hung up before it was answered.';
    case 'time_limit_reached': return `The call reached its time_limit (${call.time_limit} s) and was hung up.`;
  }
}

export interface TransitionDeps {
  events: EventEmitter;
  clock: Clock;
  /** The call as GET returns it (the event payload). */
  present(trx: Trx, row: CallRow): Promise<unknown>;
  /** Runs after the UPDATE, before the event: lets recordings start or stop with the call. */
  afterUpdate?(trx: Trx, row: CallRow, from: CallStatus): Promise<void>;
}

export type TransitionExtra = Partial<Pick<CallRow, 'answered_at' | 'ended_at' | 'duration_seconds' | 'hangup_cause' | 'hangup_source' | 'transfers' | 'carrier_code' | 'post_dial_delay_ms'>>;

/** The one way a call's status moves: check, stamp, conditional UPDATE (src/platform/state-machine.ts). */
export const CALL_MACHINE = defineStateMachine<CallStatus, CallRow>({
  resource: 'Call',
  table: 'calls',
  transitions: TRANSITIONS,
  stamp(row, to, now, extra) {
    const timestamps = JSON.parse(row.timestamps) as Record<string, string>;
    timestamps[to] = now;
    const changes: Partial<CallRow> = Object.assign({}, extra, { timestamps: JSON.stringify(timestamps) }); // not a spread: see state-machine.ts
    // One instant per transition: answered_at and ended_at equal their timestamps entry.
    if (to === 'in_progress') changes.answered_at ??= now;
    if (isFinal(to)) changes.ended_at ??= now;
    return changes;
  },
});

export async function transition(trx: Trx, deps: TransitionDeps, row: CallRow, to: CallStatus, extra: TransitionExtra = {}): Promise<CallRow> {
  const next = await CALL_MACHINE.move(trx, row, to, { now: deps.clock.now().toISOString(), set: extra });
  await deps.afterUpdate?.(trx, next, row.status);
  const object = await deps.present(trx, next);
  // Every ended call also emits call.completed (once), after its outcome's own event, so a
  // customer subscribed only to the interface's five events learns of busy, unanswered,
  // failed and canceled calls too; `status`, `hangup_cause` and `failure` say how it ended.
  const types = isFinal(to) && STATE_EVENTS[to] !== 'call.completed' ? [STATE_EVENTS[to], 'call.completed' as const] : [STATE_EVENTS[to]];
  for (const type of types) {
    await deps.events.emit(trx, {
      accountId: next.account_id, mode: next.mode, type, resourceType: 'call', resourceId: next.id, object, webhookUrl: next.webhook_url, clock: deps.clock,
    });
  }
  return next;
}

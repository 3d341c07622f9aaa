// The conference state machine as data: each allowed move and the event it emits.
//
//   waiting -> in_progress (a start_on_enter participant joined) | completed
//   in_progress -> completed (the last participant left, an end_on_exit one left, or POST .../end)
import type { Trx } from '../../store/transaction.ts';
import type { Clock } from '../../platform/clock.ts';
import type { EventEmitter } from '../../events/emit.ts';
import type { EventType } from '../../events/catalogue.ts';
import { defineStateMachine } from '../../platform/state-machine.ts';
import type { ConferenceStatus } from '../../telephony/conference.ts';
import type { ConferenceRow } from './tables.ts';

export const TRANSITIONS: Record<ConferenceStatus, Partial<Record<ConferenceStatus, EventType>>> = {
  waiting: { in_progress: 'conference.started', completed: 'conference.ended' },
  in_progress: { completed: 'conference.ended' },
  completed: {},
};

export const CONFERENCE_MACHINE = defineStateMachine<ConferenceStatus, ConferenceRow>({
  resource: 'Conference',
  table: 'conferences',
  transitions: TRANSITIONS,
  stamp: (_row, to, now, set) => ({ ...set, ...(to === 'in_progress' ? { started_at: now } : {}), ...(to === 'completed' ? { ended_at: now } : {}) }),
});

/** Moves the conference and emits its event, in the caller's transaction. */
export async function transition(
  trx: Trx, deps: { events: EventEmitter; clock: Clock; present(row: ConferenceRow): Promise<unknown> }, row: ConferenceRow, to: ConferenceStatus, set: Partial<ConferenceRow> = {},
): Promise<ConferenceRow> {
  const next = await CONFERENCE_MACHINE.move(trx, row, to, { now: deps.clock.now().toISOString(), set });
  const type = TRANSITIONS[row.status][to];
  if (type) {
    await deps.events.emit(trx, {
      accountId: next.account_id, mode: next.mode, type, resourceType: 'conference', resourceId: next.id,
      object: await deps.present(next), webhookUrl: null, clock: deps.clock,
    });
  }
  return next;
}

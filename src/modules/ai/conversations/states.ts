// The conversation lifecycle as data: in_progress -> completed. `transition` checks the
// move, stamps it, UPDATEs the row with the outcome and emits ai.conversation.completed in
// the caller's transaction.
import type { Trx } from '../../../store/transaction.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { EventType } from '../../../events/catalogue.ts';
import { defineStateMachine } from '../../../platform/state-machine.ts';
import type { ConversationRow, ConversationStatus } from '../tables.ts';

export const TRANSITIONS: Record<ConversationStatus, readonly ConversationStatus[]> = {
  in_progress: ['completed'],
  completed: [],
};

export const STATE_EVENTS: Record<ConversationStatus, EventType> = {
  in_progress: 'ai.conversation.started',
  completed: 'ai.conversation.completed',
};

export interface ConversationTransitionDeps {
  clock: Clock;
  emit(trx: Trx, row: ConversationRow, type: EventType): Promise<void>;
}

/** The one way the status moves: check, stamp, conditional UPDATE (src/platform/state-machine.ts). */
const MACHINE = defineStateMachine<ConversationStatus, ConversationRow>({
  resource: 'Conversation',
  table: 'ai_conversations',
  transitions: TRANSITIONS,
  stamp(_row, to, now, extra) {
    const changes: Partial<ConversationRow> = { ...extra };
    if (to === 'completed') changes.ended_at = now;
    return changes;
  },
});

export async function transition(
  trx: Trx, deps: ConversationTransitionDeps, row: ConversationRow, to: ConversationStatus, extra: Partial<ConversationRow> = {},
): Promise<ConversationRow> {
  const next = await MACHINE.move(trx, row, to, { now: deps.clock.now().toISOString(), set: extra });
  await deps.emit(trx, next, STATE_EVENTS[to]);
  return next;
}

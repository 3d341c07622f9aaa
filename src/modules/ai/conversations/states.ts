// The conversation lifecycle as data: in_progress -> completed. `transition` checks the
// move, stamps it, UPDATEs the row with the outcome and emits ai.conversation.completed in
// the caller's transaction.
import type { Trx } from '../../../store/transaction.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { EventType } from '../../../events/catalogue.ts';
import { Problem } from '../../../platform/problems.ts';
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

export async function transition(
  trx: Trx, deps: ConversationTransitionDeps, row: ConversationRow, to: ConversationStatus, extra: Partial<ConversationRow> = {},
): Promise<ConversationRow> {
  if (!TRANSITIONS[row.status].includes(to)) {
    throw new Problem('invalid_state_transition', `Conversation ${row.id} is ${row.status} and cannot become ${to}.`);
  }
  const now = deps.clock.now().toISOString();
  const changes: Partial<ConversationRow> = { ...extra, status: to, updated_at: now };
  if (to === 'completed') changes.ended_at = now;
  await trx.updateTable('ai_conversations').set(changes).where('id', '=', row.id).execute();
  const next = { ...row, ...changes };
  await deps.emit(trx, next, STATE_EVENTS[to]);
  return next;
}

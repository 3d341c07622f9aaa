// The agent lifecycle as data: active <-> paused, either -> deleted (final). `transition`
// is the one way an agent's status moves: it checks the move, stamps it, UPDATEs the row
// with any other changes of the same request and emits the event, in the caller's transaction.
import type { Trx } from '../../../store/transaction.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { EventType } from '../../../events/catalogue.ts';
import { Problem } from '../../../platform/problems.ts';
import type { AgentRow, AgentStatus } from '../tables.ts';

export const TRANSITIONS: Record<AgentStatus, readonly AgentStatus[]> = {
  active: ['paused', 'deleted'],
  paused: ['active', 'deleted'],
  deleted: [],
};

export const STATE_EVENTS: Record<AgentStatus, EventType> = {
  active: 'ai.agent.updated',
  paused: 'ai.agent.updated',
  deleted: 'ai.agent.deleted',
};

export interface AgentTransitionDeps {
  clock: Clock;
  emit(trx: Trx, row: AgentRow, type: EventType): Promise<void>;
}

export async function transition(trx: Trx, deps: AgentTransitionDeps, row: AgentRow, to: AgentStatus, extra: Partial<AgentRow> = {}): Promise<AgentRow> {
  if (!TRANSITIONS[row.status].includes(to)) {
    throw new Problem('invalid_state_transition', `Agent ${row.id} is ${row.status} and cannot become ${to}.`);
  }
  const now = deps.clock.now().toISOString();
  const changes: Partial<AgentRow> = { ...extra, status: to, updated_at: now };
  if (to === 'deleted') changes.deleted_at = now;
  await trx.updateTable('ai_agents').set(changes).where('id', '=', row.id).execute();
  const next = { ...row, ...changes };
  await deps.emit(trx, next, STATE_EVENTS[to]);
  return next;
}

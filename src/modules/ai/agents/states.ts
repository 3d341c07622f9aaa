// The agent lifecycle as data: active <-> paused, either -> deleted (final). `transition`
// is the one way an agent's status moves: it checks the move, stamps it, UPDATEs the row
// with any other changes of the same request and emits the event, in the caller's transaction.
import type { Trx } from '../../../store/transaction.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { EventType } from '../../../events/catalogue.ts';
import { defineStateMachine } from '../../../platform/state-machine.ts';
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

/** The one way the status moves: check, stamp, conditional UPDATE (src/platform/state-machine.ts). */
const MACHINE = defineStateMachine<AgentStatus, AgentRow>({
  resource: 'Agent',
  table: 'ai_agents',
  transitions: TRANSITIONS,
  stamp(_row, to, now, extra) {
    const changes: Partial<AgentRow> = { ...extra };
    if (to === 'deleted') changes.deleted_at = now;
    return changes;
  },
});

export async function transition(trx: Trx, deps: AgentTransitionDeps, row: AgentRow, to: AgentStatus, extra: Partial<AgentRow> = {}): Promise<AgentRow> {
  const next = await MACHINE.move(trx, row, to, { now: deps.clock.now().toISOString(), set: extra });
  await deps.emit(trx, next, STATE_EVENTS[to]);
  return next;
}

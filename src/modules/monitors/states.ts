// The monitor state machine as data: each allowed move and the event it emits.
//
//   dialing -> active (the supervisor answered and is seated beside the conversation) | ended
//   active  -> ended (DELETE, the supervisor hung up, or the conversation ended)
import type { Trx } from '../../store/transaction.ts';
import type { Clock } from '../../platform/clock.ts';
import type { EventEmitter } from '../../events/emit.ts';
import type { EventType } from '../../events/catalogue.ts';
import { defineStateMachine } from '../../platform/state-machine.ts';
import { presentMonitor } from './presenter.ts';
import type { MonitorRow } from './tables.ts';
import type { MonitorStatus } from './kinds.ts';


export const TRANSITIONS: Record<MonitorStatus, Partial<Record<MonitorStatus, EventType>>> = {
  dialing: { active: 'call.monitor.started', ended: 'call.monitor.ended' },
  active: { ended: 'call.monitor.ended' },
  ended: {},
};

export const MONITOR_MACHINE = defineStateMachine<MonitorStatus, MonitorRow>({
  resource: 'Monitor',
  table: 'monitors',
  transitions: TRANSITIONS,
  stamp: (_row, to, now, set) => ({ ...set, ...(to === 'active' ? { started_at: now } : {}), ...(to === 'ended' ? { ended_at: now } : {}) }),
});

export interface MonitorEventDeps {
  events: EventEmitter;
  clock: Clock;
  /** Where the monitored call's events go (its webhook_url). */
  webhookUrl: string | null;
}

/** Moves the monitor and emits its event, in the caller's transaction. */
export async function transition(trx: Trx, deps: MonitorEventDeps, row: MonitorRow, to: MonitorStatus, set: Partial<MonitorRow> = {}): Promise<MonitorRow> {
  const next = await MONITOR_MACHINE.move(trx, row, to, { now: deps.clock.now().toISOString(), set });
  const type = TRANSITIONS[row.status][to];
  if (type) await emitMonitor(trx, deps, next, type);
  return next;
}

/** A monitor's event: on the monitored call (resource call), to its webhook_url and the subscriptions. */
export async function emitMonitor(trx: Trx, deps: MonitorEventDeps, row: MonitorRow, type: EventType): Promise<void> {
  await deps.events.emit(trx, {
    accountId: row.account_id, mode: row.mode, type, resourceType: 'call', resourceId: row.call_id,
    object: presentMonitor(row), webhookUrl: deps.webhookUrl, clock: deps.clock,
  });
}

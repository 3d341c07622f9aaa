// A worker's status as data:
//
//   offline --(PATCH status available)--> available --(routing connects a caller)--> busy
//   busy --(the call ends; wrap_up_seconds > 0)--> wrap_up --(the wrap-up job, or PATCH)--> available
//   busy --(the call ends; no wrap-up)--> available
//   available | wrap_up --(PATCH status offline)--> offline
//
// `busy` is the system's: a PATCH may ask only for available or offline (schema.ts), and a
// busy worker stays busy until its call ends. Every move emits worker.status_changed.
import type { Trx } from '../../store/transaction.ts';
import type { Clock } from '../../platform/clock.ts';
import type { EventEmitter } from '../../events/emit.ts';
import type { EventType } from '../../events/catalogue.ts';
import { defineStateMachine } from '../../platform/state-machine.ts';
import { Problem } from '../../platform/problems.ts';
import { WORKER_STATUSES, type WorkerRow, type WorkerStatus } from './tables.ts';
import { presentWorkerFrom } from './presenter.ts';
import { recordHistory } from './status-history.ts';

export { WORKER_STATUSES, type WorkerStatus };

export const TRANSITIONS: Record<WorkerStatus, readonly WorkerStatus[]> = {
  // busy from offline: an offer rang, the worker went offline, then answered it anyway.
  offline: ['available', 'busy'],
  available: ['busy', 'offline'],
  busy: ['wrap_up', 'available'],
  wrap_up: ['available', 'offline'],
};

export const STATE_EVENTS: Record<WorkerStatus, EventType> = {
  offline: 'worker.status_changed',
  available: 'worker.status_changed',
  busy: 'worker.status_changed',
  wrap_up: 'worker.status_changed',
};

export const WORKER_MACHINE = defineStateMachine<WorkerStatus, WorkerRow>({
  resource: 'Worker',
  table: 'workers',
  transitions: TRANSITIONS,
  refusal: (row, to) => row.status === 'busy' && to === 'offline'
    ? new Problem('worker_busy', `Worker ${row.id} is on call ${row.current_call_id ?? '(unknown)'}; it can go offline once the call ends.`)
    : undefined,
  // Becoming available starts the idle time routing orders by; leaving busy ends the call.
  stamp: (row, to, now, set) => ({
    ...set,
    status_changed_at: now,
    ...(to === 'available' ? { last_idle_at: now } : {}),
    ...(row.status === 'busy' && to !== 'busy' ? { current_call_id: null } : {}),
  }),
});

/** Moves the worker, records the move in its status history and emits worker.status_changed, in the caller's transaction. */
export async function transition(
  trx: Trx, deps: { events: EventEmitter; clock: Clock }, row: WorkerRow, to: WorkerStatus, set: Partial<WorkerRow> = {},
): Promise<WorkerRow> {
  const next = await WORKER_MACHINE.move(trx, row, to, { now: deps.clock.now().toISOString(), set });
  // Busy: on its call, with the caller it was offered (the move clears the offer from the row).
  await recordHistory(trx, next, 'status', next.status_changed_at, next.status === 'busy' ? { callId: next.current_call_id, callerCallId: row.offer_caller_call_id } : {});
  await deps.events.emit(trx, {
    accountId: next.account_id, mode: next.mode, type: STATE_EVENTS[to], resourceType: 'worker', resourceId: next.id,
    object: await presentWorkerFrom(trx, next), webhookUrl: null, clock: deps.clock,
  });
  return next;
}

// The delivery state machine as data. A delivery waits (`pending`) for its first or next
// attempt; it ends `succeeded`, `dead` (dead-lettered after the last scheduled attempt) or
// `failed` (stopped early: 410 Gone, endpoint disabled or deleted, URL no longer allowed).
// Only `dead` and `failed` may be replayed, which puts them back to `pending`.
// Deliveries emit no events themselves (a webhook about a webhook would loop).
import { Problem } from '../../platform/problems.ts';
import { defineStateMachine } from '../../platform/state-machine.ts';
import type { DeliveryStatus } from './tables.ts';

/** Why deliveries are the one state table without events (test/platform/state-events.test.ts reads it). */
export const EVENTLESS_BECAUSE = 'A delivery carries an event to an endpoint; an event about a delivery would need a delivery of its own, without end. '
  + 'Its state is read with GET /v1/events/{id}/deliveries, GET /v1/webhooks/{id}/deliveries and GET /v1/webhooks/dead_letters.';

export const TRANSITIONS: Record<DeliveryStatus, readonly DeliveryStatus[]> = {
  pending: ['pending', 'succeeded', 'dead', 'failed'],
  succeeded: [],
  dead: ['pending'],
  failed: ['pending'],
};

/**
 * Checks moves only: the worker's UPDATEs carry their own guard (status and attempt count)
 * and write many columns at once; a refused replay has its own 409 code.
 */
export const DELIVERY_MACHINE = defineStateMachine<DeliveryStatus, { id: string; status: DeliveryStatus }>({
  resource: 'Delivery',
  transitions: TRANSITIONS,
  refusal: (row, to) => (to === 'pending'
    ? new Problem('delivery_not_replayable', `Delivery ${row.id} is ${row.status}; only dead-lettered or failed deliveries can be replayed.`)
    : undefined),
});

export function assertTransition(id: string, from: DeliveryStatus, to: DeliveryStatus): void {
  DELIVERY_MACHINE.assert({ id, status: from }, to);
}

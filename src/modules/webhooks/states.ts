// The delivery state machine as data. A delivery waits (`pending`) for its first or next
// attempt; it ends `succeeded`, `dead` (dead-lettered after the last scheduled attempt) or
// `failed` (stopped early: 410 Gone, endpoint disabled or deleted, URL no longer allowed).
// Only `dead` and `failed` may be replayed, which puts them back to `pending`.
// Deliveries emit no events themselves (a webhook about a webhook would loop).
import { Problem } from '../../platform/problems.ts';
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

export function assertTransition(id: string, from: DeliveryStatus, to: DeliveryStatus): void {
  if (TRANSITIONS[from].includes(to)) return;
  if (to === 'pending') {
    throw new Problem('delivery_not_replayable', `Delivery ${id} is ${from}; only dead-lettered or failed deliveries can be replayed.`);
  }
  throw new Problem('invalid_state_transition', `Delivery ${id} cannot move from ${from} to ${to}.`);
}

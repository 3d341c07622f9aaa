// A queue member's state machine as data:
//
//   waiting --(a dequeue takes it, dialling or to a call in progress)--> bridged --(the bridge ends)--> left
//   waiting --(POST dequeue {call_id}: held for that call's dequeue verb)--> reserved --> bridged
//   reserved --(the call that reserved it ended first)--> waiting
//   waiting | reserved --(timeout, leave, hang-up, DELETE, error)--> left
//
// Taking a caller is the conditional UPDATE of `move` (status still waiting): of two
// dequeues racing for one caller on any number of nodes, exactly one moves it.
import { defineStateMachine } from '../../platform/state-machine.ts';
import { MEMBER_STATUSES, type MemberStatus, type QueueMemberRow } from './tables.ts';

export { MEMBER_STATUSES, type MemberStatus };

/**
 * Why a member's moves have no events of their own (test/webhooks/state-events.test.ts reads it):
 * a member is a call's stay in a queue, so what a customer acts on reaches it as the call's
 * events. Entering the queue is call.queue.joined; leaving it, by a bridge (bridged) or by
 * timeout, leave, hang-up or DELETE (left), is call.queue.left with `result` and `wait_seconds`.
 * `reserved` is the instant between POST .../dequeue {call_id} and the taking call's dequeue
 * verb, which the taking call's flow events show; the end of a bridge is the calls' own events.
 */
export const EVENTLESS_BECAUSE = 'A queue member is a call\'s stay in a queue: joining is the call\'s call.queue.joined, '
  + 'leaving (bridged, timeout, leave, hangup, DELETE) is call.queue.left with result and wait_seconds; the member states '
  + 'are read with GET /v1/queues/{id}/members.';

export const TRANSITIONS: Record<MemberStatus, readonly MemberStatus[]> = {
  waiting: ['reserved', 'bridged', 'left'],
  reserved: ['waiting', 'bridged', 'left'],
  bridged: ['left'],
  left: [],
};

export const MEMBER_MACHINE = defineStateMachine<MemberStatus, QueueMemberRow>({
  resource: 'Queue member',
  table: 'queue_members',
  transitions: TRANSITIONS,
});

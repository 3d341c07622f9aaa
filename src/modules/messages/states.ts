// The message state machine as data (ARCHITECTURE rule 2). Every move goes through
// `transition()` in service.ts, which moves the row through MESSAGE_MACHINE (check, stamp,
// conditional UPDATE) and emits `message.<new status>` in the same transaction.
import type { EventType } from '../../events/catalogue.ts';
import { defineStateMachine } from '../../platform/state-machine.ts';
import { MESSAGE_STATUSES, type MessageRow, type MessageStatus } from './tables.ts';

export { MESSAGE_STATUSES, type MessageStatus };

/** Allowed next states. `read` only follows `delivered`, and only on WhatsApp (checked in transition()). */
export const TRANSITIONS: Record<MessageStatus, readonly MessageStatus[]> = {
  // `canceled`: POST /v1/messages/{id}/cancel, only before the carrier took the message.
  queued: ['sending', 'failed', 'canceled'],
  sending: ['sent', 'failed'],
  sent: ['delivered', 'undelivered', 'failed'],
  delivered: ['read'],
  read: [],
  undelivered: [],
  failed: [],
  canceled: [],
  // Inbound messages are born `received` and never move.
  received: [],
};

/** The event each state emits when a message enters it (`queued` or `received` when it is made). */
export const STATE_EVENTS: Record<MessageStatus, EventType> = {
  queued: 'message.queued',
  sending: 'message.sending',
  sent: 'message.sent',
  delivered: 'message.delivered',
  undelivered: 'message.undelivered',
  failed: 'message.failed',
  read: 'message.read',
  received: 'message.received',
  canceled: 'message.canceled',
};

/** Which timestamp column a state stamps when entered. */
export const STAMPS: Partial<Record<MessageStatus, 'sent_at' | 'delivered_at' | 'read_at' | 'failed_at' | 'received_at' | 'canceled_at'>> = {
  sent: 'sent_at',
  delivered: 'delivered_at',
  read: 'read_at',
  undelivered: 'failed_at',
  failed: 'failed_at',
  received: 'received_at',
  canceled: 'canceled_at',
};

/** The one way a message's status moves (src/platform/state-machine.ts). */
export const MESSAGE_MACHINE = defineStateMachine<MessageStatus, MessageRow>({
  resource: 'Message',
  table: 'messages',
  transitions: TRANSITIONS,
  allows: (row, to) => to !== 'read' || row.channel === 'whatsapp',
  stamp(row, to, now, fields) {
    const set: Partial<MessageRow> = Object.assign({}, fields, { status_reason: null, handoff_until: null }); // not a spread: see state-machine.ts
    const stamp = STAMPS[to];
    if (stamp) set[stamp] = now;
    // Stored as a number now, so the analytics rank an integer instead of parsing two timestamps per row.
    if (to === 'delivered') set.delivery_ms = Math.max(0, Date.parse(now) - Date.parse(row.created_at));
    return set;
  },
});

export function canMove(from: MessageStatus, to: MessageStatus): boolean {
  return MESSAGE_MACHINE.can(from, to);
}

/** True when `status` is at or past `target` on the path to it: a repeated carrier receipt. */
export function alreadyPassed(current: MessageStatus, target: MessageStatus): boolean {
  if (current === target) return true;
  const order: MessageStatus[] = ['queued', 'sending', 'sent', 'delivered', 'read'];
  const a = order.indexOf(current);
  const b = order.indexOf(target);
  return a >= 0 && b >= 0 && a > b;
}

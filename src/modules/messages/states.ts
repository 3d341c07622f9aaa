// The message state machine as data (ARCHITECTURE rule 2). Every move goes through
// `transition()` in service.ts, which checks it against this table, stamps the time,
// updates the row and emits `message.<new status>` in the same transaction.
import type { EventType } from '../../events/catalogue.ts';

export const MESSAGE_STATUSES = ['queued', 'sending', 'sent', 'delivered', 'undelivered', 'failed', 'read', 'received', 'canceled'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

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

export function canMove(from: MessageStatus, to: MessageStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** True when `status` is at or past `target` on the path to it: a repeated carrier receipt. */
export function alreadyPassed(current: MessageStatus, target: MessageStatus): boolean {
  if (current === target) return true;
  const order: MessageStatus[] = ['queued', 'sending', 'sent', 'delivered', 'read'];
  const a = order.indexOf(current);
  const b = order.indexOf(target);
  return a >= 0 && b >= 0 && a > b;
}

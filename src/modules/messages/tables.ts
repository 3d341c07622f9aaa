import type { Mode } from '../../store/platform-tables.ts';

// The column's values; states.ts holds the moves between them.
export const MESSAGE_STATUSES = ['queued', 'sending', 'sent', 'delivered', 'undelivered', 'failed', 'read', 'received', 'canceled'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export type Channel = 'sms' | 'mms' | 'whatsapp';
export type Direction = 'outbound' | 'inbound';

export interface MessageRow {
  id: string;
  account_id: string;
  mode: Mode;
  direction: Direction;
  channel: Channel;
  from_number: string;
  to_number: string;
  /** The account's number that sent (outbound) or received (inbound) the message. */
  number_id: string;
  body: string | null;
  media_urls: string; // JSON array
  template: string | null; // JSON {name, language, variables}
  encoding: 'gsm7' | 'ucs2';
  segments: number;
  status: MessageStatus;
  error_code: string | null;
  error_message: string | null;
  /** The carrier's own code for a failure (migration 0011). */
  carrier_code?: string | null;
  /** Why the message waits in its status (migration 0015); cleared by every status change. */
  status_reason?: string | null;
  /** When it was canceled (migration 0020). */
  canceled_at?: string | null;
  /** A live link is handing the still-queued message to its provider until this time; a cancel waits it out (migration 0020). */
  handoff_until?: string | null;
  webhook_url: string | null;
  metadata: string; // JSON object
  created_at: string;
  updated_at: string;
  sent_at: string | null;
  delivered_at: string | null;
  /** Outbound: milliseconds from acceptance (created_at) to delivery, stamped with delivered_at (migration 0033); the delivery-time percentiles rank it. */
  delivery_ms?: number | null;
  read_at: string | null;
  failed_at: string | null;
  received_at: string | null;
}

export interface MessagesTables {
  messages: MessageRow;
}

// The messaging side of a carrier: what the messages module hands a message to, and how
// the carrier reports back. Sandbox uses the simulator (simulator/messaging.ts); live
// mode uses a configured real carrier (SMPP link, HTTP API), and without one a live
// message is refused with 422 carrier_not_configured (after validation) before anything is written.
import type { Mode } from '../store/platform-tables.ts';
import type { Trx } from '../store/transaction.ts';

export interface CarrierMessage {
  id: string;
  accountId: string;
  mode: Mode;
  channel: 'sms' | 'mms' | 'whatsapp';
  from: string;
  to: string;
  body: string | null;
  mediaUrls: string[];
  template: { name: string; language: string; variables: string[] } | null;
  /** Live: the sending number's `messaging_carrier` (a link name in the carriers file); null: the default link. */
  messagingCarrier?: string | null;
}

/** A message a live link received for one of our numbers. */
export interface InboundMessage {
  /** The carriers-file link it arrived on. */
  link: string;
  channel: 'sms' | 'mms' | 'whatsapp';
  from: string;
  to: string;
  body: string | null;
  mediaUrls: string[];
  /** When the sender sent it, if the carrier says (WhatsApp's 24-hour window runs from here); default: now. */
  sentAt?: string;
}

/**
 * Records an inbound message for the live number it was sent to (`message.received`).
 * `then` runs in the same transaction (a carrier clears its reassembly state there).
 */
export type InboundSink = (message: InboundMessage, then?: (trx: Trx) => Promise<void>) => Promise<'received' | 'unknown_number'>;

/** What a carrier can say about a message after it took it (`sending`: a carrier that takes messages while `queued` put it on the wire). */
export type CarrierStatus = 'sending' | 'sent' | 'delivered' | 'undelivered' | 'failed' | 'read';

export interface StatusReport {
  messageId: string;
  status: CarrierStatus;
  errorCode?: string;
  errorMessage?: string;
  /** The carrier's own code (e.g. an SMPP command_status, "0x0000000B"); shown as failure.carrier_code. */
  carrierCode?: string;
}

/**
 * Applies a carrier's report to the message (one state transition and its event).
 * `then` runs inside that same transaction, so a carrier can schedule its next durable
 * step atomically with the change it just reported. `within`: apply it inside the caller's
 * transaction instead of one of its own (a receipt and the status it completes commit
 * together). A repeated report answers 'duplicate' and changes nothing; a report the
 * message cannot take yet throws.
 */
export type MessageStatusSink = (report: StatusReport, then?: (trx: Trx) => Promise<void>, within?: Trx) => Promise<'applied' | 'duplicate'>;

/**
 * Says why a message is still waiting (its link cannot bind, a dropped link reconnects): shown
 * as the message's `status_reason` until its next status change. No event; the status is unchanged.
 */
export type MessageWaitingSink = (messageId: string, reason: string) => Promise<void>;

/**
 * Claims a still-queued message for `seconds` before a link hands it to a provider over the
 * network, so a cancel cannot race the request; false: the message can no longer be sent.
 */
export type MessageHandoffSink = (messageId: string, seconds: number) => Promise<boolean>;

/** A carrier keeping a new message `queued` for a while, and the status_reason that says why. */
export interface QueuedHold {
  seconds: number;
  reason: string;
}

export interface MessagingCarrier {
  readonly name: string;
  /**
   * True: the carrier takes each message while it is still `queued`, in the transaction that
   * creates it, and reports `sending` itself when the message actually goes on the wire (a
   * live link that may be down for hours). False or absent: `submit` runs in the transaction
   * that moves the message to `sending`.
   */
  readonly takesQueued?: boolean;
  /**
   * Takes responsibility for one message (see takesQueued for when). A carrier records
   * durable work here (the outbox pattern: a job that does the network hand-over), so a
   * crash never loses a message and a rollback never sends one. Outcomes come back later
   * through the sink given to `attach`.
   */
  submit(trx: Trx, message: CarrierMessage): Promise<void>;
  attach(sink: MessageStatusSink, waiting?: MessageWaitingSink, handoff?: MessageHandoffSink): void;
  /** Live carriers: where inbound messages go. */
  attachInbound?(sink: InboundSink): void;
  /** Why this carrier cannot carry `channel` for a number bound to `binding` (null: it can). Asked before anything is written. */
  refusal?(channel: CarrierMessage['channel'], binding: string | null): string | null;
  /** The simulator: how long a message to `to` waits queued before its hand-over job runs (null: it does not). */
  holdQueued?(to: string): QueuedHold | null;
  /** Closes connections on shutdown. */
  stop?(): Promise<void>;
}

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
}

/** What a carrier can say about a message after it took it. */
export type CarrierStatus = 'sent' | 'delivered' | 'undelivered' | 'failed' | 'read';

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
 * step atomically with the change it just reported. A repeated report answers
 * 'duplicate' and changes nothing; a report the message cannot take yet throws.
 */
export type MessageStatusSink = (report: StatusReport, then?: (trx: Trx) => Promise<void>) => Promise<'applied' | 'duplicate'>;

export interface MessagingCarrier {
  readonly name: string;
  /**
   * Takes responsibility for one message, inside the transaction that moves it to
   * `sending`. A carrier records durable work here (the outbox pattern: a job that does
   * the network hand-over), so a crash never loses a message and a rollback never sends
   * one. Outcomes come back later through the sink given to `attach`.
   */
  submit(trx: Trx, message: CarrierMessage): Promise<void>;
  attach(sink: MessageStatusSink): void;
}

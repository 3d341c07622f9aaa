// SMS and MMS over an HTTP provider (Twilio's Messaging API). A send runs from a durable job
// enqueued with the message (the outbox rule); the provider's message SID is the one part in
// the part ledger. Status callbacks (delivered, undelivered, failed) and inbound messages
// come signed to `/hooks/carriers/{link}`; both are committed before we answer 200, and the
// provider retries what we did not answer (an inbound SID seen before is not recorded twice).
//
// At-least-once edge: a crash after Twilio accepted the message but before its SID committed
// makes the retried job create it again (the Messages API takes no idempotency key).
import type { JobQueue } from '../../jobs/queue.ts';
import type { Trx } from '../../store/transaction.ts';
import type { Clock } from '../../platform/clock.ts';
import type { CarrierLink } from '../config/registry.ts';
import type { CarrierMessage, InboundSink } from '../messaging-carrier.ts';
import type { PartLedger, PartOutcome } from '../live-messaging/parts.ts';
import { recordInboundOnce } from '../live-messaging/inbound-once.ts';
import type { HttpSmsConfig } from './config.ts';
import { TwilioRejected, createMessage, signatureOk } from './twilio.ts';

export const HTTP_SMS_SEND_JOB = 'http_sms.send';
/** How much longer than the request timeout a send claims its message (see PartLedger.claim). */
const HANDOFF_MARGIN_SECONDS = 30;

interface SendJob {
  messageId: string;
  link: string;
  from: string;
  to: string;
  body: string | null;
  mediaUrls: string[];
}

/** Twilio's final statuses and what they make our message part. */
const FINAL: Record<string, PartOutcome> = { delivered: 'delivered', undelivered: 'undelivered', failed: 'failed' };

export type HttpSmsWebhookOutcome = 'ok' | 'bad_signature';

export class HttpSmsMessaging {
  readonly links = new Map<string, HttpSmsConfig>();
  private inbound: InboundSink | null = null;

  constructor(
    private readonly jobs: JobQueue,
    private readonly clock: Clock,
    private readonly ledger: PartLedger,
    configured: CarrierLink[],
    /** The absolute URL Twilio calls for a path of ours (SWITCHBOARD_PUBLIC_URL). */
    private readonly publicUrl: (path: string) => string,
    private readonly log: (msg: string, extra?: object) => void,
  ) {
    for (const link of configured) this.links.set(link.name, link.config as HttpSmsConfig);
    jobs.register<SendJob>(HTTP_SMS_SEND_JOB, (job) => this.run(job), { maxAttempts: 10_000, backoffSeconds: (n) => Math.min(60, 2 ** n) });
  }

  attachInbound(sink: InboundSink): void {
    this.inbound = sink;
  }

  async submit(trx: Trx, message: CarrierMessage, linkName: string): Promise<void> {
    const job: SendJob = { messageId: message.id, link: linkName, from: message.from, to: message.to, body: message.body, mediaUrls: message.mediaUrls };
    await this.jobs.enqueue(trx, HTTP_SMS_SEND_JOB, job);
  }

  private async run(job: SendJob): Promise<void> {
    const config = this.links.get(job.link);
    if (!config) return this.ledger.fail(job.messageId, 'carrier_unavailable', `The messaging link "${job.link}" is no longer in the carriers file.`);
    if ((await this.ledger.committed(job.messageId)).size > 0) return; // accepted before a crash
    // Claimed for longer than the request may take: a cancel cannot slip in before Twilio answers.
    if (!(await this.ledger.claim(job.messageId, config.request_timeout_seconds + HANDOFF_MARGIN_SECONDS))) return; // canceled meanwhile
    let sid: string;
    try {
      sid = await createMessage(config, { ...job, statusCallback: this.publicUrl(`/hooks/carriers/${job.link}?event=status`) });
    } catch (err) {
      if (err instanceof TwilioRejected) return this.ledger.fail(job.messageId, 'carrier_rejected', `${err.message}.`, err.code === null ? undefined : String(err.code));
      await this.ledger.waiting(job.messageId, `The messaging link "${job.link}" could not take the message yet (${(err as Error).message}); retrying.`);
      throw err;
    }
    if (!(await this.ledger.sending(job.messageId))) return;
    await this.ledger.commitLastPart(job.link, job.messageId, 1, 1, sid);
  }

  /** A form POSTed by Twilio: a status callback (`?event=status`) or an inbound message. */
  async receive(linkName: string, raw: Buffer, signature: string | undefined, path: string): Promise<HttpSmsWebhookOutcome> {
    const config = this.links.get(linkName)!;
    const params = new URLSearchParams(raw.toString('utf8'));
    if (!signatureOk(config.auth_token, this.publicUrl(path), params, signature)) return 'bad_signature';
    const sid = params.get('MessageSid') ?? params.get('SmsSid');
    if (!sid) return 'ok';
    if (new URL(path, 'http://x').searchParams.get('event') === 'status') {
      const status = params.get('MessageStatus') ?? params.get('SmsStatus') ?? '';
      const outcome = FINAL[status];
      if (outcome) {
        const code = params.get('ErrorCode');
        await this.ledger.receipt({ link: linkName, carrierIds: [sid], outcome, state: status, error: code && code !== '0' ? code : null });
      }
      return 'ok'; // queued, sending, sent: we already know as much
    }
    await this.record(linkName, sid, params);
    return 'ok';
  }

  private async record(linkName: string, sid: string, params: URLSearchParams): Promise<void> {
    if (!this.inbound) throw new Error('the HTTP messaging carrier has no inbound sink attached');
    const media: string[] = [];
    for (let i = 0; i < Number(params.get('NumMedia') ?? 0); i++) {
      const url = params.get(`MediaUrl${i}`);
      if (url) media.push(url);
    }
    const outcome = await recordInboundOnce(this.inbound, this.clock, {
      link: linkName, channel: media.length > 0 ? 'mms' : 'sms', from: params.get('From') ?? '', to: params.get('To') ?? '', body: params.get('Body'), mediaUrls: media,
    }, sid);
    if (outcome === 'unknown_number') this.log('an inbound message for a number that is not an active live number was ignored', { link: linkName, to: params.get('To') });
  }
}

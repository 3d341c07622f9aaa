// WhatsApp over the Cloud API: every `whatsapp` link of the carriers file. A send runs from a
// durable job enqueued with the message (the outbox rule); each Graph message object is a part
// in the part ledger, keyed by its wamid, so a retry never re-posts an accepted object.
// Meta's webhook brings statuses (delivered, read, failed; `sent` we already know from the
// API's answer) and inbound messages; both are committed before we answer 200, and Meta
// redelivers whatever we did not answer (an inbound wamid seen before is not recorded twice).
//
// At-least-once edge: if the process dies after the Graph API accepted an object but before
// its wamid committed, the retried job posts it again (the Cloud API has no idempotency key).
import type { JobQueue } from '../../jobs/queue.ts';
import type { Trx } from '../../store/transaction.ts';
import type { Clock } from '../../platform/clock.ts';
import type { CarrierLink } from '../config/registry.ts';
import type { CarrierMessage, InboundSink } from '../messaging-carrier.ts';
import type { PartLedger, PartOutcome } from '../live-messaging/parts.ts';
import { recordInboundOnce } from '../live-messaging/inbound-once.ts';
import type { WhatsAppConfig } from './config.ts';
import { GraphRejected, GraphUnavailable, postMessage } from './graph.ts';
import { graphMessages } from './payloads.ts';
import { challengeFor, parseNotification, signatureOk, type WaInbound } from './webhook.ts';

/** How much longer than the request timeout a send claims its message (see PartLedger.claim). */
const HANDOFF_MARGIN_SECONDS = 30;
export const WHATSAPP_SEND_JOB = 'whatsapp.send';

interface SendJob {
  messageId: string;
  link: string;
  message: Pick<CarrierMessage, 'to' | 'body' | 'mediaUrls' | 'template'>;
}

const OUTCOMES: Record<'delivered' | 'read' | 'failed', PartOutcome> = { delivered: 'delivered', read: 'read', failed: 'failed' };

/** What the webhook route answers Meta. */
export type WebhookOutcome = 'ok' | 'bad_signature' | 'unknown_link' | 'malformed';

export class WhatsAppMessaging {
  readonly links = new Map<string, WhatsAppConfig>();
  private inbound: InboundSink | null = null;

  constructor(
    private readonly jobs: JobQueue,
    private readonly clock: Clock,
    private readonly ledger: PartLedger,
    configured: CarrierLink[],
    private readonly log: (msg: string, extra?: object) => void,
  ) {
    for (const link of configured) this.links.set(link.name, link.config as WhatsAppConfig);
    // The Graph API being unreachable makes messages wait, never vanish: the job retries for days.
    jobs.register<SendJob>(WHATSAPP_SEND_JOB, (job) => this.run(job), { maxAttempts: 10_000, backoffSeconds: (n) => Math.min(60, 2 ** n) });
  }

  attachInbound(sink: InboundSink): void {
    this.inbound = sink;
  }

  /** In the transaction that creates the message. */
  async submit(trx: Trx, message: CarrierMessage, linkName: string): Promise<void> {
    const job: SendJob = { messageId: message.id, link: linkName, message: { to: message.to, body: message.body, mediaUrls: message.mediaUrls, template: message.template } };
    await this.jobs.enqueue(trx, WHATSAPP_SEND_JOB, job);
  }

  private async run(job: SendJob): Promise<void> {
    const config = this.links.get(job.link);
    if (!config) return this.ledger.fail(job.messageId, 'carrier_unavailable', `The WhatsApp link "${job.link}" is no longer in the carriers file.`);
    const objects = graphMessages(job.message);
    const done = await this.ledger.committed(job.messageId);
    for (const [i, object] of objects.entries()) {
      if (done.has(i + 1)) continue;
      const of = objects.length > 1 ? ` (part ${i + 1} of ${objects.length})` : '';
      // Claimed for longer than the request may take: a cancel cannot slip in before the Graph API answers.
      if (!(await this.ledger.claim(job.messageId, config.request_timeout_seconds + HANDOFF_MARGIN_SECONDS))) return; // canceled meanwhile
      let wamid: string;
      try {
        wamid = await postMessage(config, object);
      } catch (err) {
        if (err instanceof GraphRejected) return this.ledger.fail(job.messageId, 'carrier_rejected', `${err.message}${of}.`, err.code === null ? undefined : String(err.code));
        const why = err instanceof GraphUnavailable ? err.message : (err as Error).message;
        // Still `queued` if nothing went yet: the reason says what it waits for.
        await this.ledger.waiting(job.messageId, `The WhatsApp link "${job.link}" could not take the message yet (${why}); retrying.`);
        throw err;
      }
      // `sending` once the Graph API took the first object (a no-op afterwards).
      if (!(await this.ledger.sending(job.messageId))) return;
      if (i < objects.length - 1) await this.ledger.commitPart(job.link, job.messageId, i + 1, objects.length, wamid);
      else await this.ledger.commitLastPart(job.link, job.messageId, i + 1, objects.length, wamid);
    }
  }

  /** The GET handshake: the challenge to echo, or null (answer 403). */
  verify(linkName: string, query: Record<string, unknown>): string | null {
    const config = this.links.get(linkName);
    return config ? challengeFor(query, config.verify_token) : null;
  }

  /** One POSTed notification: checked, then every message and status in it committed. */
  async receive(linkName: string, raw: Buffer, signature: string | undefined): Promise<WebhookOutcome> {
    const config = this.links.get(linkName);
    if (!config) return 'unknown_link';
    if (!signatureOk(raw, signature, config.app_secret)) return 'bad_signature';
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return 'malformed';
    }
    const base = `${config.graph_base_url.replace(/\/+$/, '')}/${config.api_version}`;
    for (const change of parseNotification(body, (id) => `${base}/${id}`)) {
      if (change.phoneNumberId !== config.phone_number_id) {
        this.log('a WhatsApp notification for another phone number id was ignored', { link: linkName, phone_number_id: change.phoneNumberId });
        continue;
      }
      for (const m of change.messages) await this.record(linkName, m);
      for (const s of change.statuses) {
        if (s.status === 'sent') continue; // we moved to `sent` when the Graph API answered
        await this.ledger.receipt({ link: linkName, carrierIds: [s.wamid], outcome: OUTCOMES[s.status], state: s.status, error: s.error });
      }
    }
    return 'ok';
  }

  private async record(linkName: string, m: WaInbound): Promise<void> {
    if (!this.inbound) throw new Error('the WhatsApp carrier has no inbound sink attached');
    const outcome = await recordInboundOnce(this.inbound, this.clock, {
      link: linkName, channel: 'whatsapp', from: m.from, to: m.to, body: m.body, mediaUrls: m.mediaUrls, sentAt: m.sentAt,
    }, m.wamid);
    if (outcome === 'unknown_number') this.log('an inbound WhatsApp message for a number that is not an active live number was ignored', { link: linkName, to: m.to });
  }
}

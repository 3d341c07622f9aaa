// The live MessagingCarrier: picks the link that carries each message (the sending number's
// `messaging_carrier`, else the only link for the channel) and hands it to that link's kind.
// The messages module sees one carrier; the links and their kinds stay in src/carriers.
import type { Kysely } from 'kysely';
import type { Tables } from '../../store/tables.ts';
import type { Trx } from '../../store/transaction.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Clock } from '../../platform/clock.ts';
import type { CarrierLink } from '../config/registry.ts';
import type { CarrierMessage, InboundSink, MessageHandoffSink, MessageStatusSink, MessageWaitingSink, MessagingCarrier } from '../messaging-carrier.ts';
import { SmppMessaging } from '../smpp/carrier.ts';
import { WhatsAppMessaging, type WebhookOutcome } from '../whatsapp/carrier.ts';
import { HttpSmsMessaging, type HttpSmsWebhookOutcome } from '../http-sms/carrier.ts';
import { PartLedger, type PartLedgerOptions } from './parts.ts';

export interface LiveMessagingDeps {
  db: Kysely<Tables>;
  jobs: JobQueue;
  clock: Clock;
  log: (msg: string, extra?: object) => void;
  /** The absolute URL providers call for a path of ours (SWITCHBOARD_PUBLIC_URL). */
  publicUrl: (path: string) => string;
  /** Test failpoint: see PartLedgerOptions. */
  crashInBatch?: PartLedgerOptions['crashInBatch'];
}

const SWEEP_MS = 2000;

export class LiveMessagingCarrier implements MessagingCarrier {
  readonly name = 'live';
  /** A link may be down for hours: messages wait `queued` (with a reason) until one goes on the wire. */
  readonly takesQueued = true;
  readonly ledger: PartLedger;
  readonly smpp: SmppMessaging;
  readonly whatsapp: WhatsAppMessaging;
  readonly httpSms: HttpSmsMessaging;
  private sweeper: NodeJS.Timeout | null = null;

  constructor(private readonly links: CarrierLink[], private readonly deps: LiveMessagingDeps) {
    this.ledger = new PartLedger(deps.db, deps.clock, { crashInBatch: deps.crashInBatch ?? null });
    this.smpp = new SmppMessaging(deps.db, deps.jobs, deps.clock, this.ledger, links.filter((l) => l.kind === 'smpp'), deps.log);
    this.whatsapp = new WhatsAppMessaging(deps.jobs, deps.clock, this.ledger, links.filter((l) => l.kind === 'whatsapp'), deps.log);
    this.httpSms = new HttpSmsMessaging(deps.jobs, deps.clock, this.ledger, links.filter((l) => l.kind === 'http_sms'), deps.publicUrl, deps.log);
  }

  /** True when the carriers file configures any messaging link. */
  static wanted(links: CarrierLink[]): boolean {
    return links.some((l) => l.role === 'messaging');
  }

  start(): void {
    this.smpp.start();
    this.sweeper = setInterval(() => {
      this.ledger.sweep().catch((err: Error) => this.deps.log('matching parked receipts failed', { error: err.message }));
    }, SWEEP_MS);
    this.sweeper.unref();
  }

  async stop(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    await this.smpp.stop();
  }

  attach(sink: MessageStatusSink, waiting?: MessageWaitingSink, handoff?: MessageHandoffSink): void {
    this.ledger.attach(sink, waiting, handoff);
  }

  attachInbound(sink: InboundSink): void {
    this.smpp.attachInbound(sink);
    this.whatsapp.attachInbound(sink);
    this.httpSms.attachInbound(sink);
  }

  refusal(channel: CarrierMessage['channel'], binding: string | null): string | null {
    const picked = this.pick(channel, binding);
    return 'reason' in picked ? picked.reason : null;
  }

  async submit(trx: Trx, message: CarrierMessage): Promise<void> {
    const picked = this.pick(message.channel, message.messagingCarrier ?? null);
    if ('reason' in picked) throw new Error(picked.reason); // checked at send; the file changed since
    if (picked.link.kind === 'smpp') return this.smpp.submit(trx, message, picked.link.name);
    if (picked.link.kind === 'whatsapp') return this.whatsapp.submit(trx, message, picked.link.name);
    if (picked.link.kind === 'http_sms') return this.httpSms.submit(trx, message, picked.link.name);
    throw new Error(`no live messaging implementation for links of kind ${picked.link.kind}`);
  }

  /** The provider webhook of a link (Meta's for WhatsApp); null when the link has none. */
  webhook(linkName: string): ProviderWebhook | null {
    if (this.whatsapp.links.has(linkName)) {
      return {
        verify: (query) => this.whatsapp.verify(linkName, query),
        receive: (raw, headers) => this.whatsapp.receive(linkName, raw, headerOf(headers, 'x-hub-signature-256')),
      };
    }
    if (this.httpSms.links.has(linkName)) {
      return {
        verify: () => null,
        receive: (raw, headers, path) => this.httpSms.receive(linkName, raw, headerOf(headers, 'x-twilio-signature'), path),
        // Twilio reads the answer as TwiML: an empty Response sends no reply message.
        accepted: { contentType: 'text/xml', body: '<?xml version="1.0" encoding="UTF-8"?><Response></Response>' },
      };
    }
    return null;
  }

  private pick(channel: CarrierMessage['channel'], binding: string | null): { link: CarrierLink } | { reason: string } {
    if (binding !== null) {
      const link = this.links.find((l) => l.name === binding && l.role === 'messaging');
      if (!link) return { reason: `This number is bound to the messaging link "${binding}", which the carriers file does not configure.` };
      if (!link.channels.includes(channel)) return { reason: `This number's messaging link "${binding}" (${link.kind}) cannot carry ${channel}; it carries ${link.channels.join(', ')}.` };
      return { link };
    }
    const candidates = this.links.filter((l) => l.role === 'messaging' && l.channels.includes(channel));
    if (candidates.length === 1) return { link: candidates[0]! };
    if (candidates.length === 0) return { reason: `No live link carries ${channel} messages: the carriers file configures none.` };
    return { reason: `Several live links carry ${channel} (${candidates.map((l) => l.name).join(', ')}) and this number is bound to none; the operator binds it with \`switchboard numbers bind\`.` };
  }
}

/** A provider calling us back: a GET handshake and signed POSTs of raw bytes. */
export interface ProviderWebhook {
  /** The body to echo for a verification GET, or null (403). */
  verify(query: Record<string, unknown>): string | null;
  /** `path`: the path and query the provider called (providers that sign the URL need it). */
  receive(raw: Buffer, headers: Record<string, string | string[] | undefined>, path: string): Promise<WebhookOutcome | HttpSmsWebhookOutcome>;
  /** What to answer a notification that was recorded; default JSON `{ "received": true }`. */
  accepted?: { contentType: string; body: string };
}

function headerOf(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

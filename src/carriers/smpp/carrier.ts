// SMS over SMPP: every `smpp` link of the carriers file, bound at start. Submission runs
// from a durable job enqueued in the transaction that moves the message to `sending` (the
// outbox rule): a crash never loses a message, and a rollback never sends one. Receipts and
// inbound messages arrive as deliver_sm on the bind; each is answered only after it is
// committed, so the SMSC sends again whatever we did not record.
//
// At-least-once edge: if the process dies after the SMSC accepted a part but before the part
// row committed, the retried job submits that part again. The window between the two is one
// local commit, and a part holds its window slot until it commits, so at most `window` parts
// can be caught there; parts already committed are never resubmitted, and the SMSC's retry of an
// unanswered deliver_sm is absorbed by the ledger (a repeated receipt changes nothing).
import type { Kysely } from 'kysely';
import type { Pdu } from 'smpp';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Tables } from '../../store/tables.ts';
import type { Trx } from '../../store/transaction.ts';
import { inTransaction } from '../../store/transaction.ts';
import type { Clock } from '../../platform/clock.ts';
import type { CarrierLink } from '../config/registry.ts';
import type { CarrierMessage, InboundSink } from '../messaging-carrier.ts';
import type { PartLedger } from '../live-messaging/parts.ts';
import { KeyedLock } from '../live-messaging/keyed-lock.ts';
import type { SmppBindConfig } from './config.ts';
import { encodeSms } from './encode.ts';
import { SmppLink, SmppRejected, SmppUnavailable } from './link.ts';
import { decodeUserData, parseMo } from './mo.ts';
import { carrierIdVariants, isReceipt, parseReceipt } from './receipt.ts';

export const SMPP_SUBMIT_JOB = 'smpp.submit';

interface SubmitJob {
  messageId: string;
  link: string;
  from: string;
  to: string;
  body: string;
  /** Concatenation reference, fixed when the job is created so a retry reuses it. */
  reference: number;
}

const ESME_ROK = 0;
const ESME_RINVDSTADR = 0x0b;
/** How long one job run waits for the bind, the window and the rate cap before it retries later. */
const SUBMIT_WAIT_MS = 20_000;

export class SmppMessaging {
  readonly links = new Map<string, SmppLink>();
  private inbound: InboundSink | null = null;
  private readonly moLock = new KeyedLock();

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly jobs: JobQueue,
    private readonly clock: Clock,
    private readonly ledger: PartLedger,
    configured: CarrierLink[],
    private readonly log: (msg: string, extra?: object) => void,
  ) {
    for (const link of configured) {
      const config = link.config as SmppBindConfig;
      const smppLink = new SmppLink(config, (pdu) => this.deliver(link.name, pdu), log);
      // Messages that waited for this link go now, not when their backoff runs out.
      smppLink.on('bound', () => {
        jobs.runNow(SMPP_SUBMIT_JOB).catch((err: Error) => log('could not wake the SMS waiting for a link', { link: link.name, error: err.message }));
      });
      this.links.set(link.name, smppLink);
    }
    // A link that is down makes messages wait, never vanish: the job retries for days.
    jobs.register<SubmitJob>(SMPP_SUBMIT_JOB, (job, ctx) => this.run(job, ctx.attempt), { maxAttempts: 10_000, backoffSeconds: (n) => Math.min(60, 2 ** n) });
  }

  start(): void {
    for (const link of this.links.values()) link.start();
  }

  async stop(): Promise<void> {
    await Promise.all([...this.links.values()].map((l) => l.stop()));
  }

  attachInbound(sink: InboundSink): void {
    this.inbound = sink;
  }

  /** Inside the transaction that moves the message to `sending`. */
  async submit(trx: Trx, message: CarrierMessage, linkName: string): Promise<void> {
    const link = this.links.get(linkName)!;
    const job: SubmitJob = { messageId: message.id, link: linkName, from: message.from, to: message.to, body: message.body ?? '', reference: link.nextReference() };
    await this.jobs.enqueue(trx, SMPP_SUBMIT_JOB, job);
  }

  /** `attempt`: 1 on the job's first run (every claim counts one, a dead worker's included). */
  private async run(job: SubmitJob, attempt: number): Promise<void> {
    const link = this.links.get(job.link);
    if (!link) {
      return this.ledger.fail(job.messageId, 'carrier_unavailable', `The SMPP link "${job.link}" is no longer in the carriers file.`);
    }
    // A link that is not bound fails the run at once (the job retries with backoff) rather than
    // holding a worker slot that webhook deliveries need; the message stays `queued` and says why.
    if (link.state !== 'bound') {
      await this.ledger.waiting(job.messageId, `Waiting for the SMPP link "${job.link}" to bind (${link.lastError ?? 'connecting'}); the message goes out once it does.`);
      throw new SmppUnavailable(`the SMPP link "${job.link}" is not bound: ${link.lastError ?? 'connecting'}`);
    }
    if (!(await this.ledger.sending(job.messageId))) return; // it ended meanwhile
    try {
      await this.submitParts(job, link, attempt);
    } catch (err) {
      if (err instanceof SmppUnavailable) {
        await this.ledger.waiting(job.messageId, `The SMPP link "${job.link}" could not take the message yet (${err.message}); retrying.`);
      }
      throw err;
    }
  }

  private async submitParts(job: SubmitJob, link: SmppLink, attempt: number): Promise<void> {
    const bind = link.config;
    const parts = encodeSms(job.body, { gsm7DataCoding: bind.gsm7_data_coding, longMessages: bind.long_messages, reference: job.reference });
    // Only a run after an earlier one (a retry, or a claim after a crash) can find parts committed.
    const done = attempt > 1 ? await this.ledger.committed(job.messageId) : new Map<number, string>();
    for (const [i, part] of parts.entries()) {
      if (done.has(i + 1)) continue; // accepted before a crash or a dropped connection
      // The part row commits while the submit still holds its window slot (link.ts).
      const record = (carrierId: string) => i < parts.length - 1
        ? this.ledger.commitPart(job.link, job.messageId, i + 1, parts.length, carrierId)
        : this.ledger.commitLastPart(job.link, job.messageId, i + 1, parts.length, carrierId);
      try {
        await link.submit({
          source_addr: address(job.from), source_addr_ton: bind.source_ton, source_addr_npi: bind.source_npi,
          destination_addr: address(job.to), dest_addr_ton: bind.dest_ton, dest_addr_npi: bind.dest_npi,
          esm_class: part.esmClass, data_coding: part.dataCoding, registered_delivery: 1,
          ...(part.viaPayloadTlv ? { message_payload: part.payload } : { short_message: part.payload }),
        }, SUBMIT_WAIT_MS, record);
      } catch (err) {
        if (err instanceof SmppRejected) {
          return this.ledger.fail(job.messageId, 'carrier_rejected', `${err.message}${parts.length > 1 ? ` (part ${i + 1} of ${parts.length})` : ''}.`);
        }
        throw err; // the link is down or busy: the job runs again with backoff
      }
    }
  }

  /** A deliver_sm: a receipt or an inbound message. Resolves with the status to answer. */
  private async deliver(linkName: string, pdu: Pdu): Promise<number> {
    if (isReceipt(pdu)) {
      const text = Buffer.isBuffer(pdu.short_message) ? pdu.short_message.toString('latin1') : Buffer.isBuffer(pdu.message_payload) ? pdu.message_payload.toString('latin1') : '';
      const receipt = parseReceipt(pdu, text);
      if (!receipt) {
        this.log('a delivery receipt without a message id or state was ignored', { link: linkName, text });
        return ESME_ROK;
      }
      if (receipt.outcome === 'pending') return ESME_ROK; // ENROUTE, ACCEPTD: not final yet
      await this.ledger.receipt({
        link: linkName, carrierIds: carrierIdVariants(receipt.carrierMessageId), outcome: receipt.outcome, state: receipt.state, error: receipt.error,
      });
      return ESME_ROK;
    }
    return this.receiveMo(linkName, pdu);
  }

  private async receiveMo(linkName: string, pdu: Pdu): Promise<number> {
    if (!this.inbound) throw new Error('the SMPP carrier has no inbound sink attached');
    const part = parseMo(pdu);
    const deliver = async (octets: Buffer, dataCoding: number, then?: (trx: Trx) => Promise<void>) => {
      const outcome = await this.inbound!({
        link: linkName, channel: 'sms', from: part.from, to: part.to, body: decodeUserData(octets, dataCoding), mediaUrls: [],
      }, then);
      if (outcome === 'unknown_number') this.log('an inbound SMS for a number that is not an active live number was refused', { link: linkName, to: part.to });
      return outcome === 'received' ? ESME_ROK : ESME_RINVDSTADR;
    };
    if (!part.concat) return deliver(part.octets, part.dataCoding);

    // One part of a long message: kept until every part is in, then the octets are joined
    // and decoded as one (a UCS-2 character may straddle two parts).
    const { reference, total, sequence } = part.concat;
    const group = `${part.from}|${part.to}|${reference}|${total}`;
    return this.moLock.run(`${linkName}\0${group}`, async () => {
      const now = this.clock.now().toISOString();
      const parts = await inTransaction(this.db, async (trx) => {
        await trx.insertInto('carrier_inbound_parts').values({
          link: linkName, group_key: group, sequence, total, data_coding: part.dataCoding, octets: part.octets.toString('hex'), received_at: now,
        }).onConflict((oc) => oc.columns(['link', 'group_key', 'sequence']).doNothing()).execute();
        return trx.selectFrom('carrier_inbound_parts').select(['sequence', 'octets', 'data_coding'])
          .where('link', '=', linkName).where('group_key', '=', group).orderBy('sequence').execute();
      });
      if (parts.length < total) return ESME_ROK;
      const octets = Buffer.concat(parts.map((p) => Buffer.from(p.octets, 'hex')));
      return deliver(octets, parts[0]!.data_coding, async (trx) => {
        await trx.deleteFrom('carrier_inbound_parts').where('link', '=', linkName).where('group_key', '=', group).execute();
      });
    });
  }
}

/** SMPP addresses carry international numbers without the +. */
function address(e164: string): string {
  return e164.replace(/^\+/, '');
}

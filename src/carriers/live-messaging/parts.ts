// The ledger of outbound parts and their receipts, shared by the live messaging links.
//
// A part row commits as soon as the link accepted the part (the last part commits with the
// message's move to `sent`), so a retried submission skips it: no duplicate after a
// reconnect. A receipt finds its part by the carrier's id; one that arrives before that id is
// committed (it overtook submit_sm_resp, or our commit) is parked in carrier_early_receipts
// and applied when the part commits. Every write of the ledger on this node goes through one
// serial batcher (src/store/serial-batch.ts): a burst of `sending` moves, of parts accepted
// (and `sent`), of receipts, commits as one transaction, and no two batches interleave, so a
// receipt and its part never miss each other on this node; a periodic sweep matches what a
// crash or another node left parked. Each caller acts (answers the deliver_sm, frees the
// window slot, sends the submit_sm) only once its batch has committed.
// A message's status follows all its parts: delivered when every part is (read, on WhatsApp,
// when every part is read), else the first part that failed decides. The status a receipt
// completes commits in the receipt's own transaction (or the last part's, for a receipt that
// came first): one transaction per receipt, not two.
import type { Kysely } from 'kysely';
import type { Tables } from '../../store/tables.ts';
import type { Trx } from '../../store/transaction.ts';
import { SerialBatcher } from '../../store/serial-batch.ts';
import { lockUntilCommit } from '../../store/locks.ts';
import { prepareFor, prepareStatement } from '../../store/prepared.ts';
import type { Clock } from '../../platform/clock.ts';
import type { MessageHandoffSink, MessageStatusSink, MessageWaitingSink, StatusReport } from '../messaging-carrier.ts';
import type { CarrierPartRow } from './tables.ts';

// Every part of every live message runs these: compiled once.
const committedParts = prepareFor((db, messageId: string) => db.selectFrom('carrier_parts').select(['part', 'carrier_message_id']).where('message_id', '=', messageId), 1);
const partsOf = prepareFor((db, messageId: string) => db.selectFrom('carrier_parts').selectAll().where('message_id', '=', messageId).orderBy('part'), 1);
const insertPartRow = prepareStatement((db, ...p: [string, number, number, string, string, string]) => db.insertInto('carrier_parts').values({
  message_id: p[0], part: p[1], parts: p[2], link: p[3], carrier_message_id: p[4], status: 'submitted', state: null, error: null, created_at: p[5], updated_at: p[5],
}).onConflict((oc) => oc.columns(['message_id', 'part']).doNothing()), 6);
const earlyReceipt = prepareFor((db, link: string, carrierId: string) => db.selectFrom('carrier_early_receipts').selectAll()
  .where('link', '=', link).where('carrier_message_id', '=', carrierId), 2);
const dropEarlyReceipt = prepareStatement((db, link: string, carrierId: string) => db.deleteFrom('carrier_early_receipts')
  .where('link', '=', link).where('carrier_message_id', '=', carrierId), 2);
const parkReceipt = prepareStatement((db, ...r: [string, string, string, string | null, string]) => db.insertInto('carrier_early_receipts')
  .values({ link: r[0], carrier_message_id: r[1], state: r[2], error: r[3], received_at: r[4] })
  .onConflict((oc) => oc.columns(['link', 'carrier_message_id']).doUpdateSet((eb) => ({ state: eb.ref('excluded.state'), error: eb.ref('excluded.error') }))), 5);
const partByCarrierId = prepareFor((db, link: string, carrierId: string) => db.selectFrom('carrier_parts').select(['message_id', 'part', 'parts'])
  .where('link', '=', link).where('carrier_message_id', '=', carrierId), 2);
/** A final outcome replaces only `submitted`; `read` also follows `delivered` (never the reverse). */
const markPartFinal = prepareStatement((db, ...m: [PartOutcome, string, string | null, string, string, number]) => db.updateTable('carrier_parts')
  .set({ status: m[0], state: m[1], error: m[2], updated_at: m[3] }).where('message_id', '=', m[4]).where('part', '=', m[5]).where('status', '=', 'submitted'), 6);
const markPartRead = prepareStatement((db, ...m: [PartOutcome, string, string | null, string, string, number]) => db.updateTable('carrier_parts')
  .set({ status: m[0], state: m[1], error: m[2], updated_at: m[3] }).where('message_id', '=', m[4]).where('part', '=', m[5]).where('status', 'in', ['submitted', 'delivered']), 6);

export type PartOutcome = 'delivered' | 'undelivered' | 'failed' | 'read';

export interface PartReceipt {
  link: string;
  /** Every form of the id the carrier may use (hex and decimal, for SMSCs that mix them). */
  carrierIds: string[];
  outcome: PartOutcome;
  state: string;
  error: string | null;
}

/** One write of the ledger, applied in a batch with the others of its burst. */
export type LedgerWrite =
  | { kind: 'sending'; messageId: string }
  | { kind: 'part'; link: string; messageId: string; part: number; parts: number; carrierId: string; last: boolean }
  | { kind: 'receipt'; receipt: PartReceipt };

const WRITE_ORDER: Record<LedgerWrite['kind'], number> = { sending: 0, part: 1, receipt: 2 };

/**
 * How many writes one transaction takes at most: most of a window's burst, while a batch on a
 * loaded PostgreSQL (a dozen round trips a write) stays well inside the transaction deadline
 * (SWITCHBOARD_TRANSACTION_TIMEOUT_MS, 5 s by default; past it the batch is rolled back and
 * each write applied alone, which is slower, not wrong).
 */
const BATCH_ITEMS = 32;

/** How many parked receipts PartLedger.parkedHere remembers at most. */
const MAX_PARKED_HERE = 10_000;

function parkedKey(link: string, carrierId: string): string {
  return `${link}\0${carrierId}`;
}

export interface PartLedgerOptions {
  /**
   * Tests only (SWITCHBOARD_TEST_CRASH_IN_BATCH, with SWITCHBOARD_TEST_FAILPOINTS): the process
   * kills itself in the middle of the first batch holding two writes of this kind or more,
   * after the first of them was applied and before the commit.
   */
  crashInBatch?: LedgerWrite['kind'] | null;
}

export class PartLedger {
  private sink: MessageStatusSink | null = null;
  private waitingSink: MessageWaitingSink | null = null;
  private handoffSink: MessageHandoffSink | null = null;
  private readonly writes: SerialBatcher<LedgerWrite, boolean>;
  /**
   * Receipts this process parked and has not matched yet (link and carrier id). A part looks
   * for a parked receipt only when one is here: with parts ahead of receipts in every batch,
   * almost none are, and the look was a statement per part (a round trip on PostgreSQL).
   * What another process parked (another node, or this one before a crash) the sweep matches,
   * within SWEEP_MS (src/carriers/live-messaging/router.ts).
   */
  private readonly parkedHere = new Set<string>();

  constructor(private readonly db: Kysely<Tables>, private readonly clock: Clock, opts: PartLedgerOptions = {}) {
    const crashIn = opts.crashInBatch ?? null;
    this.writes = new SerialBatcher(db, (trx, write) => this.applyWrite(trx, write), {
      maxItems: BATCH_ITEMS,
      // A receipt read in the same chunk as its part's submit_sm_resp is queued first (its
      // handler runs before the response's promise settles); cut into an earlier batch than
      // its part, it was parked and matched back when the part committed, two more writes
      // (187 of 300 receipts in the bench). Parts join the batch being cut: there are at most
      // a window's worth per link waiting (each holds its window slot until it commits).
      joinEarly: (w) => w.kind === 'part',
      // An SMSC sends a receipt right behind submit_sm_resp, so it often reaches the batch
      // before its part (the part's commit waits on a few more promise turns): parts first,
      // and the receipt finds its part instead of being parked and matched back.
      order: (a, b) => WRITE_ORDER[a.kind] - WRITE_ORDER[b.kind],
      ...(crashIn ? { afterItem: (items: readonly LedgerWrite[], i: number) => crashMidBatch(crashIn, items, i) } : {}),
    });
  }

  attach(sink: MessageStatusSink, waiting?: MessageWaitingSink, handoff?: MessageHandoffSink): void {
    this.sink = sink;
    this.waitingSink = waiting ?? null;
    this.handoffSink = handoff ?? null;
  }

  /**
   * Before a request that hands a still-queued message to a provider: claims it for `seconds`
   * (longer than the request may take) so a cancel cannot race the request. False when the
   * message can no longer be sent (canceled meanwhile): send nothing.
   */
  async claim(messageId: string, seconds: number): Promise<boolean> {
    return this.handoffSink ? this.handoffSink(messageId, seconds) : true;
  }

  /**
   * The link is about to put the message on the wire: `queued` becomes `sending` (a retry
   * finds it there already). False when the message has already ended (nothing to send).
   */
  sending(messageId: string): Promise<boolean> {
    return this.writes.add({ kind: 'sending', messageId });
  }

  /** Why the message still waits (its link is down): shown on the message, no event. */
  async waiting(messageId: string, reason: string): Promise<void> {
    await this.waitingSink?.(messageId, reason);
  }

  /** Carrier ids already committed for this message's parts, by part number. */
  async committed(messageId: string): Promise<Map<number, string>> {
    const rows = await committedParts(this.db, messageId);
    return new Map(rows.map((r) => [r.part, r.carrier_message_id]));
  }

  /** A part other than the last one was accepted: it commits (with its burst). */
  async commitPart(link: string, messageId: string, part: number, parts: number, carrierId: string): Promise<void> {
    await this.writes.add({ kind: 'part', link, messageId, part, parts, carrierId, last: false });
  }

  /**
   * The last part was accepted: the message becomes `sent` and the part commits in the same
   * transaction; then any receipts already in are applied.
   */
  async commitLastPart(link: string, messageId: string, part: number, parts: number, carrierId: string): Promise<void> {
    await this.writes.add({ kind: 'part', link, messageId, part, parts, carrierId, last: true });
  }

  /** The carrier refused the message for good; `carrierCode` is its own code for why. */
  async fail(messageId: string, errorCode: string, errorMessage: string, carrierCode?: string): Promise<void> {
    await this.requireSink()({ messageId, status: 'failed', errorCode, errorMessage, ...(carrierCode !== undefined ? { carrierCode } : {}) });
  }

  /** Applies one receipt (or parks it until its part commits), with the others of its burst. */
  async receipt(r: PartReceipt): Promise<void> {
    await this.writes.add({ kind: 'receipt', receipt: r });
  }

  /** One write inside its batch's transaction. */
  private async applyWrite(trx: Trx, write: LedgerWrite): Promise<boolean> {
    if (write.kind === 'sending') {
      try {
        await this.requireSink()({ messageId: write.messageId, status: 'sending' }, undefined, trx);
        return true;
      } catch (err) {
        // The message ended meanwhile (canceled, failed): refused before any statement ran,
        // so the batch's transaction is intact and the others in it go on.
        if ((err as { code?: string }).code === 'invalid_state_transition') return false;
        throw err;
      }
    }
    if (write.kind === 'part') {
      const { link, messageId, part, parts, carrierId } = write;
      if (!write.last) {
        if (await this.insertPart(trx, link, messageId, part, parts, carrierId)) await this.settle(trx, messageId);
        return true;
      }
      // Receipts already in (parked for this part, or applied to earlier parts) may complete
      // the message now: `sent` and `delivered` then commit together.
      await this.requireSink()({ messageId, status: 'sent' }, async (t) => {
        // A message of one part with no receipt in yet has nothing to settle: its only part
        // is `submitted`. Others read their parts (earlier ones may have their receipts).
        if (await this.insertPart(t, link, messageId, part, parts, carrierId) || parts > 1) await this.settle(t, messageId);
      }, trx);
      return true;
    }
    const r = write.receipt;
    const part = r.carrierIds.length === 1
      ? (await partByCarrierId(trx, r.link, r.carrierIds[0]!))[0]
      : await trx.selectFrom('carrier_parts').select(['message_id', 'part', 'parts'])
        .where('link', '=', r.link).where('carrier_message_id', 'in', r.carrierIds).executeTakeFirst();
    if (!part) {
      await parkReceipt(trx, r.link, r.carrierIds[0]!, r.state, r.error, this.clock.now().toISOString());
      // Bounded: receipts of parts that never come stay parked; past the bound the sweep matches them.
      if (this.parkedHere.size >= MAX_PARKED_HERE) this.parkedHere.clear();
      for (const id of r.carrierIds) this.parkedHere.add(parkedKey(r.link, id));
      return true;
    }
    const marked = await this.markPart(trx, part.message_id, part.part, r.outcome, r.state, r.error);
    // The only part of a message just took this outcome: the parts are known without reading
    // them (nor taking turns: no other part's receipt can race this one).
    if (marked && part.parts === 1) {
      await this.report(trx, aggregate(part.message_id, [{ part: 1, parts: 1, status: r.outcome, state: r.state, error: r.error }]));
      return true;
    }
    await this.settle(trx, part.message_id);
    return true;
  }

  /** Matches parked receipts whose part has committed since (a crash, another node). */
  async sweep(): Promise<number> {
    const matches = await this.db.selectFrom('carrier_early_receipts as r')
      .innerJoin('carrier_parts as p', (j) => j.onRef('p.link', '=', 'r.link').onRef('p.carrier_message_id', '=', 'r.carrier_message_id'))
      .select(['r.link', 'r.carrier_message_id', 'r.state', 'r.error']).limit(500).execute();
    for (const m of matches) {
      await this.receipt({ link: m.link, carrierIds: [m.carrier_message_id], outcome: outcomeOfState(m.state), state: m.state, error: m.error });
      await this.db.deleteFrom('carrier_early_receipts').where('link', '=', m.link).where('carrier_message_id', '=', m.carrier_message_id).execute();
    }
    return matches.length;
  }

  /**
   * Moves the message when its parts say so, in the transaction that just changed a part;
   * a no-op until every part has an outcome.
   */
  private async settle(trx: Trx, messageId: string): Promise<void> {
    // Two parts' receipts commit in two transactions: each must see the other's part, or
    // neither completes the message (on PostgreSQL each reads before the other commits). So
    // settling takes turns per message, and the one that waits reads what the first committed.
    await lockUntilCommit(trx, `message-parts:${messageId}`);
    await this.report(trx, aggregate(messageId, await partsOf(trx, messageId)));
  }

  /** Applies what the parts say of their message (nothing until every part has an outcome). */
  private async report(trx: Trx, report: StatusReport | null): Promise<void> {
    if (!report) return;
    const { messageId } = report;
    try {
      // Read implies delivered: a message still `sent` passes through delivered first.
      if (report.status === 'read') await this.requireSink()({ messageId, status: 'delivered' }, undefined, trx);
      await this.requireSink()(report, undefined, trx);
    } catch (err) {
      // Still `sending` (the refusal comes before any statement, so the transaction is intact):
      // the last part's commit settles it again.
      if ((err as { code?: string }).code !== 'invalid_state_transition') throw err;
    }
  }

  /** Inserts a part and applies a receipt parked for it; true when one was. */
  private async insertPart(trx: Trx, link: string, messageId: string, part: number, parts: number, carrierId: string): Promise<boolean> {
    const now = this.clock.now().toISOString();
    await insertPartRow(trx, messageId, part, parts, link, carrierId, now);
    const key = parkedKey(link, carrierId);
    if (!this.parkedHere.has(key)) return false;
    const [early] = await earlyReceipt(trx, link, carrierId);
    if (!early) return false;
    this.parkedHere.delete(key);
    await this.markPart(trx, messageId, part, outcomeOfState(early.state), early.state, early.error);
    await dropEarlyReceipt(trx, link, carrierId);
    return true;
  }

  /** True when the part took the outcome (false: it had one already, a repeated receipt). */
  private async markPart(trx: Trx, messageId: string, part: number, outcome: PartOutcome, state: string, error: string | null): Promise<boolean> {
    const result = await (outcome === 'read' ? markPartRead : markPartFinal)(trx, outcome, state, error, this.clock.now().toISOString(), messageId, part);
    return Number(result.numAffectedRows ?? 0n) === 1;
  }

  private requireSink(): MessageStatusSink {
    if (!this.sink) throw new Error('the live messaging carrier has no status sink attached');
    return this.sink;
  }
}

/** The final state names a link stores; a parked receipt keeps its state, not its outcome. */
export const STATE_OUTCOMES: Record<string, PartOutcome> = {
  DELIVRD: 'delivered', UNDELIV: 'undelivered', EXPIRED: 'undelivered', UNKNOWN: 'undelivered', DELETED: 'failed', REJECTD: 'failed',
  delivered: 'delivered', undelivered: 'undelivered', failed: 'failed', read: 'read',
};

/** The failpoint of PartLedgerOptions.crashInBatch. */
function crashMidBatch(kind: LedgerWrite['kind'], items: readonly LedgerWrite[], index: number): void {
  const ofKind = items.flatMap((w, i) => (w.kind === kind ? [i] : []));
  if (ofKind.length >= 2 && ofKind[0] === index) process.kill(process.pid, 'SIGKILL');
}

function outcomeOfState(state: string): PartOutcome {
  return STATE_OUTCOMES[state] ?? 'undelivered';
}

function aggregate(messageId: string, parts: Pick<CarrierPartRow, 'part' | 'parts' | 'status' | 'state' | 'error'>[]): StatusReport | null {
  if (parts.length === 0) return null;
  const failed = parts.find((p) => p.status === 'undelivered' || p.status === 'failed');
  const total = parts[0]!.parts;
  const of = total > 1 ? ` for part ${failed?.part} of ${total}` : '';
  if (failed) {
    const detail = `The carrier reported ${failed.state}${failed.error && failed.error !== '000' ? ` (error ${failed.error})` : ''}${of}.`;
    return failed.status === 'failed'
      ? { messageId, status: 'failed', errorCode: 'carrier_rejected', errorMessage: detail }
      : { messageId, status: 'undelivered', errorCode: 'unreachable_destination', errorMessage: detail };
  }
  if (parts.length === total && parts.every((p) => p.status === 'read')) return { messageId, status: 'read' };
  if (parts.length === total && parts.every((p) => p.status === 'delivered' || p.status === 'read')) return { messageId, status: 'delivered' };
  return null;
}

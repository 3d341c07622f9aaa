// Messages: sending (SMS, MMS, WhatsApp) through the mode's carrier, inbound messages,
// the WhatsApp 24-hour window, and the status machine whose every change emits its event
// (message.queued at creation, then one per carrier step), in order, with the full message.
import { failure } from '../../platform/failure.ts';
import { phoneNumberMessage } from '../../platform/field-errors.ts';
import { fetchPage } from '../../platform/pagination.ts';
import type { Kysely, UpdateQueryBuilder, UpdateResult } from 'kysely';
import { phoneFacts } from '../../platform/phone.ts';
import type { Tables } from '../../store/tables.ts';
import type { Mode, NumberRow } from '../../store/platform-tables.ts';
import type { Platform } from '../../platform/context.ts';
import type { Clock } from '../../platform/clock.ts';
import type { EventEmitter } from '../../events/emit.ts';
import type { EventType } from '../../events/catalogue.ts';
import { newId } from '../../platform/ids.ts';
import { Problem, invalidField, notFound } from '../../platform/problems.ts';
import { inTransaction, type BeforeCommit, type Trx } from '../../store/transaction.ts';
import { prepareFor, prepareInsert } from '../../store/prepared.ts';
import { note, remember } from '../../store/batch-scope.ts';
import type { CarrierMessage, InboundMessage, MessagingCarrier, StatusReport } from '../../carriers/index.ts';
import type { NumberService } from '../numbers/service.ts';
import { analyzeSmsBody } from './encoding.ts';
import { assertWebhookUrlAllowed } from '../webhooks/url-policy.ts';
import { assertMediaUrlsAllowed } from './media-urls.ts';
import { MAX_BODY_CHARACTERS, MAX_MEDIA_URLS } from './schema.ts';
import { MESSAGE_MACHINE, STATE_EVENTS, alreadyPassed, type MessageStatus } from './states.ts';
import type { Channel, Direction, MessageRow } from './tables.ts';
import { countMessageStatus } from './metrics.ts';

export const MESSAGE_DISPATCH_JOB = 'messages.dispatch';

/** Each status report reads the message it moves: compiled once. */
const messageById = prepareFor((db, id: string) => db.selectFrom('messages').selectAll().where('id', '=', id), 1);
/** Every message is one of these two inserts (an outbound one may wait with a reason): compiled once. */
const MESSAGE_COLUMNS = ['id', 'account_id', 'mode', 'direction', 'channel', 'from_number', 'to_number', 'number_id', 'body', 'media_urls', 'template',
  'encoding', 'segments', 'status', 'error_code', 'error_message', 'webhook_url', 'metadata', 'created_at', 'updated_at', 'sent_at', 'delivered_at',
  'read_at', 'failed_at', 'received_at'] as const;
const insertOutbound = prepareInsert('messages', [...MESSAGE_COLUMNS, 'status_reason']);
const insertInbound = prepareInsert('messages', MESSAGE_COLUMNS);
export const WHATSAPP_WINDOW_HOURS = 24;

export interface Template { name: string; language: string; variables: string[] }

export interface SendInput {
  from: string;
  to: string;
  channel?: Channel | undefined;
  body?: string | undefined;
  media_urls?: string[] | undefined;
  template?: Template | undefined;
  webhook_url?: string | undefined;
  metadata?: Record<string, string> | undefined;
}

export interface InboundInput {
  from: string;
  to: string;
  channel?: Channel | undefined;
  body?: string | undefined;
  media_urls?: string[] | undefined;
}

export interface ListQuery {
  limit: number;
  startingAfter?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  /** Either side of the message (the console's number filter). */
  number?: string | undefined;
  status?: MessageStatus | undefined;
  channel?: Channel | undefined;
  direction?: Direction | undefined;
  createdGte?: string | undefined;
  createdLte?: string | undefined;
}

export function presentMessage(row: MessageRow) {
  return {
    id: row.id,
    object: 'message' as const,
    mode: row.mode,
    direction: row.direction,
    channel: row.channel,
    from: row.from_number,
    to: row.to_number,
    number_id: row.number_id,
    body: row.body,
    media_urls: JSON.parse(row.media_urls) as string[],
    template: row.template === null ? null : (JSON.parse(row.template) as Template),
    status: row.status,
    status_reason: row.status_reason ?? null,
    encoding: row.encoding,
    segments: row.segments,
    error_code: row.error_code,
    error_message: row.error_message,
    failure: row.error_code === null ? null : failure(row.error_code, row.error_message ?? row.error_code, row.carrier_code ?? null),
    webhook_url: row.webhook_url,
    metadata: JSON.parse(row.metadata) as Record<string, string>,
    created_at: row.created_at,
    updated_at: row.updated_at,
    sent_at: row.sent_at,
    delivered_at: row.delivered_at,
    read_at: row.read_at,
    failed_at: row.failed_at,
    received_at: row.received_at,
    canceled_at: row.canceled_at ?? null,
  };
}

/** `+` in a query string arrives as a space; accept the number with or without it. */
export function normalisePhoneQuery(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const digits = value.trim().replace(/^\+/, '');
  return `+${digits}`;
}

export class MessageService {
  private readonly db: Kysely<Tables>;
  constructor(
    private readonly platform: Platform,
    private readonly events: EventEmitter,
    private readonly numbers: NumberService,
    private readonly sandboxCarrier: MessagingCarrier,
    /** The real carrier for live traffic (from the carriers file); without one, valid live sends answer 422 carrier_not_configured. */
    private readonly liveCarrier: MessagingCarrier | null = null,
  ) {
    this.db = platform.database.db;
    sandboxCarrier.attach((report, then, within) => this.applyReport(report, then, within));
    // The live carrier's status reports and inbound messages come to this service.
    liveCarrier?.attach((report, then, within) => this.applyReport(report, then, within), (id, reason) => this.noteWaiting(id, reason), (id, seconds) => this.claimHandoff(id, seconds));
    liveCarrier?.attachInbound?.((message, then) => this.receiveFromCarrier(message, then));
  }

  private carrierFor(mode: Mode): MessagingCarrier {
    const carrier = mode === 'sandbox' ? this.sandboxCarrier : this.liveCarrier;
    if (!carrier) {
      throw new Problem('carrier_not_configured', 'No messaging carrier is configured for live traffic on this server, so live messages cannot be sent and nothing was written. '
        + 'Retrying will not help: configure a carrier (SWITCHBOARD_CARRIERS_FILE), or use a sandbox key to try messaging.');
    }
    return carrier;
  }

  /** POST /v1/messages. Nothing is written unless every check passes. */
  async send(accountId: string, mode: Mode, clock: Clock, input: SendInput, beforeCommit?: BeforeCommit<MessageRow>): Promise<MessageRow> {
    const channel = input.channel ?? 'sms';
    checkContent(channel, input);
    checkDestination(input.to);
    if (input.webhook_url !== undefined) await assertWebhookUrlAllowed(input.webhook_url, mode, this.platform.config, 'webhook_url');
    await assertMediaUrlsAllowed(input.media_urls ?? [], mode, this.platform.config);
    return inTransaction(this.db, async (trx) => {
      // The sending number before the carrier: a permanent refusal (carrier_not_configured)
      // never hides a bad field, `from` included. Nothing is written before either check.
      const number = await this.sendingNumber(trx, accountId, mode, input.from, channel);
      const refusal = this.carrierFor(mode).refusal?.(channel, number.messaging_carrier ?? null);
      if (refusal) throw new Problem('carrier_not_configured', refusal);
      if (channel === 'whatsapp' && !input.template) await this.assertWhatsAppWindow(trx, accountId, mode, clock, number.phone_number, input.to);
      const now = clock.now().toISOString();
      const { encoding, segments } = sizeOf(channel, input.body);
      const hold = this.carrierFor(mode).holdQueued?.(input.to) ?? null;
      const row: MessageRow = {
        id: newId('message'),
        account_id: accountId,
        mode,
        direction: 'outbound',
        channel,
        from_number: number.phone_number,
        to_number: input.to,
        number_id: number.id,
        body: input.body ?? null,
        media_urls: JSON.stringify(input.media_urls ?? []),
        template: input.template ? JSON.stringify({ ...input.template, variables: input.template.variables ?? [] }) : null,
        encoding,
        segments,
        status: 'queued',
        status_reason: hold?.reason ?? null,
        error_code: null,
        error_message: null,
        webhook_url: input.webhook_url ?? number.webhook_url,
        metadata: JSON.stringify(input.metadata ?? {}),
        created_at: now,
        updated_at: now,
        sent_at: null,
        delivered_at: null,
        read_at: null,
        failed_at: null,
        received_at: null,
      };
      await insertOutbound(trx, row);
      await this.emit(trx, row, STATE_EVENTS.queued, clock, { createdHere: true });
      const carrier = this.carrierFor(mode);
      if (carrier.takesQueued) await carrier.submit(trx, carrierMessage(row, number.messaging_carrier ?? null));
      else await this.platform.jobs.enqueue(trx, MESSAGE_DISPATCH_JOB, { messageId: row.id }, { clockId: mode === 'sandbox' ? accountId : null, delaySeconds: hold?.seconds ?? 0 });
      await beforeCommit?.(trx, row);
      return row;
    });
  }

  /** POST /v1/numbers/{id}/sms: an SMS from that number, same rules as POST /v1/messages. */
  async sendFromNumber(accountId: string, mode: Mode, clock: Clock, numberId: string, input: Omit<SendInput, 'from' | 'channel' | 'media_urls' | 'template'>, beforeCommit?: BeforeCommit<MessageRow>): Promise<MessageRow> {
    const number = await this.numbers.get(accountId, mode, numberId);
    return this.send(accountId, mode, clock, { ...input, from: number.phone_number, channel: 'sms' }, beforeCommit);
  }

  /** POST /v1/sandbox/inbound_messages: a message arrives for a number of the account. */
  async receive(accountId: string, mode: Mode, clock: Clock, input: InboundInput): Promise<MessageRow> {
    const channel = input.channel ?? 'sms';
    checkContent(channel, input);
    return inTransaction(this.db, async (trx) => {
      const number = await this.numbers.findByPhone(accountId, mode, input.to, trx);
      if (!number || number.status !== 'active') {
        throw new Problem('to_number_not_owned', `${input.to} is not an active number of this account in ${mode} mode.`);
      }
      if (!capabilitiesOf(number).includes(channel)) {
        throw new Problem('number_lacks_capability', `${number.phone_number} cannot receive ${channel}; its capabilities are ${capabilitiesOf(number).join(', ')}.`);
      }
      return this.insertInbound(trx, number, clock, channel, input);
    });
  }

  /**
   * The live carriers' inbound sink: a message a real link received for one of our live
   * numbers, whichever account holds it. `then` runs in the same transaction.
   */
  async receiveFromCarrier(message: InboundMessage, then?: (trx: Trx) => Promise<void>): Promise<'received' | 'unknown_number'> {
    return inTransaction(this.db, async (trx) => {
      const number = await this.numbers.findActiveLive(message.to, trx);
      if (!number) return 'unknown_number';
      await this.insertInbound(trx, number, this.platform.clock, message.channel, {
        from: message.from, to: message.to, channel: message.channel, body: message.body ?? undefined, media_urls: message.mediaUrls,
      }, message.sentAt);
      await then?.(trx);
      return 'received';
    });
  }

  /** `sentAt`: when the sender sent it, if the carrier says; stored as received_at (the window runs from it). */
  private async insertInbound(trx: Trx, number: NumberRow, clock: Clock, channel: Channel, input: InboundInput, sentAt?: string): Promise<MessageRow> {
    const now = clock.now().toISOString();
    const { encoding, segments } = sizeOf(channel, input.body);
    const row: MessageRow = {
      id: newId('message'), account_id: number.account_id, mode: number.mode, direction: 'inbound', channel,
      from_number: input.from, to_number: number.phone_number, number_id: number.id,
      body: input.body ?? null, media_urls: JSON.stringify(input.media_urls ?? []), template: null,
      encoding, segments, status: 'received', error_code: null, error_message: null,
      webhook_url: number.webhook_url, metadata: '{}', created_at: now, updated_at: now,
      sent_at: null, delivered_at: null, read_at: null, failed_at: null, received_at: sentAt ?? now,
    };
    await insertInbound(trx, row);
    await this.emit(trx, row, STATE_EVENTS.received, clock, { createdHere: true });
    return row;
  }

  async get(accountId: string, mode: Mode, id: string): Promise<MessageRow> {
    const row = await this.db.selectFrom('messages').selectAll()
      .where('id', '=', id).where('account_id', '=', accountId).where('mode', '=', mode).executeTakeFirst();
    if (!row) throw notFound('message', id);
    return row;
  }

  /**
   * Newest first, keyed by id: every filter has an index ending in id (migration 0004). A
   * created range walks the (created_at, id) index instead, so a day in the middle of a
   * million messages is a range scan, not a walk from the newest; the cursor is still the
   * id of the last message, looked up for its created_at.
   */
  async list(accountId: string, mode: Mode, q: ListQuery): Promise<MessageRow[]> {
    let query = this.db.selectFrom('messages').selectAll().where('account_id', '=', accountId).where('mode', '=', mode);
    if (q.from) query = query.where('from_number', '=', q.from);
    if (q.to) query = query.where('to_number', '=', q.to);
    const number = q.number;
    if (number) query = query.where((eb) => eb.or([eb('from_number', '=', number), eb('to_number', '=', number)]));
    if (q.status) query = query.where('status', '=', q.status);
    if (q.channel) query = query.where('channel', '=', q.channel);
    if (q.direction) query = query.where('direction', '=', q.direction);
    const byCreated = q.createdGte !== undefined || q.createdLte !== undefined;
    if (q.createdGte) query = query.where('created_at', '>=', new Date(q.createdGte).toISOString());
    if (q.createdLte) query = query.where('created_at', '<=', new Date(q.createdLte).toISOString());
    if (!byCreated) {
      return fetchPage(query, q);
    }
    if (q.startingAfter) {
      const cursor = await this.db.selectFrom('messages').select(['id', 'created_at'])
        .where('id', '=', q.startingAfter).where('account_id', '=', accountId).where('mode', '=', mode).executeTakeFirst();
      if (!cursor) throw invalidField('starting_after', 'is not the id of a message of this account and mode.', 'invalid_cursor');
      query = query.where((eb) => eb.or([
        eb('created_at', '<', cursor.created_at),
        eb.and([eb('created_at', '=', cursor.created_at), eb('id', '<', cursor.id)]),
      ]));
    }
    return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit + 1).execute();
  }

  /** Job: hands a queued message to the carrier (queued -> sending), in one transaction. */
  async dispatch(payload: { messageId: string }): Promise<void> {
    // The row is read once, inside (its account's clock too, as applyReport does): a read
    // before the transaction only to find the clock was a second statement per message.
    await inTransaction(this.db, async (trx) => {
      const [row] = await messageById(trx, payload.messageId);
      if (!row || row.status !== 'queued') return; // gone, or already handed over by an earlier run
      const clock = await this.platform.sandboxClocks.clockFor(row.account_id, row.mode, trx);
      const moved = await this.transition(trx, row, 'sending', clock, {});
      const binding = row.mode === 'live'
        ? (await trx.selectFrom('numbers').select('messaging_carrier').where('id', '=', row.number_id).executeTakeFirst())?.messaging_carrier ?? null
        : null;
      await this.carrierFor(row.mode).submit(trx, carrierMessage(moved, binding));
    });
  }

  /**
   * POST /v1/messages/{id}/cancel: a message its carrier has not taken yet (`queued`, also
   * while it waits with a status_reason) becomes `canceled` with message.canceled; its
   * pending job then finds it canceled and sends nothing. Race-free with the senders: each
   * moves the message out of `queued` (or claims it, see claimHandoff) in a transaction that
   * re-reads its status, and this UPDATE only matches a queued, unclaimed row.
   */
  async cancel(accountId: string, mode: Mode, clock: Clock, id: string): Promise<MessageRow> {
    return inTransaction(this.db, async (trx) => {
      let q = trx.selectFrom('messages').selectAll().where('id', '=', id).where('account_id', '=', accountId).where('mode', '=', mode);
      if (this.platform.database.engine === 'postgres') q = q.forUpdate();
      const row = await q.executeTakeFirst();
      if (!row) throw notFound('message', id);
      // Finishing actions repeat safely (docs/api.md).
      if (row.status === 'canceled') return row;
      const now = this.platform.clock.now().toISOString();
      if (row.status !== 'queued') throw notCancelable(row, row.direction === 'inbound'
        ? 'it is an inbound message' : 'its carrier has taken it already; only a queued message can be canceled');
      if (row.handoff_until && row.handoff_until > now) {
        throw notCancelable(row, 'its link is handing it to the provider right now; ask again in a few seconds: once the provider answers it is sending, or queued again if the provider could not take it');
      }
      return this.transition(trx, row, 'canceled', clock, { handoff_until: null }, (update) =>
        update.where((eb) => eb.or([eb('handoff_until', 'is', null), eb('handoff_until', '<=', now)])));
    });
  }

  /**
   * A live link is about to hand a message to its provider over the network while the
   * message is still `queued`: it claims the message until `seconds` from now, in its own
   * transaction, so a cancel cannot slip in between its check and the request. False when the
   * message can no longer be sent (canceled, failed, ...): the link sends nothing.
   */
  async claimHandoff(messageId: string, seconds: number): Promise<boolean> {
    const until = new Date(this.platform.clock.now().getTime() + seconds * 1000).toISOString();
    const result = await this.db.updateTable('messages').set({ handoff_until: until })
      .where('id', '=', messageId).where('status', 'in', ['queued', 'sending']).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** The carriers' waiting sink: why a message that has not moved is held up (no event); a claim ends with it. */
  async noteWaiting(messageId: string, reason: string): Promise<void> {
    await this.db.updateTable('messages').set({ status_reason: reason, handoff_until: null })
      .where('id', '=', messageId).where('status', 'in', ['queued', 'sending']).execute();
  }

  /**
   * The carriers' status sink: one report, one transition, one event; in the carrier's
   * transaction when it passes one (`within`), else in its own. The row is read once, inside.
   */
  async applyReport(report: StatusReport, then?: (trx: Trx) => Promise<void>, within?: Trx): Promise<'applied' | 'duplicate'> {
    const apply = async (trx: Trx): Promise<'applied' | 'duplicate'> => {
      // A ledger batch that moved this message already (`sent`, then the receipt's
      // `delivered`) knows the row as it left it: read once per batch (batch-scope.ts).
      const key = `message:${report.messageId}`;
      const row = await remember(trx, key, async () => (await messageById(trx, report.messageId))[0]);
      if (!row) return 'duplicate';
      if (alreadyPassed(row.status, report.status) || (row.status === report.status)) return 'duplicate';
      const clock = await this.platform.sandboxClocks.clockFor(row.account_id, row.mode, trx);
      const fields: Partial<MessageRow> = {};
      if (report.errorCode !== undefined) fields.error_code = report.errorCode;
      if (report.errorMessage !== undefined) fields.error_message = report.errorMessage;
      if (report.carrierCode !== undefined) fields.carrier_code = report.carrierCode;
      note(trx, key, await this.transition(trx, row, report.status, clock, fields));
      await then?.(trx);
      return 'applied';
    };
    return within ? apply(within) : inTransaction(this.db, apply);
  }

  /**
   * The one way a message changes status: MESSAGE_MACHINE checks the move (and that only
   * WhatsApp has `read`), stamps it and updates the row only if it is still in the state we
   * read (and `guard` holds); then `message.<status>` is emitted with the full message.
   */
  private async transition(trx: Trx, row: MessageRow, to: MessageStatus, clock: Clock, fields: Partial<MessageRow>, guard?: (update: MessageUpdate) => MessageUpdate): Promise<MessageRow> {
    const moved = await MESSAGE_MACHINE.move(trx, row, to, { now: clock.now().toISOString(), set: fields, ...(guard ? { where: guard } : {}) });
    await this.emit(trx, moved, STATE_EVENTS[to], clock);
    return moved;
  }

  /**
   * Every caller emits the event of the status the message just entered, so this is also where it is counted.
   * `createdHere`: the message was inserted in this transaction, so this is its first event (see EmitInput).
   */
  private emit(trx: Trx, row: MessageRow, type: EventType, clock: Clock, opts: { createdHere?: boolean } = {}) {
    countMessageStatus(trx, row);
    return this.events.emit(trx, {
      accountId: row.account_id, mode: row.mode, type, resourceType: 'message', resourceId: row.id,
      object: presentMessage(row), webhookUrl: row.webhook_url, clock, ...(opts.createdHere ? { createdHere: true } : {}),
    });
  }

  private async sendingNumber(trx: Trx, accountId: string, mode: Mode, from: string, channel: Channel): Promise<NumberRow> {
    const number = await this.numbers.findByPhone(accountId, mode, from, trx);
    if (!number || number.status !== 'active') {
      throw new Problem('from_number_not_owned', number
        ? `${from} is still being ported; send from its temporary number until the port completes.`
        : `${from} is not an active number of this account in ${mode} mode. List yours with GET /v1/numbers.`, {
        errors: [{ field: 'from', message: number ? 'is still being ported' : 'is not an active number of this account in this mode', code: 'not_allowed' }],
      });
    }
    const capabilities = capabilitiesOf(number);
    if (!capabilities.includes(channel)) {
      throw new Problem('number_lacks_capability', `${from} cannot send ${channel}; its capabilities are ${capabilities.join(', ')}.`);
    }
    return number;
  }

  /** Free-form WhatsApp only within 24 h of the recipient's last inbound message to this number. */
  private async assertWhatsAppWindow(trx: Trx, accountId: string, mode: Mode, clock: Clock, ourNumber: string, user: string): Promise<void> {
    const last = await trx.selectFrom('messages').select(['created_at', 'received_at'])
      .where('account_id', '=', accountId).where('mode', '=', mode).where('from_number', '=', user)
      .where('to_number', '=', ourNumber).where('direction', '=', 'inbound').where('channel', '=', 'whatsapp')
      .orderBy('id', 'desc').limit(1).executeTakeFirst();
    // received_at: when the user sent it as the carrier reports it (a webhook may arrive late).
    const closesAt = last ? Date.parse(last.received_at ?? last.created_at) + WHATSAPP_WINDOW_HOURS * 3_600_000 : 0;
    if (clock.now().getTime() >= closesAt) {
      throw new Problem('whatsapp_window_closed', last
        ? `The 24-hour window with ${user} closed at ${new Date(closesAt).toISOString()}; send an approved template instead.`
        : `${user} has not written to ${ourNumber} on WhatsApp; only an approved template can start the conversation.`,
      { extensions: { window_closed_at: last ? new Date(closesAt).toISOString() : null } });
    }
  }
}

type MessageUpdate = UpdateQueryBuilder<Tables, 'messages', 'messages', UpdateResult>;

function notCancelable(row: MessageRow, why: string): Problem {
  return new Problem('message_not_cancelable', `Message ${row.id} is ${row.status} and cannot be canceled: ${why}.`, { extensions: { message_status: row.status } });
}

function carrierMessage(row: MessageRow, binding: string | null): CarrierMessage {
  const message = presentMessage(row);
  return {
    id: message.id, accountId: row.account_id, mode: row.mode, channel: message.channel, from: message.from, to: message.to,
    body: message.body, mediaUrls: message.media_urls, template: message.template, messagingCarrier: binding,
  };
}

function capabilitiesOf(number: NumberRow): string[] {
  return JSON.parse(number.capabilities) as string[];
}

/** Content rules per channel; the schema has already checked types and sizes. */
function checkContent(channel: Channel, input: { body?: string | undefined; media_urls?: string[] | undefined; template?: Template | undefined }): void {
  const hasBody = input.body !== undefined && input.body.length > 0;
  const media = input.media_urls ?? [];
  if (input.body !== undefined && [...input.body].length > MAX_BODY_CHARACTERS) {
    throw invalidField('body', `must be at most ${MAX_BODY_CHARACTERS} characters.`, 'too_long');
  }
  if (media.length > MAX_MEDIA_URLS) throw invalidField('media_urls', `at most ${MAX_MEDIA_URLS} media URLs.`, 'too_long');
  if (input.template && channel !== 'whatsapp') throw invalidField('template', 'templates are for the whatsapp channel only.', 'not_allowed');
  if (channel === 'sms') {
    if (media.length > 0) throw invalidField('media_urls', 'SMS carries no media; send channel "mms" for media.', 'not_allowed');
    if (!hasBody) throw invalidField('body', 'an SMS needs a non-empty body.', 'required');
  } else if (channel === 'mms') {
    if (media.length === 0) throw invalidField('media_urls', 'an MMS needs at least one media URL; send channel "sms" for text only.', 'required');
  } else if (input.template) {
    if (hasBody || media.length > 0) throw invalidField('template', 'send either a template or a body and media, not both.', 'not_allowed');
  } else if (!hasBody && media.length === 0) {
    throw invalidField('body', 'a WhatsApp message needs a body, media_urls or a template.', 'required');
  }
}

function checkDestination(to: string): void {
  if (!phoneFacts(to)?.possible) throw invalidField('to', phoneNumberMessage(to), 'invalid_phone_number');
}

/** SMS are billed per segment; an MMS or a WhatsApp message is one message whatever its length. */
function sizeOf(channel: Channel, body: string | undefined): { encoding: 'gsm7' | 'ucs2'; segments: number } {
  const analysis = analyzeSmsBody(body ?? '');
  return { encoding: analysis.encoding, segments: channel === 'sms' ? analysis.segments : 1 };
}

// Calls: placing them (with the from-number, carrier and concurrent-call checks), hanging
// up, blind transfers, lists, and the CallSignals the carrier drives the call with. Every
// change goes through `transition` (states.ts) inside one transaction with its events and
// the carrier's next jobs.
import { fetchPage } from '../../platform/pagination.ts';
import type { Platform } from '../../platform/context.ts';
import type { Clock } from '../../platform/clock.ts';
import type { EventEmitter } from '../../events/emit.ts';
import type { EventType } from '../../events/catalogue.ts';
import type { AccountRow, Mode } from '../../store/platform-tables.ts';
import { inTransaction, type Trx } from '../../store/transaction.ts';
import { newId } from '../../platform/ids.ts';
import { phoneNumberMessage } from '../../platform/field-errors.ts';
import { phoneFacts } from '../../platform/phone.ts';
import { prepareFor } from '../../store/prepared.ts';
import { Problem, invalidField, notFound } from '../../platform/problems.ts';
import { limitsOf } from '../accounts/plans.ts';
import { assertWebhookUrlAllowed } from '../webhooks/url-policy.ts';
import type { CallEnd, CallSignals, InboundCall, TransferOutcome, VoiceCarrier, VoiceCarriers } from '../../carriers/carrier.ts';
import type { CallRow } from './tables.ts';
import { STATE_EVENTS as TRANSFER_EVENTS } from './transfer-states.ts';
import { ACTIVE_STATUSES, STATE_EVENTS, transition, type CallStatus, type TransitionDeps, type TransitionExtra } from './states.ts';
import { presentCall, presentOne, recordingIdsOf, type Call, type CallTransfer } from './presenter.ts';
import { matches, subscribedTypes } from '../webhooks/matching.ts';
import { ActiveCallCounts } from './active-counts.ts';
import { unheardSpeechErrors, validateFlow } from './flows/validate.ts';
import type { Verb } from './flows/schema.ts';
import { assertFlowUrlsAllowed } from './flows/flow-urls.ts';
import { fetchedFlowState, newFlowState } from './flows/state.ts';

export interface CreateCallInput {
  from: string;
  to: string;
  record?: boolean | undefined;
  webhook_url?: string | undefined;
  timeout?: number | undefined;
  time_limit?: number | undefined;
  metadata?: Record<string, string> | undefined;
  /** A call flow run when the call is answered (validated by flows/validate.ts). */
  flow?: unknown[] | undefined;
  /** Where the flow is fetched from when the call is answered (not with `flow`). */
  answer_url?: string | undefined;
  answer_fallback_url?: string | undefined;
}

export interface Caller {
  account: AccountRow;
  mode: Mode;
  clock: Clock;
}

export interface CallListFilter {
  limit: number;
  startingAfter?: string | undefined;
  status?: CallStatus | undefined;
  from?: string | undefined;
  to?: string | undefined;
  createdGte?: string | undefined;
  createdLte?: string | undefined;
}

/** Runs inside a call's transition, after its UPDATE: recordings start and stop with calls this way. */
export type CallListener = (trx: Trx, call: CallRow, from: CallStatus, clock: Clock) => Promise<void>;

/** Runs inside the transaction that settles a transfer, after call.transferred / call.transfer_failed. */
export type TransferListener = (trx: Trx, call: CallRow, index: number, outcome: TransferOutcome) => Promise<void>;

/** What answers an inbound call from a carrier (flows/inbound.ts). */
export interface InboundAnswerer {
  arrived(trx: Trx, input: InboundCall, clock: Clock): Promise<CallRow>;
}

/** An inbound call as the carrier (or the sandbox's simulated caller) reports it. */
export type InboundCallInput = InboundCall & {
  /** Fire call.inbound first (calls answered by a flow; the AI receptionist announces its own conversation). */
  announce?: boolean;
};

export const DEFAULT_TIMEOUT = 30;
export const DEFAULT_TIME_LIMIT = 14_400;

/** E.164 checked by libphonenumber; the exact E.164 text is required so stored numbers compare equal. */
export function e164(field: string, raw: string): string {
  const parsed = phoneFacts(raw);
  if (!parsed || !parsed.valid || parsed.e164 !== raw) throw invalidField(field, phoneNumberMessage(raw), 'invalid_phone_number');
  return parsed.e164;
}

export class CallService implements CallSignals {
  private readonly listeners: CallListener[] = [];
  private readonly transferListeners: TransferListener[] = [];

  private readonly activeCounts: ActiveCallCounts;

  constructor(private readonly platform: Platform, private readonly events: EventEmitter, private readonly carriers: VoiceCarriers) {
    this.activeCounts = new ActiveCallCounts(platform.config.keyCacheTtlMs, async (accountId, mode) => {
      const [row] = await activeCallsNow(this.db, accountId, mode);
      return Number(row?.n ?? 0);
    });
  }

  private get db() {
    return this.platform.database.db;
  }

  private get base(): string {
    return this.platform.publicUrl.base;
  }

  /**
   * The URL a call without a webhook_url of its own shows: the oldest enabled subscription
   * of the account and mode that receives call.completed ("*", "call.*" or the type itself).
   */
  private async subscriptionUrl(db: Trx, accountId: string, mode: Mode): Promise<string | null> {
    const endpoints = await db.selectFrom('webhook_endpoints').select(['url', 'events'])
      .where('account_id', '=', accountId).where('mode', '=', mode).where('enabled', '=', 1).orderBy('id').execute();
    return endpoints.find((e) => matches(subscribedTypes(e.events), 'call.completed'))?.url ?? null;
  }

  /** Recordings subscribe here to start on answer and stop on hang-up. */
  onTransition(listener: CallListener): void {
    this.listeners.push(listener);
  }

  /** The AI receptionist follows the transfers it asks for this way. */
  onTransferSettled(listener: TransferListener): void {
    this.transferListeners.push(listener);
  }

  private deps(clock: Clock): TransitionDeps {
    return {
      events: this.events,
      clock,
      present: (trx, row) => presentOne(trx, row, this.base),
      afterUpdate: async (trx, row, from) => {
        this.activeCounts.changed(trx, row.account_id, row.mode);
        for (const listener of this.listeners) await listener(trx, row, from, clock);
      },
    };
  }

  async create(caller: Caller, input: CreateCallInput): Promise<Call> {
    const { account, mode, clock } = caller;
    // Everything that can refuse the call is checked before the first write: the request
    // itself first, so a permanent refusal (no live carrier) never hides a bad field.
    const from = e164('from', input.from);
    const to = e164('to', input.to);
    if (input.webhook_url !== undefined) await assertWebhookUrlAllowed(input.webhook_url, mode, this.platform.config, 'webhook_url');
    let flowState: string | null = null;
    let inlineVerbs: Verb[] = [];
    if (input.flow !== undefined) {
      const checked = validateFlow(input.flow);
      if (!checked.ok) {
        throw new Problem('validation_failed', `The flow is not valid: ${checked.errors.map((e) => `${e.field} ${e.message}`).join('; ')}.`, { errors: checked.errors });
      }
      await assertFlowUrlsAllowed(checked.verbs, mode, this.platform.config);
      inlineVerbs = checked.verbs;
      flowState = JSON.stringify(newFlowState(checked.verbs));
    }
    if (input.answer_url !== undefined && input.flow !== undefined) {
      throw invalidField('answer_url', 'cannot be given with flow: a call runs either an inline flow or the one answer_url answers.', 'not_allowed');
    }
    if (input.answer_fallback_url !== undefined && input.flow === undefined && input.answer_url === undefined) {
      throw invalidField('answer_fallback_url', 'needs answer_url (or a flow with webhooks): it is what is asked when they fail.', 'not_allowed');
    }
    if (input.answer_url !== undefined) {
      await assertWebhookUrlAllowed(input.answer_url, mode, this.platform.config, 'answer_url');
      flowState = JSON.stringify(fetchedFlowState(input.answer_url, null));
    }
    if (input.answer_fallback_url !== undefined) {
      await assertWebhookUrlAllowed(input.answer_fallback_url, mode, this.platform.config, 'answer_fallback_url');
      flowState = JSON.stringify({ ...JSON.parse(flowState!), fallbackUrl: input.answer_fallback_url });
    }
    const carrier = this.carriers.forMode(mode);
    const unheard = unheardSpeechErrors(inlineVerbs, carrier.media);
    if (unheard.length > 0) {
      throw new Problem('validation_failed', `The flow cannot run on ${mode} calls here: ${unheard.map((e) => `${e.field} ${e.message}`).join('; ')}.`, { errors: unheard });
    }
    const number = await this.db.selectFrom('numbers').select(['capabilities', 'webhook_url', 'voice_trunk'])
      .where('account_id', '=', account.id).where('mode', '=', mode)
      .where('phone_number', '=', from).where('status', '=', 'active')
      .executeTakeFirst();
    if (!number || !(JSON.parse(number.capabilities) as string[]).includes('voice')) {
      throw new Problem('from_number_not_owned', `${from} is not an active voice number of this account in ${mode} mode. List yours with GET /v1/numbers.`, {
        errors: [{ field: 'from', message: 'is not an active voice number of this account in this mode', code: 'not_allowed' }],
      });
    }
    carrier.checkRoute?.(number.voice_trunk ?? null);
    if (flowState !== null && carrier.runsFlows === false) {
      throw new Problem('flow_not_supported', `Call flows do not run on ${mode} calls over this server's ${carrier.name} carrier yet, so nothing was created. `
        + 'Place the call without a flow, or try the flow with a sandbox key.', {
        errors: [{ field: input.flow !== undefined ? 'flow' : 'answer_url', message: 'is not supported on this carrier yet', code: 'not_allowed' }],
      });
    }

    return inTransaction(this.db, async (trx) => {
      await this.enforceConcurrentLimit(trx, account, mode);
      const webhookUrl = input.webhook_url ?? number.webhook_url ?? null;
      const row = newCallRow(carrier, clock, {
        subscription_webhook_url: webhookUrl === null ? await this.subscriptionUrl(trx, account.id, mode) : null,
        account_id: account.id,
        mode,
        status: 'queued',
        direction: 'outbound',
        from_number: from,
        to_number: to,
        record: input.record ? 1 : 0,
        webhook_url: webhookUrl,
        timeout: input.timeout ?? DEFAULT_TIMEOUT,
        time_limit: input.time_limit ?? DEFAULT_TIME_LIMIT,
        metadata: JSON.stringify(input.metadata ?? {}),
      });
      if (flowState) row.flow_state = flowState;
      await trx.insertInto('calls').values(row).execute();
      const call = presentCall(row, [], this.base);
      await this.emit(trx, row, STATE_EVENTS.queued, call, clock);
      await carrier.place(trx, row);
      return call;
    });
  }

  /**
   * An inbound call reaching a number of the account: it starts `ringing` (call.ringing)
   * and is answered by whoever handles the number (an AI agent) through `answered`.
   * Inbound calls count against the concurrent-call cap like outbound ones.
   */
  /** Answers carriers' inbound calls with the called number's voice configuration (flows/inbound.ts, connected at start). */
  private inboundAnswerer: InboundAnswerer | null = null;

  connectInbound(answerer: InboundAnswerer): void {
    this.inboundAnswerer = answerer;
  }

  /** CallSignals: a carrier's caller reached one of an account's numbers. */
  async inboundCall(trx: Trx, input: InboundCall, clock: Clock): Promise<CallRow> {
    if (!this.inboundAnswerer) throw new Error('an inbound call arrived before the calls module connected its answerer');
    return this.inboundAnswerer.arrived(trx, input, clock);
  }

  /** Creates an inbound call, `ringing`, with nothing to run yet: the callers above decide what answers it. */
  async createInbound(trx: Trx, input: InboundCallInput, clock: Clock): Promise<CallRow> {
    const account = await trx.selectFrom('accounts').selectAll().where('id', '=', input.accountId).executeTakeFirstOrThrow();
    await this.enforceConcurrentLimit(trx, account, input.mode);
    const row = newCallRow(this.carriers.forMode(input.mode), clock, {
      subscription_webhook_url: input.webhookUrl === null ? await this.subscriptionUrl(trx, input.accountId, input.mode) : null,
      account_id: input.accountId,
      mode: input.mode,
      status: 'ringing',
      direction: 'inbound',
      from_number: input.from,
      to_number: input.to,
      record: 0,
      webhook_url: input.webhookUrl,
      timeout: DEFAULT_TIMEOUT,
      time_limit: DEFAULT_TIME_LIMIT,
      metadata: '{}',
    });
    await trx.insertInto('calls').values(row).execute();
    if (input.announce) await this.emit(trx, row, 'call.inbound', presentCall(row, [], this.base), clock);
    await this.emit(trx, row, STATE_EVENTS.ringing, presentCall(row, [], this.base), clock);
    return row;
  }

  /**
   * The plan's cap on calls queued, ringing or in progress, per account and mode. The check
   * and the insert must not interleave with another request's: on PostgreSQL the account row
   * lock serialises them; SQLite runs one write transaction at a time.
   */
  private async enforceConcurrentLimit(trx: Trx, account: AccountRow, mode: Mode): Promise<void> {
    if (this.platform.database.engine === 'postgres') {
      await trx.selectFrom('accounts').select('id').where('id', '=', account.id).forUpdate().execute();
    }
    const current = await trx.selectFrom('accounts').selectAll().where('id', '=', account.id).executeTakeFirstOrThrow();
    const limit = limitsOf(current).concurrent_calls;
    if (limit === null) return;
    const active = await this.countActive(trx, account.id, mode);
    if (active >= limit) {
      throw new Problem('concurrent_call_limit',
        `The ${current.plan} plan allows ${limit} concurrent calls (queued, ringing or in progress) and ${active} are active in ${mode} mode. `
        + 'Wait for one to end, or ask for a higher cap.', { extensions: { limit, active } });
    }
  }

  private async countActive(db: Trx | Platform['database']['db'], accountId: string, mode: Mode): Promise<number> {
    const row = await activeCallsQuery(db, accountId, mode).executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** For GET /v1/account, which shows it on every request (see active-counts.ts). */
  activeCalls(accountId: string, mode: Mode): number | Promise<number> {
    return this.activeCounts.get(accountId, mode, this.platform.clock.now().getTime());
  }

  async get(accountId: string, mode: Mode, id: string): Promise<Call> {
    const row = await this.db.selectFrom('calls').selectAll()
      .where('id', '=', id).where('account_id', '=', accountId).where('mode', '=', mode).executeTakeFirst();
    if (!row) throw notFound('call', id);
    return presentOne(this.db, row, this.base);
  }

  async list(accountId: string, mode: Mode, f: CallListFilter): Promise<{ rows: CallRow[]; present: (row: CallRow) => Call }> {
    let q = this.db.selectFrom('calls').selectAll().where('account_id', '=', accountId).where('mode', '=', mode);
    if (f.status) q = q.where('status', '=', f.status);
    if (f.from) q = q.where('from_number', '=', f.from);
    if (f.to) q = q.where('to_number', '=', f.to);
    if (f.createdGte) q = q.where('created_at', '>=', new Date(f.createdGte).toISOString());
    if (f.createdLte) q = q.where('created_at', '<=', new Date(f.createdLte).toISOString());
    const rows = await fetchPage(q, f);
    const ids = await recordingIdsOf(this.db, rows.map((r) => r.id));
    return { rows, present: (row) => presentCall(row, ids.get(row.id) ?? [], this.base) };
  }

  /** Locks the call for the rest of the transaction (PostgreSQL row lock; SQLite is serialised). */
  async lock(trx: Trx, callId: string): Promise<CallRow | undefined> {
    let q = trx.selectFrom('calls').selectAll().where('id', '=', callId);
    if (this.platform.database.engine === 'postgres') q = q.forUpdate();
    return q.executeTakeFirst();
  }

  /** A call of this account and mode, locked; 404 otherwise. */
  async lockOwned(trx: Trx, accountId: string, mode: Mode, id: string): Promise<CallRow> {
    const row = await this.lock(trx, id);
    if (!row || row.account_id !== accountId || row.mode !== mode) throw notFound('call', id);
    return row;
  }

  /** POST /v1/calls/{id}/hangup: cancels a call that is queued or ringing, completes one in progress; an ended call is returned unchanged. */
  async hangup(caller: Caller, id: string): Promise<Call> {
    return inTransaction(this.db, async (trx) => {
      const call = await this.lockOwned(trx, caller.account.id, caller.mode, id);
      const carrier = this.carriers.named(call.carrier);
      let next: CallRow;
      if (call.status === 'queued' || call.status === 'ringing') {
        await carrier.hangUp(trx, call);
        next = await transition(trx, this.deps(caller.clock), call, 'canceled', this.endExtra(call, caller.clock, {
          hangup_cause: 'originator_cancel', hangup_source: 'caller', duration_seconds: 0,
        }));
      } else if (call.status === 'in_progress') {
        const { talkSeconds } = await carrier.hangUp(trx, call);
        next = await transition(trx, this.deps(caller.clock), call, 'completed', this.endExtra(call, caller.clock, {
          hangup_cause: 'normal_clearing', hangup_source: 'caller', duration_seconds: wholeSeconds(talkSeconds ?? 0),
        }));
      } else {
        // Finishing actions repeat safely (docs/api.md): an ended call is already what
        // hangup asks for, so the answer is the call as it is, and nothing changes.
        next = call;
      }
      return presentOne(trx, next, this.base);
    });
  }

  /**
   * The call's flow hung up (a `hangup` verb, or it ran out of verbs): Switchboard's side ends
   * the call, the caller on an outbound call and the called number on an inbound one.
   */
  async endFromFlow(trx: Trx, call: CallRow, clock: Clock): Promise<void> {
    if (call.status !== 'in_progress') return;
    const { talkSeconds } = await this.carriers.named(call.carrier).hangUp(trx, call);
    await transition(trx, this.deps(clock), call, 'completed', this.endExtra(call, clock, {
      hangup_cause: 'normal_clearing', hangup_source: call.direction === 'inbound' ? 'callee' : 'caller', duration_seconds: wholeSeconds(talkSeconds ?? 0),
    }));
  }

  /** GET /v1/calls/{id}/flow */
  async flowOf(accountId: string, mode: Mode, id: string): Promise<CallRow> {
    const row = await this.db.selectFrom('calls').selectAll()
      .where('id', '=', id).where('account_id', '=', accountId).where('mode', '=', mode).executeTakeFirst();
    if (!row) throw notFound('call', id);
    return row;
  }

  /** POST /v1/calls/{id}/transfer: a blind transfer of the called party; the outcome arrives later. */
  async transfer(caller: Caller, id: string, rawTo: string, ringTimeout: number): Promise<Call> {
    const to = e164('to', rawTo);
    return inTransaction(this.db, async (trx) => {
      const call = await this.lockOwned(trx, caller.account.id, caller.mode, id);
      const { call: next } = await this.startTransfer(trx, call, to, ringTimeout, caller.clock);
      return presentOne(trx, next, this.base);
    });
  }

  /**
   * Starts a blind transfer of `call` (locked by the caller) in `trx`; the API and the AI
   * receptionist both transfer this way. Returns the call and the transfer's index.
   */
  async startTransfer(trx: Trx, call: CallRow, to: string, ringTimeout: number, clock: Clock): Promise<{ call: CallRow; index: number }> {
    const id = call.id;
    if (call.status !== 'in_progress') {
      throw new Problem('call_not_in_progress', `Only a call in progress can be transferred; call ${id} is ${call.status}.`);
    }
    const transfers = JSON.parse(call.transfers) as CallTransfer[];
    if (transfers.some((t) => t.status === 'pending')) {
      throw new Problem('conflict', `Call ${id} already has a transfer in progress; wait for call.transferred or call.transfer_failed.`);
    }
    const otherParty = call.direction === 'inbound' ? call.from_number : call.to_number;
    if (to === otherParty && transfers.every((t) => t.status !== 'completed')) {
      throw invalidField('to', 'is the party already on the call.', 'not_allowed');
    }
    const now = clock.now().toISOString();
    transfers.push({ to, status: 'pending', requested_at: now, settled_at: null });
    const next: CallRow = { ...call, transfers: JSON.stringify(transfers), updated_at: now };
    await trx.updateTable('calls').set({ transfers: next.transfers, updated_at: now }).where('id', '=', id).execute();
    // Announced before the carrier is asked, so call.transfer_started precedes its outcome's event.
    await this.emit(trx, next, TRANSFER_EVENTS.pending, await presentOne(trx, next, this.base), clock);
    await this.carriers.named(call.carrier).transfer(trx, next, transfers.length - 1, to, ringTimeout);
    return { call: next, index: transfers.length - 1 };
  }

  // --- CallSignals: the carrier reports progress --------------------------------------

  private clockOf(trx: Trx, call: CallRow): Promise<Clock> {
    return this.platform.sandboxClocks.clockFor(call.account_id, call.mode, trx);
  }

  async ringing(trx: Trx, call: CallRow): Promise<void> {
    await transition(trx, this.deps(await this.clockOf(trx, call)), call, 'ringing');
  }

  async answered(trx: Trx, call: CallRow): Promise<void> {
    await transition(trx, this.deps(await this.clockOf(trx, call)), call, 'in_progress');
  }

  async ended(trx: Trx, call: CallRow, end: CallEnd): Promise<void> {
    const clock = await this.clockOf(trx, call);
    await transition(trx, this.deps(clock), call, end.status, this.endExtra(call, clock, {
      hangup_cause: end.hangupCause,
      hangup_source: end.hangupSource,
      carrier_code: end.carrierCode ?? null,
      // Talk time is the answered call's, however it ended (a lost call fails after talking).
      duration_seconds: call.status === 'in_progress' ? wholeSeconds(end.talkSeconds ?? 0) : 0,
    }));
  }

  async transferSettled(trx: Trx, call: CallRow, index: number, outcome: TransferOutcome): Promise<void> {
    const clock = await this.clockOf(trx, call);
    const now = clock.now().toISOString();
    const transfers = JSON.parse(call.transfers) as CallTransfer[];
    const transfer = transfers[index];
    if (!transfer || transfer.status !== 'pending') return;
    transfer.status = outcome;
    transfer.settled_at = now;
    const next: CallRow = { ...call, transfers: JSON.stringify(transfers), updated_at: now };
    await trx.updateTable('calls').set({ transfers: next.transfers, updated_at: now }).where('id', '=', call.id).execute();
    await this.emit(trx, next, TRANSFER_EVENTS[outcome], await presentOne(trx, next, this.base), clock);
    for (const listener of this.transferListeners) await listener(trx, next, index, outcome);
  }

  /** The end of a call also settles a transfer still ringing: it can no longer connect. */
  private endExtra(call: CallRow, clock: Clock, extra: TransitionExtra): TransitionExtra {
    const transfers = JSON.parse(call.transfers) as CallTransfer[];
    if (!transfers.some((t) => t.status === 'pending')) return extra;
    const now = clock.now().toISOString();
    const settled = transfers.map((t) => (t.status === 'pending' ? { ...t, status: 'canceled' as const, settled_at: now } : t));
    return { ...extra, transfers: JSON.stringify(settled) };
  }

  /** Emits a call event outside a transition (creation, transfers); a creation changes the active count. */
  private async emit(trx: Trx, row: CallRow, type: EventType, object: Call, clock: Clock): Promise<void> {
    this.activeCounts.changed(trx, row.account_id, row.mode);
    await this.events.emit(trx, {
      accountId: row.account_id, mode: row.mode, type, resourceType: 'call', resourceId: row.id, object, webhookUrl: row.webhook_url, clock,
    });
  }
}

/** Talk time in whole seconds, rounded up as carriers bill it. */
function wholeSeconds(seconds: number): number {
  return Math.max(0, Math.ceil(seconds - 1e-6));
}

type NewCallFields = Pick<CallRow, 'account_id' | 'mode' | 'status' | 'direction' | 'from_number' | 'to_number' | 'record'
  | 'webhook_url' | 'subscription_webhook_url' | 'timeout' | 'time_limit' | 'metadata'>;

/** A call as it is first stored, outbound (queued) or inbound (ringing): nothing has happened yet. */
function newCallRow(carrier: VoiceCarrier, clock: Clock, fields: NewCallFields): CallRow {
  const now = clock.now().toISOString();
  const id = newId('call');
  return {
    id,
    ...fields,
    timestamps: JSON.stringify({ [fields.status]: now }),
    answered_at: null,
    ended_at: null,
    duration_seconds: null,
    hangup_cause: null,
    hangup_source: null,
    carrier_code: null,
    transfers: '[]',
    carrier: carrier.name,
    carrier_state: carrier.initialState({ id, to_number: fields.to_number }),
    created_at: now,
    updated_at: now,
  };
}

/** The hot-path copy of activeCallsQuery: GET /v1/account counts on every request its cache misses. */
const activeCallsNow = prepareFor((db, accountId: string, mode: Mode) => activeCallsQuery(db, accountId, mode), 2);

function activeCallsQuery(db: Trx | Platform['database']['db'], accountId: string, mode: Mode) {
  return db.selectFrom('calls').select((eb) => eb.fn.countAll().as('n'))
    .where('account_id', '=', accountId).where('mode', '=', mode).where('status', 'in', [...ACTIVE_STATUSES]);
}

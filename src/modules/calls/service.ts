// Calls: placing them (with the from-number, carrier and concurrent-call checks), hanging
// up, blind transfers, lists, and the CallSignals the carrier drives the call with. Every
// change goes through `transition` (states.ts) inside one transaction with its events and
// the carrier's next jobs.
import { sql } from 'kysely';
import { fetchPage } from '../../platform/pagination.ts';
import type { Platform } from '../../platform/context.ts';
import type { Clock } from '../../platform/clock.ts';
import type { EventEmitter } from '../../events/emit.ts';
import type { EventType } from '../../events/catalogue.ts';
import type { AccountRow, Mode, NumberRow } from '../../store/platform-tables.ts';
import { inTransaction, type BeforeCommit, type Trx } from '../../store/transaction.ts';
import { newId } from '../../platform/ids.ts';
import { phoneNumberMessage } from '../../platform/field-errors.ts';
import { phoneFacts } from '../../platform/phone.ts';
import { prepareFor, prepareRowInsert } from '../../store/prepared.ts';
import { Problem, invalidField, notFound } from '../../platform/problems.ts';
import { limitsOf } from '../accounts/plans.ts';
import { assertWebhookUrlAllowed } from '../webhooks/url-policy.ts';
import type { CallSignals, InboundDecision, InboundOffer, VoiceCarrier, VoiceCarriers } from '../../carriers/index.ts';
import type { CallEnd, TransferOutcome } from '../../telephony/call-end.ts';
import type { CallRef } from '../../telephony/call-ref.ts';
import type { CallRow } from './tables.ts';
import { STATE_EVENTS as TRANSFER_EVENTS, TRANSFER_MACHINE } from './transfer-states.ts';
import { ACTIVE_STATUSES, STATE_EVENTS, transition, type CallStatus, type TransitionDeps, type TransitionExtra } from './states.ts';
import { presentCall, presentOne, recordingIdsOf, type Call, type CallTransfer } from './presenter.ts';
import { matches, subscribedTypes } from '../webhooks/matching.ts';
import { enabledEndpointsIn } from '../webhooks/enabled-endpoints.ts';
import { ActiveCallCounts } from './active-counts.ts';
import { countCallStatus } from './metrics.ts';
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
  /** Either side of the call (the console's number filter). */
  number?: string | undefined;
  direction?: 'inbound' | 'outbound' | undefined;
  createdGte?: string | undefined;
  createdLte?: string | undefined;
}

/** Runs inside a call's transition, after its UPDATE: recordings start and stop with calls this way. */
export type CallListener = (trx: Trx, call: CallRow, from: CallStatus, clock: Clock) => Promise<void>;

/** Runs inside the transaction that settles a transfer, after call.transferred / call.transfer_failed. */
export type TransferListener = (trx: Trx, call: CallRow, index: number, outcome: TransferOutcome) => Promise<void>;

/** What answers an inbound call from a carrier (flows/inbound.ts). */
export interface InboundAnswerer {
  /** Creates the call to `number`, ringing, set to run the number's voice configuration. */
  arrived(trx: Trx, number: NumberRow, input: InboundCall, clock: Clock): Promise<CallRow>;
}

/** An inbound call to one of an account's numbers, as the calls module creates it. */
export interface InboundCall {
  accountId: string;
  mode: Mode;
  /** The caller, E.164. */
  from: string;
  /** The account's number that was called. */
  to: string;
  webhookUrl: string | null;
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

/**
 * Retry-After on `concurrent_call_limit`. When a slot frees is not known ahead (a call ends when
 * a party hangs up), so this is an honest polling interval, not a promise: short enough that a
 * freed slot is used soon, long enough that a waiting client does not spend its request budget
 * on refusals. The call.completed (or call.failed, ...) webhook says exactly when one frees.
 */
export const CONCURRENT_CALL_RETRY_SECONDS = 5;

export class CallService implements CallSignals {
  private readonly listeners: CallListener[] = [];
  private readonly transferListeners: TransferListener[] = [];

  private readonly activeCounts: ActiveCallCounts;

  constructor(
    private readonly platform: Platform,
    private readonly events: EventEmitter,
    private readonly carriers: VoiceCarriers,
    /** Answers carriers' inbound calls with the called number's voice configuration (flows/inbound.ts, built over this service). */
    private readonly inboundAnswerer: () => InboundAnswerer,
  ) {
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
    // The same read as call.queued's fan-out in this transaction: one statement for both.
    const endpoints = await enabledEndpointsIn(db, accountId, mode);
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
        countCallStatus(trx, row);
        for (const listener of this.listeners) await listener(trx, row, from, clock);
      },
    };
  }

  async create(caller: Caller, input: CreateCallInput, beforeCommit?: BeforeCommit<Call>): Promise<Call> {
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
    const [number] = await activeNumber(this.db, account.id, mode, from);
    if (!number || !(JSON.parse(number.capabilities) as string[]).includes('voice')) {
      throw new Problem('from_number_not_owned', `${from} is not an active voice number of this account in ${mode} mode. List yours with GET /v1/numbers.`, {
        errors: [{ field: 'from', message: 'is not an active voice number of this account in this mode', code: 'not_allowed' }],
      });
    }
    // Only now the carrier: a missing live carrier (carrier_not_configured) is a permanent
    // refusal of a request that is otherwise right, so it must not hide a wrong `from`.
    const carrier = this.carriers.forMode(mode);
    const unheard = unheardSpeechErrors(inlineVerbs, carrier.media);
    if (unheard.length > 0) {
      throw new Problem('validation_failed', `The flow cannot run on ${mode} calls here: ${unheard.map((e) => `${e.field} ${e.message}`).join('; ')}.`, { errors: unheard });
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
      await insertCall(trx, row);
      countCallStatus(trx, row);
      const call = presentCall(row, [], this.base);
      await this.emit(trx, row, STATE_EVENTS.queued, call, clock, { createdHere: true });
      await carrier.place(trx, row, number.voice_trunk ?? null);
      await beforeCommit?.(trx, call);
      return call;
    });
  }

  /**
   * An outbound call Switchboard places itself, inside the caller's transaction (routing rings a
   * worker this way): `from` is a number of the account, `verbs` an already valid flow. The same
   * concurrent-call cap and the same call.queued as POST /v1/calls.
   */
  async placeInTransaction(trx: Trx, input: {
    accountId: string; mode: Mode; from: string; to: string; timeout: number; verbs: Verb[];
    /** Record the call (a supervisor's, when asked). */
    record?: boolean;
    /** The call's own webhook_url (default the `from` number's). */
    webhookUrl?: string | undefined;
  }, clock: Clock): Promise<CallRow> {
    const account = await trx.selectFrom('accounts').selectAll().where('id', '=', input.accountId).executeTakeFirstOrThrow();
    await this.enforceConcurrentLimit(trx, account, input.mode);
    const number = await trx.selectFrom('numbers').select(['webhook_url', 'voice_trunk']).where('account_id', '=', input.accountId)
      .where('mode', '=', input.mode).where('phone_number', '=', input.from).executeTakeFirst();
    const carrier = this.carriers.forMode(input.mode);
    const webhookUrl = input.webhookUrl ?? number?.webhook_url ?? null;
    const row = newCallRow(carrier, clock, {
      subscription_webhook_url: webhookUrl === null ? await this.subscriptionUrl(trx, input.accountId, input.mode) : null,
      account_id: input.accountId, mode: input.mode, status: 'queued', direction: 'outbound', from_number: input.from, to_number: input.to,
      record: input.record ? 1 : 0, webhook_url: webhookUrl, timeout: input.timeout, time_limit: DEFAULT_TIME_LIMIT, metadata: '{}',
    });
    row.flow_state = JSON.stringify(newFlowState(input.verbs));
    await trx.insertInto('calls').values(row).execute();
    countCallStatus(trx, row);
    await this.emit(trx, row, STATE_EVENTS.queued, presentCall(row, [], this.base), clock);
    await carrier.place(trx, row, number?.voice_trunk ?? null);
    return row;
  }

  /**
   * An inbound call reaching a number of the account: it starts `ringing` (call.ringing)
   * and is answered by whoever handles the number (an AI agent) through `answered`.
   * Inbound calls count against the concurrent-call cap like outbound ones.
   */
  /** CallSignals: a carrier's caller asks for one of our numbers; the one place that decides. */
  async admit(trx: Trx, offer: InboundOffer, clock: Clock): Promise<InboundDecision> {
    const number = await trx.selectFrom('numbers').selectAll()
      .where('mode', '=', offer.mode).where('phone_number', '=', offer.to).where('status', '=', 'active').executeTakeFirst();
    // A binding delivers only the numbers bound to it (or unbound ones): never another's.
    if (!number || !(JSON.parse(number.capabilities) as string[]).includes('voice') || (number.voice_trunk ?? offer.binding) !== offer.binding) {
      return { admitted: false, reason: 'unknown_number' };
    }
    let row: CallRow;
    try {
      row = await this.inboundAnswerer().arrived(trx, number, {
        accountId: number.account_id, mode: offer.mode, from: offer.from, to: offer.to, webhookUrl: number.webhook_url,
      }, clock);
    } catch (err) {
      // Refused before anything was written (enforceConcurrentLimit runs first).
      if (err instanceof Problem && err.code === 'concurrent_call_limit') return { admitted: false, reason: 'at_capacity' };
      throw err;
    }
    const carrier = { carrier_state: offer.carrierState, node: offer.node };
    await trx.updateTable('calls').set(carrier).where('id', '=', row.id).execute();
    return { admitted: true, call: { ...row, ...carrier } };
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
    await insertCall(trx, row);
    countCallStatus(trx, row);
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
    // The plan as committed now, not as the key cache saw it: a plan change applies at once.
    const [current] = await accountById(trx, account.id);
    if (!current) throw new Error(`account ${account.id} not found`);
    const limit = limitsOf(current).concurrent_calls;
    if (limit === null) return;
    const active = await this.countActive(trx, account.id, mode);
    if (active >= limit) {
      throw new Problem('concurrent_call_limit',
        `The ${current.plan} plan allows ${limit} concurrent calls (queued, ringing or in progress) and ${active} are active in ${mode} mode. `
        + 'Wait for one to end, or ask for a higher cap.', { extensions: { limit, active }, headers: { 'retry-after': String(CONCURRENT_CALL_RETRY_SECONDS) } });
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
    const number = f.number;
    if (number) q = q.where((eb) => eb.or([eb('from_number', '=', number), eb('to_number', '=', number)]));
    // Calls made before migration 0005 have no direction: they were all outbound.
    if (f.direction) q = q.where(sql<string>`coalesce(direction, 'outbound')`, '=', f.direction);
    if (f.createdGte) q = q.where('created_at', '>=', new Date(f.createdGte).toISOString());
    if (f.createdLte) q = q.where('created_at', '<=', new Date(f.createdLte).toISOString());
    const rows = await fetchPage(q, f);
    const ids = await recordingIdsOf(this.db, rows.map((r) => r.id));
    return { rows, present: (row) => presentCall(row, ids.get(row.id) ?? [], this.base) };
  }

  /** Locks the call for the rest of the transaction (PostgreSQL row lock; SQLite is serialised). */
  async lock(trx: Trx, callId: string): Promise<CallRow | undefined> {
    return (await (this.platform.database.engine === 'postgres' ? callByIdForUpdate : callById)(trx, callId))[0];
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
    if (transfers.some((t) => !TRANSFER_MACHINE.isFinal(t.status))) {
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

  /**
   * The call's row as it stands in `trx`, for a signal: a carrier holds only a CallRef (and may
   * hold it from before its own writes), while a transition needs the whole, current row. The
   * carrier locked the call in this transaction (`lock`), so this read is the truth.
   */
  private async current(trx: Trx, ref: CallRef): Promise<CallRow> {
    return trx.selectFrom('calls').selectAll().where('id', '=', ref.id).executeTakeFirstOrThrow();
  }

  async ringing(trx: Trx, ref: CallRef, details: { postDialDelayMs?: number } = {}): Promise<void> {
    const call = await this.current(trx, ref);
    const extra = details.postDialDelayMs === undefined ? {} : { post_dial_delay_ms: details.postDialDelayMs };
    await transition(trx, this.deps(await this.clockOf(trx, call)), call, 'ringing', extra);
  }

  async answered(trx: Trx, ref: CallRef): Promise<void> {
    const call = await this.current(trx, ref);
    await transition(trx, this.deps(await this.clockOf(trx, call)), call, 'in_progress');
  }

  async ended(trx: Trx, ref: CallRef, end: CallEnd): Promise<void> {
    const call = await this.current(trx, ref);
    const clock = await this.clockOf(trx, call);
    await transition(trx, this.deps(clock), call, end.status, this.endExtra(call, clock, {
      hangup_cause: end.hangupCause,
      hangup_source: end.hangupSource,
      carrier_code: end.carrierCode ?? null,
      // Talk time is the answered call's, however it ended (a lost call fails after talking).
      duration_seconds: call.status === 'in_progress' ? wholeSeconds(end.talkSeconds ?? 0) : 0,
    }));
  }

  async transferPending(trx: Trx, ref: CallRef, index: number): Promise<boolean> {
    const call = await this.current(trx, ref);
    return (JSON.parse(call.transfers) as CallTransfer[])[index]?.status === 'pending';
  }

  async transferSettled(trx: Trx, ref: CallRef, index: number, outcome: TransferOutcome): Promise<void> {
    const call = await this.current(trx, ref);
    const clock = await this.clockOf(trx, call);
    const now = clock.now().toISOString();
    const transfers = JSON.parse(call.transfers) as CallTransfer[];
    const transfer = transfers[index];
    if (!transfer || !TRANSFER_MACHINE.can(transfer.status, outcome)) return;
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
    if (!transfers.some((t) => TRANSFER_MACHINE.can(t.status, 'canceled'))) return extra;
    const now = clock.now().toISOString();
    const settled = transfers.map((t) => (TRANSFER_MACHINE.can(t.status, 'canceled') ? { ...t, status: 'canceled' as const, settled_at: now } : t));
    return { ...extra, transfers: JSON.stringify(settled) };
  }

  /** Emits a call event outside a transition (creation, transfers); a creation changes the active count. */
  /** `createdHere`: the call was inserted in this transaction (see EmitInput). */
  private async emit(trx: Trx, row: CallRow, type: EventType, object: Call, clock: Clock, opts: { createdHere?: boolean } = {}): Promise<void> {
    this.activeCounts.changed(trx, row.account_id, row.mode);
    await this.events.emit(trx, {
      accountId: row.account_id, mode: row.mode, type, resourceType: 'call', resourceId: row.id, object, webhookUrl: row.webhook_url, clock,
      ...(opts.createdHere ? { createdHere: true } : {}),
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

/** Every call is one insert, of one of a few shapes (a flow or not, inbound or outbound): compiled once each. */
const insertCall = prepareRowInsert('calls');
const callById = prepareFor((db, id: string) => db.selectFrom('calls').selectAll().where('id', '=', id), 1);
const callByIdForUpdate = prepareFor((db, id: string) => db.selectFrom('calls').selectAll().where('id', '=', id).forUpdate(), 1);

// POST /v1/calls runs these on every call: compiled once (issue 29).
const activeNumber = prepareFor((db, accountId: string, mode: Mode, phoneNumber: string) => db.selectFrom('numbers')
  .select(['capabilities', 'webhook_url', 'voice_trunk'])
  .where('account_id', '=', accountId).where('mode', '=', mode).where('phone_number', '=', phoneNumber).where('status', '=', 'active'), 3);
const accountById = prepareFor((db, id: string) => db.selectFrom('accounts').selectAll().where('id', '=', id), 1);

/** The hot-path copy of activeCallsQuery: GET /v1/account counts on every request its cache misses. */
const activeCallsNow = prepareFor((db, accountId: string, mode: Mode) => activeCallsQuery(db, accountId, mode), 2);

function activeCallsQuery(db: Trx | Platform['database']['db'], accountId: string, mode: Mode) {
  return db.selectFrom('calls').select((eb) => eb.fn.countAll().as('n'))
    .where('account_id', '=', accountId).where('mode', '=', mode).where('status', 'in', [...ACTIVE_STATUSES]);
}

// Monitors through the API: POST /v1/calls/{id}/monitor calls a supervisor and seats it beside
// the call's conversation when it answers (the monitor verb, seating.ts); GET lists and fetches
// a call's monitors; PATCH changes the mode from now; DELETE ends one.
import type { Platform } from '../../platform/context.ts';
import { fetchPage, type PageInput } from '../../platform/pagination.ts';
import { Problem, invalidField, notFound } from '../../platform/problems.ts';
import { inTransaction, type Trx } from '../../store/transaction.ts';
import { assertWebhookUrlAllowed } from '../webhooks/url-policy.ts';
import type { CallService, Caller } from '../calls/service.ts';
import type { CallRow } from '../calls/tables.ts';
import { validateFlow } from '../calls/flows/validate.ts';
import type { MonitorMode } from '../../telephony/conference.ts';
import { conversationOf } from './conversation.ts';
import { presentMonitor, type Monitor } from './presenter.ts';
import type { MonitorSeating } from './seating.ts';
import type { MonitorRow } from './tables.ts';

/** Seconds the supervisor's phone rings before the monitor ends unanswered. */
const SUPERVISOR_RING_SECONDS = 30;

export interface MonitorRequest {
  supervisor: { to: string; from?: string | undefined } | { worker_id: string; from?: string | undefined };
  mode?: MonitorMode | undefined;
  record?: boolean | undefined;
  webhook_url?: string | undefined;
}

export class MonitorService {
  constructor(private readonly platform: Platform, private readonly calls: CallService, readonly seating: MonitorSeating) {}

  private get db() {
    return this.platform.database.db;
  }

  /** POST /v1/calls/{id}/monitor: the monitor, dialing; call.monitor.started follows when the supervisor answers. */
  async create(caller: Caller, callId: string, input: MonitorRequest): Promise<Monitor> {
    if (input.webhook_url) await assertWebhookUrlAllowed(input.webhook_url, caller.mode, this.platform.config, 'webhook_url');
    return inTransaction(this.db, async (trx) => {
      const call = await this.owned(trx, caller, callId);
      if (call.status !== 'in_progress') {
        throw new Problem('call_not_in_progress', `Call ${callId} is ${call.status}: only a call in progress, connected to another, can be monitored.`);
      }
      const conversation = await conversationOf(trx, callId);
      if (!conversation) {
        throw new Problem('call_not_monitorable', `Call ${callId} is not connected to another call: a monitor supervises a queue's caller and the call that took it `
          + '(a dequeue verb, or a routed worker). A conference is supervised through its participants (muted, coach_call_id).');
      }
      await this.seating.lockConversation(trx, conversation);
      const open = await this.seating.openOn(trx, conversation);
      if (open) throw new Problem('call_already_monitored', `The conversation of ${callId} is monitored already by ${open.id} (${open.status}); PATCH it to change its mode, or DELETE it first.`);
      const { to, workerId } = await this.supervisorOf(trx, caller, input.supervisor);
      const callerCall = await trx.selectFrom('calls').selectAll().where('id', '=', conversation.callerCallId).executeTakeFirst() ?? call;
      const from = input.supervisor.from ?? accountNumberOf(callerCall);
      await this.assertOwnedNumber(trx, caller, from);
      const mode = input.mode ?? 'listen';
      const checked = validateFlow([{ monitor: { call_id: callId, mode } }]);
      if (!checked.ok) throw new Error(`the supervisor's flow is invalid: ${JSON.stringify(checked.errors)}`);
      const supervisor = await this.calls.placeInTransaction(trx, {
        accountId: caller.account.id, mode: caller.mode, from, to, timeout: SUPERVISOR_RING_SECONDS, verbs: checked.verbs,
        record: input.record ?? false, webhookUrl: input.webhook_url,
      }, caller.clock);
      const row = this.seating.newRow({ accountId: caller.account.id, mode: caller.mode, callId, conversation, supervisorCallId: supervisor.id, workerId, monitorMode: mode }, caller.clock);
      await trx.insertInto('monitors').values(row).execute();
      return presentMonitor(row);
    });
  }

  /** Whom to call: the number given, or the worker's (a worker reached at a phone number). */
  private async supervisorOf(trx: Trx, caller: Caller, supervisor: MonitorRequest['supervisor']): Promise<{ to: string; workerId: string | null }> {
    if ('to' in supervisor) return { to: supervisor.to, workerId: null };
    const worker = await trx.selectFrom('workers').select(['id', 'reach']).where('id', '=', supervisor.worker_id)
      .where('account_id', '=', caller.account.id).where('mode', '=', caller.mode).executeTakeFirst();
    if (!worker) throw notFound('worker', supervisor.worker_id);
    const reach = JSON.parse(worker.reach) as unknown;
    if (typeof reach !== 'string' || !reach.startsWith('+')) {
      throw invalidField('supervisor.worker_id', `is reached at ${JSON.stringify(reach)}; a supervisor is called at a phone number: give supervisor.to, or a worker whose reach is one.`);
    }
    return { to: reach, workerId: worker.id };
  }

  private async assertOwnedNumber(trx: Trx, caller: Caller, from: string): Promise<void> {
    const number = await trx.selectFrom('numbers').select('capabilities').where('account_id', '=', caller.account.id).where('mode', '=', caller.mode)
      .where('phone_number', '=', from).where('status', '=', 'active').executeTakeFirst();
    if (!number || !(JSON.parse(number.capabilities) as string[]).includes('voice')) {
      throw new Problem('from_number_not_owned', `${from} is not an active voice number of this account in ${caller.mode} mode. List yours with GET /v1/numbers.`, {
        errors: [{ field: 'supervisor.from', message: 'is not an active voice number of this account in this mode', code: 'not_allowed' }],
      });
    }
  }

  /** GET /v1/calls/{id}/monitors: the monitors of the conversations the call was in, newest first. */
  async list(caller: Caller, callId: string, page: PageInput): Promise<MonitorRow[]> {
    await inTransaction(this.db, (trx) => this.owned(trx, caller, callId));
    const q = this.db.selectFrom('monitors').selectAll().where('account_id', '=', caller.account.id).where('mode', '=', caller.mode)
      .where((eb) => eb.or([eb('call_id', '=', callId), eb('caller_call_id', '=', callId), eb('agent_call_id', '=', callId)]));
    return fetchPage(q, page);
  }

  async get(caller: Caller, callId: string, id: string): Promise<Monitor> {
    return inTransaction(this.db, async (trx) => presentMonitor(await this.found(trx, caller, callId, id, false)));
  }

  /** PATCH .../monitors/{monitor_id}: the new mode, from now (a supervisor still ringing takes its seat in it). */
  async update(caller: Caller, callId: string, id: string, change: { mode: MonitorMode }): Promise<Monitor> {
    return inTransaction(this.db, async (trx) => {
      const row = await this.found(trx, caller, callId, id, true);
      if (row.status === 'ended') throw new Problem('monitor_ended', `Monitor ${id} ended at ${row.ended_at} (${row.end_reason}); POST /v1/calls/${callId}/monitor starts a new one.`);
      if (row.monitor_mode === change.mode) return presentMonitor(row);
      const now = caller.clock.now().toISOString();
      await trx.updateTable('monitors').set({ monitor_mode: change.mode, updated_at: now }).where('id', '=', row.id).execute();
      const next: MonitorRow = { ...row, monitor_mode: change.mode, updated_at: now };
      await this.seating.updated(trx, next, caller.clock);
      return presentMonitor(next);
    });
  }

  /** DELETE .../monitors/{monitor_id}: the supervisor leaves (a ringing one is hung up); the conversation goes on. An ended monitor is returned as it is. */
  async end(caller: Caller, callId: string, id: string): Promise<Monitor> {
    const ended = await inTransaction(this.db, async (trx) => {
      const row = await this.found(trx, caller, callId, id, true);
      if (row.status === 'ended') return { row, wasRinging: false };
      return { row: await this.seating.end(trx, row, 'api', caller.clock), wasRinging: row.status === 'dialing' };
    });
    // Its phone still rings: nobody is to be seated any more.
    if (ended.wasRinging) await this.calls.hangup(caller, ended.row.supervisor_call_id);
    return presentMonitor(ended.row);
  }

  private async owned(trx: Trx, caller: Caller, callId: string): Promise<CallRow> {
    const call = await trx.selectFrom('calls').selectAll().where('id', '=', callId).executeTakeFirst();
    if (!call || call.account_id !== caller.account.id || call.mode !== caller.mode) throw notFound('call', callId);
    return call;
  }

  /** The monitor `id` of the call `callId` (any of its conversation's calls), locked when `lock`; 404 otherwise. */
  private async found(trx: Trx, caller: Caller, callId: string, id: string, lock: boolean): Promise<MonitorRow> {
    const row = lock ? await this.seating.lock(trx, id) : await trx.selectFrom('monitors').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row || row.account_id !== caller.account.id || row.mode !== caller.mode || ![row.call_id, row.caller_call_id, row.agent_call_id].includes(callId)) {
      throw notFound('monitor', id);
    }
    return row;
  }
}

/** The account's number on a call: the number called on an inbound call, the caller ID of an outbound one. */
function accountNumberOf(call: CallRow): string {
  return call.direction === 'inbound' ? call.to_number : call.from_number;
}

// Seating supervisors, and everything that ends a monitor. The monitor verb seats the
// supervisor's call when it answers (FlowMonitors); DELETE, the supervisor's hang-up and the
// end of the conversation end it. Every change hands the conversation's ports its mix
// (conversation.ts) in the transaction that made it.
//
// Lock order: the monitor rows, then the media port's rows. A call's own lock is held only
// when the call's transaction is the caller's (the supervisor's flow, or a call's end); no
// transaction here locks a second call: the supervisor's flow is cut in a transaction of its
// own after the one that ended its monitor commits.
import type { Platform } from '../../platform/context.ts';
import type { Clock } from '../../platform/clock.ts';
import type { EventEmitter } from '../../events/emit.ts';
import { newId } from '../../platform/ids.ts';
import { lockUntilCommit } from '../../store/locks.ts';
import { inTransaction, type Trx } from '../../store/transaction.ts';
import type { VoiceCarriers } from '../../carriers/index.ts';
import type { CallService } from '../calls/service.ts';
import type { CallRow } from '../calls/tables.ts';
import { isFinal, type CallStatus } from '../calls/states.ts';
import { flowStateOf } from '../calls/flows/state.ts';
import type { FlowMonitors } from '../calls/flows/verbs/monitor.ts';
import type { MonitorMode } from '../../telephony/conference.ts';
import { connectionMixId } from '../../telephony/conference.ts';
import { conversationMix, conversationOf, stillConnected, type Conversation } from './conversation.ts';
import { emitMonitor, transition } from './states.ts';
import type { MonitorEndReason } from './kinds.ts';
import type { MonitorRow } from './tables.ts';

const OPEN = ['dialing', 'active'] as const;

export class MonitorSeating implements FlowMonitors {
  constructor(
    private readonly platform: Platform,
    private readonly events: EventEmitter,
    private readonly carriers: VoiceCarriers,
    private readonly calls: CallService,
  ) {
    calls.onTransition((trx, call, from, clock) => this.callChanged(trx, call, from, clock));
  }

  private get db() {
    return this.platform.database.db;
  }

  /** The monitor's row, locked for the rest of `trx`. */
  async lock(trx: Trx, id: string): Promise<MonitorRow | undefined> {
    let q = trx.selectFrom('monitors').selectAll().where('id', '=', id);
    if (this.platform.database.engine === 'postgres') q = q.forUpdate();
    return q.executeTakeFirst();
  }

  /** Serialises the monitors of one conversation (PostgreSQL; SQLite's writers take turns anyway). */
  async lockConversation(trx: Trx, conversation: Conversation): Promise<void> {
    await lockUntilCommit(trx, `monitor:${conversation.callerCallId}`);
  }

  /** The conversation's monitor that is not over, if any. */
  openOn(trx: Trx, conversation: Conversation): Promise<MonitorRow | undefined> {
    return trx.selectFrom('monitors').selectAll().where('caller_call_id', '=', conversation.callerCallId)
      .where('agent_call_id', '=', conversation.agentCallId).where('status', 'in', [...OPEN]).executeTakeFirst();
  }

  /** Where the monitored call's events go. */
  async deps(trx: Trx, row: Pick<MonitorRow, 'call_id'>, clock: Clock) {
    const call = await trx.selectFrom('calls').select('webhook_url').where('id', '=', row.call_id).executeTakeFirst();
    return { events: this.events, clock, webhookUrl: call?.webhook_url ?? null };
  }

  /** The mix changed: tell the conversation's port. */
  async mixChanged(trx: Trx, row: MonitorRow, seated: boolean, status: 'in_progress' | 'completed' = 'in_progress'): Promise<void> {
    await this.carriers.forMode(row.mode).media.conferences?.mixChanged(trx, conversationMix(row, seated, status));
  }

  /** A new monitor row, dialing (POST .../monitor before it places the call, or a monitor verb of a flow of its own). */
  newRow(input: { accountId: string; mode: MonitorRow['mode']; callId: string; conversation: Conversation; supervisorCallId: string; workerId: string | null; monitorMode: MonitorMode }, clock: Clock): MonitorRow {
    const now = clock.now().toISOString();
    return {
      id: newId('monitor'), account_id: input.accountId, mode: input.mode, call_id: input.callId,
      caller_call_id: input.conversation.callerCallId, agent_call_id: input.conversation.agentCallId, supervisor_call_id: input.supervisorCallId,
      worker_id: input.workerId, monitor_mode: input.monitorMode, status: 'dialing', end_reason: null,
      created_at: now, started_at: null, ended_at: null, updated_at: now,
    };
  }

  /** FlowMonitors: the supervisor's call (locked by its flow) answered and runs the monitor verb. */
  async join(trx: Trx, call: CallRow, request: { callId: string; mode: MonitorMode }, clock: Clock): Promise<{ monitorId: string } | { refused: string }> {
    if (!this.carriers.named(call.carrier).media.conferences) return { refused: `calls of the ${call.carrier} carrier cannot be mixed yet` };
    let row = await this.supervisedBy(trx, call.id);
    if (!row) {
      // A flow of its own (not POST .../monitor): the call it names, of the same account and mode.
      const target = await trx.selectFrom('calls').select(['id', 'account_id', 'mode']).where('id', '=', request.callId).executeTakeFirst();
      const conversation = target?.account_id === call.account_id && target.mode === call.mode ? await conversationOf(trx, request.callId) : undefined;
      if (!conversation) return { refused: `${request.callId} is not connected to another call now` };
      if (conversation.callerCallId === call.id || conversation.agentCallId === call.id) return { refused: 'a call cannot monitor its own conversation' };
      await this.lockConversation(trx, conversation);
      const open = await this.openOn(trx, conversation);
      if (open) return { refused: `${request.callId}'s conversation is monitored already (${open.id})` };
      row = this.newRow({ accountId: call.account_id, mode: call.mode, callId: request.callId, conversation, supervisorCallId: call.id, workerId: null, monitorMode: request.mode }, clock);
      await trx.insertInto('monitors').values(row).execute();
    }
    if (row.status !== 'dialing') return { refused: `monitor ${row.id} is ${row.status}${row.end_reason ? ` (${row.end_reason})` : ''}` };
    if (!(await stillConnected(trx, row))) {
      await transition(trx, await this.deps(trx, row, clock), row, 'ended', { end_reason: 'call_ended' });
      return { refused: `the conversation of ${row.call_id} ended before the supervisor answered` };
    }
    const active = await transition(trx, await this.deps(trx, row, clock), row, 'active');
    await this.mixChanged(trx, active, true);
    return { monitorId: active.id };
  }

  /** The monitor of a supervisor's call, locked. */
  private async supervisedBy(trx: Trx, callId: string): Promise<MonitorRow | undefined> {
    const found = await trx.selectFrom('monitors').select('id').where('supervisor_call_id', '=', callId).executeTakeFirst();
    return found ? this.lock(trx, found.id) : undefined;
  }

  /** FlowMonitors: the mix the supervisor's call is seated on. */
  async seatedOn(trx: Trx, callId: string): Promise<string | null> {
    const row = await trx.selectFrom('monitors').selectAll().where('supervisor_call_id', '=', callId).where('status', '=', 'active').executeTakeFirst();
    return row ? connectionMixId(row.caller_call_id, row.agent_call_id) : null;
  }

  /** FlowMonitors: the supervisor's operation ended; its monitor ends unless something ended it first. */
  async left(trx: Trx, call: CallRow, reason: 'hangup' | 'flow_updated' | 'interrupted', clock: Clock): Promise<void> {
    const row = await this.supervisedBy(trx, call.id);
    if (!row || row.status === 'ended') return;
    // Its operation is over already: nothing of its flow to cut.
    await this.end(trx, row, reason === 'hangup' ? 'supervisor_hangup' : reason === 'flow_updated' ? 'flow_updated' : 'api', clock, false);
  }

  /**
   * Ends the monitor (locked, open): call.monitor.ended; a seated supervisor leaves the mix
   * (the conversation goes on as it was) and, when `cut`, its monitor verb is cut once this
   * commits, so its flow goes on with its next verb (a supervisor placed by POST .../monitor has
   * none: it hangs up).
   */
  async end(trx: Trx, row: MonitorRow, reason: MonitorEndReason, clock: Clock, cut = true): Promise<MonitorRow> {
    const ended = await transition(trx, await this.deps(trx, row, clock), row, 'ended', { end_reason: reason });
    if (row.status === 'active') {
      if (reason !== 'call_ended') await this.mixChanged(trx, ended, false);
      if (cut && reason !== 'supervisor_hangup') this.cutSupervisorAfterCommit(trx, row.supervisor_call_id);
    }
    return ended;
  }

  private cutSupervisorAfterCommit(trx: Trx, callId: string): void {
    trx.afterCommit(() => {
      void inTransaction(this.db, async (next) => {
        const call = await this.calls.lock(next, callId);
        const state = call ? flowStateOf(call) : null;
        // Only its monitor verb: a flow that moved on meanwhile (a new flow) is not cut.
        const monitoring = state?.op && state.verbs[state.pc] !== undefined && 'monitor' in state.verbs[state.pc]!;
        if (call?.status === 'in_progress' && monitoring) await this.carriers.named(call.carrier).media.interrupt(next, call, state.op!);
      }).catch((err) => this.platform.log.error({ err, call: callId }, 'monitors: cutting the supervisor\'s flow failed'));
    });
  }

  /**
   * A call moved (in its transition's transaction): a supervisor that never answered ends its
   * monitor (unanswered), one that hangs up ends it (supervisor_hangup), and the end of either
   * call of a conversation ends its monitor (call_ended) and closes the conversation's mix.
   */
  private async callChanged(trx: Trx, call: CallRow, from: CallStatus, clock: Clock): Promise<void> {
    if (!isFinal(call.status)) return;
    const supervised = await this.supervisedBy(trx, call.id);
    if (supervised && supervised.status !== 'ended') await this.end(trx, supervised, from === 'in_progress' ? 'supervisor_hangup' : 'unanswered', clock);
    if (from !== 'in_progress') return;
    const monitored = await trx.selectFrom('monitors').selectAll()
      .where((eb) => eb.or([eb('caller_call_id', '=', call.id), eb('agent_call_id', '=', call.id)])).orderBy('id').execute();
    await this.closeConversation(trx, monitored, clock);
  }

  /**
   * The queue's bridge of the two calls ended while both may still be up (the dequeue's
   * time_limit): their conversation is over, and so are its monitors.
   */
  async bridgeEnded(trx: Trx, callerCallId: string, agentCallId: string, clock: Clock): Promise<void> {
    const monitored = await trx.selectFrom('monitors').selectAll().where('caller_call_id', '=', callerCallId).where('agent_call_id', '=', agentCallId)
      .orderBy('id').execute();
    await this.closeConversation(trx, monitored, clock);
  }

  /** Ends the open monitors of a conversation that is over, and closes its mix (the port forgets it). */
  private async closeConversation(trx: Trx, monitored: MonitorRow[], clock: Clock): Promise<void> {
    for (const found of monitored) {
      const row = found.status === 'ended' ? found : await this.lock(trx, found.id);
      if (row && row.status !== 'ended') await this.end(trx, row, 'call_ended', clock);
    }
    const last = monitored.at(-1);
    if (last) await this.mixChanged(trx, last, false, 'completed');
  }

  /** call.monitor.updated, from a PATCH (the row as it now is). */
  async updated(trx: Trx, row: MonitorRow, clock: Clock): Promise<void> {
    await emitMonitor(trx, await this.deps(trx, row, clock), row, 'call.monitor.updated');
    if (row.status === 'active') await this.mixChanged(trx, row, true);
  }
}

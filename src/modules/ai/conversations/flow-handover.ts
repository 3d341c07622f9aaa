// A flow's `agent` verb hands its call to an AI agent: a conversation starts on the call in
// progress, exactly as on an inbound call to the agent's number but without the answer (the
// call is already up). In the sandbox the runner takes it from the greeting and the caller's
// lines are the `say` steps left in its caller script (the simulator gives them up, so the
// script stops acting). On a live call the agent talks over the call's media
// (live-runner.ts); that needs a speech-to-text endpoint, so without one the flow fails with
// call.flow.failed and the caller hears that the receptionist cannot take calls. Inbound live
// calls to an agent's number reach here too: the SIP carrier answers them with an agent flow.
import type { Platform } from '../../../platform/context.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { Trx } from '../../../store/transaction.ts';
import { newId } from '../../../platform/ids.ts';
import type { CallRow } from '../../calls/tables.ts';
import type { FlowAgentHandover, FlowAgents } from '../../calls/flows/verbs/agent.ts';
import type { AgentRow, ConversationRow } from '../tables.ts';
import { JOB_ANSWER, type ConversationService } from './service.ts';
import { LIVE_AGENT_UNAVAILABLE_TEXT, type LiveConversations } from './live-runner.ts';

export class FlowHandover implements FlowAgents {
  constructor(
    private readonly platform: Platform,
    private readonly conversations: ConversationService,
    /** The sandbox caller's remaining lines (and the script stops). */
    private readonly callerLines: (trx: Trx, call: CallRow) => Promise<string[]>,
    private readonly live: LiveConversations,
  ) {}

  async start(trx: Trx, call: CallRow, agentId: string, clock: Clock): Promise<FlowAgentHandover> {
    const live = call.mode !== 'sandbox';
    if (live && !this.live.hearsSpeech(call)) {
      return {
        ok: false, unsupported: true, apology: LIVE_AGENT_UNAVAILABLE_TEXT,
        detail: 'this server has no speech-to-text endpoint for live calls (speech.stt in the carriers file), so an AI agent cannot hear the caller',
      };
    }
    const agent = await trx.selectFrom('ai_agents').selectAll()
      .where('id', '=', agentId).where('account_id', '=', call.account_id).where('mode', '=', call.mode).executeTakeFirst();
    if (!agent) return { ok: false, unsupported: false, detail: `there is no agent ${agentId} in this account's ${call.mode} mode` };
    if (agent.status !== 'active') return { ok: false, unsupported: false, detail: `agent ${agentId} is ${agent.status}` };
    // The account's number on the call: the one called (inbound) or calling (outbound).
    const own = call.direction === 'inbound' ? call.to_number : call.from_number;
    const number = await trx.selectFrom('numbers').select('id')
      .where('account_id', '=', call.account_id).where('mode', '=', call.mode).where('phone_number', '=', own).executeTakeFirst();
    const row = newConversation(call, agent, number?.id ?? '', live ? [] : await this.callerLines(trx, call), this.conversations.engineName, clock);
    await trx.insertInto('ai_conversations').values(row).execute();
    await this.conversations.emit(trx, row, 'ai.conversation.started', clock, agent);
    if (live) await this.live.start(trx, call, agent, row, clock);
    else await this.conversations.schedule(trx, row, JOB_ANSWER, { conversationId: row.id }, 0);
    return { ok: true, conversationId: row.id };
  }
}

function newConversation(call: CallRow, agent: AgentRow, numberId: string, lines: string[], engine: ConversationRow['engine'], clock: Clock): ConversationRow {
  const now = clock.now().toISOString();
  const caller = call.direction === 'inbound' ? call.from_number : call.to_number;
  const own = call.direction === 'inbound' ? call.to_number : call.from_number;
  return {
    id: newId('conversation'), account_id: call.account_id, mode: call.mode, agent_id: agent.id, call_id: call.id, number_id: numberId,
    from_number: caller, to_number: own, status: 'in_progress', outcome: null, transcript: '[]', message: null, engine, fallbacks: '[]',
    caller_script: JSON.stringify(lines), script_position: 0, pending_transfer: null, duration_seconds: null, score: null, score_overall: null,
    started_at: now, ended_at: null, scored_at: null, created_at: now, updated_at: now,
  };
}

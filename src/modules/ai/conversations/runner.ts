// Runs conversations on their calls, one durable job per step: the agent answers and
// greets, then each caller line gets the engine's reply (answer with citations, a question,
// a message taken, a transfer through the voice layer, or goodbye). Each job reads what it
// needs, asks the engine OUTSIDE any transaction (the generative engine calls a model over
// the network), then re-checks in a transaction that nobody moved the conversation
// meanwhile and writes the turn: a job that runs twice writes once. Lock order is always
// the call, then its conversation, as in the call signals that reach us as listeners.
import type { Platform } from '../../../platform/context.ts';
import type { Clock } from '../../../platform/clock.ts';
import { Problem } from '../../../platform/problems.ts';
import { inTransaction, type Trx } from '../../../store/transaction.ts';
import type { TransferOutcome } from '../../../telephony/call-end.ts';
import type { CallRow } from '../../calls/tables.ts';
import type { CallService } from '../../calls/service.ts';
import { isFinal } from '../../calls/states.ts';
import { type AgentReply, type ReceptionistEngine, type TranscriptTurn } from '../engine/index.ts';
import { agentProfile } from '../agents/service.ts';
import type { KnowledgeIndexCache } from '../knowledge/index-cache.ts';
import type { ConversationRow } from '../tables.ts';
import { JOB_ANSWER, JOB_SCORE, JOB_TURN, outcomeOf, replyRecord, type ConversationService } from './service.ts';
import { nextTurnAt, spokenUntil } from './timing.ts';
import type { LiveConversations } from './live-runner.ts';
import { TRANSFER_FAILED_TEXT, TRANSFER_RING_TIMEOUT } from './transfer-words.ts';


interface Ids { conversationId: string }

export class ConversationRunner {
  constructor(
    private readonly platform: Platform,
    private readonly conversations: ConversationService,
    private readonly calls: CallService,
    private readonly indexes: KnowledgeIndexCache,
    private readonly engine: ReceptionistEngine,
    private readonly live: LiveConversations,
  ) {
    platform.jobs.register<Ids>(JOB_ANSWER, (p) => this.answer(p.conversationId));
    platform.jobs.register<Ids & { position: number }>(JOB_TURN, (p) => this.turn(p.conversationId, p.position));
    platform.jobs.register<Ids>(JOB_SCORE, (p) => this.score(p.conversationId));
    calls.onTransferSettled((trx, call, index, outcome) => this.transferSettled(trx, call, index, outcome));
    calls.onTransition((trx, call, _from, clock) => this.callMoved(trx, call, clock));
  }

  private get db() {
    return this.platform.database.db;
  }

  /** The agent picks up the ringing call and greets (or plays the after-hours message). */
  private async answer(conversationId: string): Promise<void> {
    const conv = await this.conversations.readAll(this.db, conversationId);
    if (!conv || conv.status !== 'in_progress' || conv.transcript !== '[]') return;
    const agent = await this.conversations.agentOf(this.db, conv);
    await inTransaction(this.db, async (trx) => {
      const call = await this.calls.lock(trx, conv.call_id);
      const current = await this.conversations.lock(trx, { id: conversationId });
      // A ringing call is answered by the agent; one a flow handed over (agent verb) is already up.
      const handedOver = call?.status === 'in_progress' && call.flow_state !== null;
      if (!call || !current || current.status !== 'in_progress' || current.transcript !== '[]' || (call.status !== 'ringing' && !handedOver)) return;
      const clock = await this.clock(trx, call);
      if (!handedOver) await this.calls.answered(trx, call);
      const greeting = this.engine.greet(agentProfile(agent), clock.now());
      const turn: TranscriptTurn = { speaker: 'agent', text: greeting.text, at: 0, citations: [], action: greeting.action };
      await this.conversations.save(trx, current, { transcript: JSON.stringify([turn]) }, clock);
      await this.conversations.schedule(trx, current, JOB_TURN, { conversationId, position: 0 }, nextTurnAt(turn));
    });
  }

  /** The caller says script line `position` and the agent replies; past the last line the caller hangs up. */
  private async turn(conversationId: string, position: number): Promise<void> {
    const conv = await this.conversations.readAll(this.db, conversationId);
    if (!conv || !this.awaitsTurn(conv, position)) return;
    const transcript = JSON.parse(conv.transcript) as TranscriptTurn[];
    const utterance = (JSON.parse(conv.caller_script) as string[])[position];
    const agent = await this.conversations.agentOf(this.db, conv);
    let reply: AgentReply | null = null;
    if (utterance !== undefined) {
      const index = await this.indexes.get(agent.id, agent.knowledge_version);
      const now = (await this.platform.sandboxClocks.clockFor(conv.account_id, conv.mode)).now();
      reply = await this.engine.reply({ agent: agentProfile(agent), index, history: transcript, utterance, at: now });
    }
    await inTransaction(this.db, async (trx) => {
      const call = await this.calls.lock(trx, conv.call_id);
      const current = await this.conversations.lock(trx, { id: conversationId });
      // Moved on meanwhile (a second run of this job, or the call ended): nothing to do.
      if (!call || !current || !this.awaitsTurn(current, position) || current.transcript !== conv.transcript) return;
      if (call.status !== 'in_progress') return;
      const clock = await this.clock(trx, call);
      if (utterance === undefined || reply === null) {
        await this.calls.ended(trx, call, { status: 'completed', hangupCause: 'normal_clearing', hangupSource: 'caller', talkSeconds: spokenUntil(transcript.at(-1)) });
        return;
      }
      const callerTurn: TranscriptTurn = { speaker: 'caller', text: utterance, at: nextTurnAt(transcript.at(-1)), citations: [], action: null };
      const agentTurn: TranscriptTurn = { speaker: 'agent', text: reply.text, at: nextTurnAt(callerTurn), citations: reply.citations, action: reply.action };
      const turns = [...transcript, callerTurn, agentTurn];
      const set: Partial<ConversationRow> = { script_position: position + 1, ...replyRecord(current, turns.length - 1, reply) };

      if (reply.action === 'transfer' && agent.transfer_number) {
        try {
          const { index } = await this.calls.startTransfer(trx, call, agent.transfer_number, TRANSFER_RING_TIMEOUT, clock);
          await this.conversations.save(trx, current, { ...set, transcript: JSON.stringify(turns), pending_transfer: index }, clock);
          return; // transferSettled takes it from here
        } catch (error) {
          if (!(error instanceof Problem)) throw error;
          turns.push({ speaker: 'agent', text: TRANSFER_FAILED_TEXT, at: nextTurnAt(agentTurn), citations: [], action: 'clarify' });
        }
      }
      const saved = await this.conversations.save(trx, current, { ...set, transcript: JSON.stringify(turns) }, clock);
      const last = turns.at(-1)!;
      if (reply.action === 'end') {
        await this.calls.ended(trx, call, { status: 'completed', hangupCause: 'normal_clearing', hangupSource: 'callee', talkSeconds: spokenUntil(last) });
        return;
      }
      await this.conversations.schedule(trx, saved, JOB_TURN, { conversationId, position: position + 1 }, nextTurnAt(last) - callerTurn.at);
    });
  }

  /** A transfer the agent asked for settled: connected ends the agent's part; refused offers a message. */
  private async transferSettled(trx: Trx, call: CallRow, index: number, outcome: TransferOutcome): Promise<void> {
    const conv = await this.conversations.lock(trx, { callId: call.id });
    if (!conv || conv.status !== 'in_progress' || conv.pending_transfer !== index) return;
    const clock = await this.clock(trx, call);
    if (outcome === 'completed') {
      await this.conversations.complete(trx, conv, 'transferred', clock);
      return;
    }
    // On a live call the agent says so over the call's media and listens again.
    if (call.mode !== 'sandbox') return this.live.transferFailed(trx, call, conv, clock);
    const transcript = JSON.parse(conv.transcript) as TranscriptTurn[];
    const turn: TranscriptTurn = { speaker: 'agent', text: TRANSFER_FAILED_TEXT, at: nextTurnAt(transcript.at(-1)), citations: [], action: 'clarify' };
    const saved = await this.conversations.save(trx, conv, { transcript: JSON.stringify([...transcript, turn]), pending_transfer: null }, clock);
    await this.conversations.schedule(trx, saved, JOB_TURN, { conversationId: conv.id, position: conv.script_position }, nextTurnAt(turn) - turn.at);
  }

  /** However the call ended (caller, agent, API hang-up, time limit), an open conversation completes with it. */
  private async callMoved(trx: Trx, call: CallRow, clock: Clock): Promise<void> {
    // Outbound calls have a conversation only when a flow handed them to an agent.
    if (!isFinal(call.status) || (call.direction !== 'inbound' && call.flow_state === null)) return;
    const conv = await this.conversations.lock(trx, { callId: call.id });
    if (!conv || conv.status !== 'in_progress') return;
    await this.conversations.complete(trx, conv, outcomeOf(conv), clock);
  }

  /** Scores a completed conversation once; a model call happens outside the transaction. */
  private async score(conversationId: string): Promise<void> {
    const conv = await this.conversations.readAll(this.db, conversationId);
    if (!conv || conv.status !== 'completed' || conv.score !== null || conv.outcome === null) return;
    const score = await this.engine.score({ transcript: JSON.parse(conv.transcript), outcome: conv.outcome });
    await inTransaction(this.db, async (trx) => {
      const current = await this.conversations.lock(trx, { id: conversationId });
      if (!current || current.score !== null) return;
      const clock = await this.platform.sandboxClocks.clockFor(current.account_id, current.mode, trx);
      await this.conversations.saveScore(trx, current, score, clock);
    });
  }

  private awaitsTurn(conv: ConversationRow, position: number): boolean {
    return conv.status === 'in_progress' && conv.script_position === position && conv.pending_transfer === null;
  }

  private clock(trx: Trx, call: CallRow): Promise<Clock> {
    return this.platform.sandboxClocks.clockFor(call.account_id, call.mode, trx);
  }
}

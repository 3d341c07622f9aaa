// Conversations: reading them (GET, lists with filters), starting one when an inbound call
// reaches a number with an agent, and completing one (ai.conversation.completed, then a
// durable scoring job). The turn-by-turn running lives in runner.ts.
import type { InboundFlowCalls } from '../../calls/flows/inbound.ts';
import type { CallerStep, SandboxNetwork } from '../../../carriers/index.ts';
import type { Call } from '../../calls/presenter.ts';
import { voiceHandlerOf } from '../../numbers/voice-config.ts';
import { fetchPage } from '../../../platform/pagination.ts';
import type { Kysely } from 'kysely';
import type { Tables } from '../../../store/tables.ts';
import type { Mode } from '../../../store/platform-tables.ts';
import type { Platform } from '../../../platform/context.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { EventEmitter } from '../../../events/emit.ts';
import type { EventType } from '../../../events/catalogue.ts';
import { inTransaction, type Trx } from '../../../store/transaction.ts';
import { newId } from '../../../platform/ids.ts';
import { Problem, invalidField, notFound } from '../../../platform/problems.ts';
import { e164, type CallService } from '../../calls/service.ts';
import type { NumberService } from '../../numbers/service.ts';
import { assertSandbox } from '../../sandbox/service.ts';
import type { AgentReply, ConversationScore, TranscriptTurn } from '../engine/index.ts';
import type { AgentRow, ConversationOutcome, ConversationRow } from '../tables.ts';
import { transition } from './states.ts';
import { spokenUntil } from './timing.ts';

export const JOB_ANSWER = 'ai.conversation.answer';
export const JOB_TURN = 'ai.conversation.turn';
export const JOB_SCORE = 'ai.conversation.score';

export interface Conversation {
  id: string;
  object: 'ai_conversation';
  mode: Mode;
  agent_id: string;
  call_id: string;
  number_id: string;
  from: string;
  to: string;
  status: ConversationRow['status'];
  outcome: ConversationOutcome | null;
  transcript: TranscriptTurn[];
  message: string | null;
  duration_seconds: number | null;
  engine: ConversationRow['engine'];
  fallbacks: Array<{ turn: number; reason: string }>;
  score: ConversationScore | null;
  started_at: string;
  ended_at: string | null;
  scored_at: string | null;
  created_at: string;
  updated_at: string;
}

export function presentConversation(row: ConversationRow): Conversation {
  return {
    id: row.id,
    object: 'ai_conversation',
    mode: row.mode,
    agent_id: row.agent_id,
    call_id: row.call_id,
    number_id: row.number_id,
    from: row.from_number,
    to: row.to_number,
    status: row.status,
    outcome: row.outcome,
    transcript: JSON.parse(row.transcript),
    message: row.message,
    duration_seconds: row.duration_seconds === null ? null : Number(row.duration_seconds),
    engine: row.engine,
    fallbacks: JSON.parse(row.fallbacks),
    score: row.score ? JSON.parse(row.score) : null,
    started_at: row.started_at,
    ended_at: row.ended_at,
    scored_at: row.scored_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export interface ConversationFilter {
  limit: number;
  startingAfter?: string | undefined;
  agentId?: string | undefined;
  status?: ConversationRow['status'] | undefined;
  outcome?: ConversationOutcome | undefined;
  from?: string | undefined;
  scoreGte?: number | undefined;
  scoreLte?: number | undefined;
  createdGte?: string | undefined;
  createdLte?: string | undefined;
}

/**
 * What one reply of the agent records on its conversation besides the turns (both runners,
 * sandbox and live): why the engine fell back, at the agent turn `turnIndex`, and the message
 * it took, added to any taken before.
 */
export function replyRecord(conv: Pick<ConversationRow, 'fallbacks' | 'message'>, turnIndex: number, reply: AgentReply): Pick<ConversationRow, 'fallbacks' | 'message'> {
  const fallbacks = JSON.parse(conv.fallbacks) as Array<{ turn: number; reason: string }>;
  if (reply.fallback_reason) fallbacks.push({ turn: turnIndex, reason: reply.fallback_reason });
  const taken = reply.action === 'message' && reply.message ? reply.message : null;
  return { fallbacks: JSON.stringify(fallbacks), message: taken ? (conv.message ? `${conv.message}\n${taken}` : taken) : conv.message };
}

/** What decides the outcome when a conversation ends other than by a completed transfer. */
export function outcomeOf(row: Pick<ConversationRow, 'message' | 'transcript'>): ConversationOutcome {
  if (row.message !== null) return 'message_taken';
  const turns = JSON.parse(row.transcript) as TranscriptTurn[];
  return turns.some((t) => t.speaker === 'agent' && t.action === 'answer') ? 'resolved' : 'abandoned';
}

export class ConversationService {
  constructor(
    private readonly platform: Platform,
    private readonly events: EventEmitter,
    private readonly calls: CallService,
    private readonly numbers: NumberService,
    readonly engineName: ConversationRow['engine'],
    private readonly inboundFlows: InboundFlowCalls,
    /** The sandbox network: an agent's sandbox call rings as long as any sandbox call. */
    private readonly sandbox: SandboxNetwork,
  ) {}

  private get db() {
    return this.platform.database.db;
  }

  async get(accountId: string, mode: Mode, id: string): Promise<Conversation> {
    const row = await this.db.selectFrom('ai_conversations').selectAll()
      .where('id', '=', id).where('account_id', '=', accountId).where('mode', '=', mode).executeTakeFirst();
    if (!row) throw notFound('conversation', id);
    return presentConversation(row);
  }

  async list(accountId: string, mode: Mode, f: ConversationFilter): Promise<ConversationRow[]> {
    let q = this.db.selectFrom('ai_conversations').selectAll().where('account_id', '=', accountId).where('mode', '=', mode);
    if (f.agentId) q = q.where('agent_id', '=', f.agentId);
    if (f.status) q = q.where('status', '=', f.status);
    if (f.outcome) q = q.where('outcome', '=', f.outcome);
    if (f.from) q = q.where('from_number', '=', f.from);
    if (f.scoreGte !== undefined) q = q.where('score_overall', '>=', f.scoreGte);
    if (f.scoreLte !== undefined) q = q.where('score_overall', '<=', f.scoreLte);
    if (f.createdGte) q = q.where('created_at', '>=', new Date(f.createdGte).toISOString());
    if (f.createdLte) q = q.where('created_at', '<=', new Date(f.createdLte).toISOString());
    return fetchPage(q, f);
  }

  /**
   * POST /v1/sandbox/inbound_calls: a caller dials a number with an agent. The call rings
   * (call.ringing), the conversation starts (ai.conversation.started) and the agent answers
   * after the simulator's ring time; every later step is a durable job on the test clock.
   */
  async startInbound(owner: { accountId: string; mode: Mode; clock: Clock }, input: { from: string; to: string; caller_script: Array<string | CallerStep> }): Promise<Conversation | Call> {
    assertSandbox(owner.mode, 'Simulated inbound calls');
    const from = e164('from', input.from);
    const to = e164('to', input.to);
    const number = await this.numbers.findByPhone(owner.accountId, owner.mode, to);
    if (!number || number.status !== 'active' || !(JSON.parse(number.capabilities) as string[]).includes('voice')) {
      throw new Problem('to_number_not_owned', `${to} is not an active voice number of this account in ${owner.mode} mode.`, {
        errors: [{ field: 'to', message: 'is not an active voice number of this account in this mode', code: 'not_allowed' }],
      });
    }
    // A number whose calls a flow answers (voice_url, voice_flow, or nothing configured) gets a flow call.
    if (voiceHandlerOf(number).kind !== 'agent') return this.inboundFlows.start(owner, number, from, callerSteps(input.caller_script));
    const lines = input.caller_script.map((line, i) => {
      if (typeof line === 'string') return line;
      throw invalidField(`caller_script[${i}]`, 'must be a line of text: an AI agent answers this number and hears what the caller says; steps (press, say, wait, hangup) are for numbers answered by a flow.', 'invalid_type');
    });
    return inTransaction(this.db, async (trx) => {
      const agent = await trx.selectFrom('ai_agents').selectAll().where('id', '=', number.agent_id!).executeTakeFirstOrThrow();
      if (agent.status !== 'active') throw new Problem('agent_paused', `Agent ${agent.id}, which answers ${to}, is ${agent.status}; resume it with PATCH /v1/ai/agents/${agent.id} {"status": "active"}.`);
      const call = await this.calls.createInbound(trx, { accountId: owner.accountId, mode: owner.mode, from, to, webhookUrl: number.webhook_url }, owner.clock);
      const now = owner.clock.now().toISOString();
      const row: ConversationRow = {
        id: newId('conversation'),
        account_id: owner.accountId,
        mode: owner.mode,
        agent_id: agent.id,
        call_id: call.id,
        number_id: number.id,
        from_number: from,
        to_number: to,
        status: 'in_progress',
        outcome: null,
        transcript: '[]',
        message: null,
        engine: this.engineName,
        fallbacks: '[]',
        caller_script: JSON.stringify(lines),
        script_position: 0,
        pending_transfer: null,
        duration_seconds: null,
        score: null,
        score_overall: null,
        started_at: now,
        ended_at: null,
        scored_at: null,
        created_at: now,
        updated_at: now,
      };
      await trx.insertInto('ai_conversations').values(row).execute();
      await this.emit(trx, row, 'ai.conversation.started', owner.clock, agent);
      await this.schedule(trx, row, JOB_ANSWER, { conversationId: row.id }, this.sandbox.ringSeconds);
      return presentConversation(row);
    });
  }

  /** Locks a conversation for the rest of `trx` (lock its call first: calls, then conversations). */
  async lock(trx: Trx, where: { id: string } | { callId: string }): Promise<ConversationRow | undefined> {
    let q = trx.selectFrom('ai_conversations').selectAll();
    q = 'id' in where ? q.where('id', '=', where.id) : q.where('call_id', '=', where.callId);
    if (this.platform.database.engine === 'postgres') q = q.forUpdate();
    return q.executeTakeFirst();
  }

  /** Ends a conversation with its outcome and schedules its scoring. */
  async complete(trx: Trx, row: ConversationRow, outcome: ConversationOutcome, clock: Clock, extra: Partial<ConversationRow> = {}): Promise<ConversationRow> {
    const merged = { ...row, ...extra };
    const last = (JSON.parse(merged.transcript) as TranscriptTurn[]).at(-1);
    const next = await transition(trx, this.transitionDeps(clock), row, 'completed', {
      ...extra, outcome, pending_transfer: null, duration_seconds: Math.ceil(spokenUntil(last)),
    });
    await this.schedule(trx, next, JOB_SCORE, { conversationId: next.id }, 0);
    return next;
  }

  /** Stores the score and fires ai.conversation.scored with the scored conversation. */
  async saveScore(trx: Trx, row: ConversationRow, score: ConversationScore, clock: Clock): Promise<ConversationRow> {
    const now = clock.now().toISOString();
    const set = { score: JSON.stringify(score), score_overall: score.overall, scored_at: now, updated_at: now };
    await trx.updateTable('ai_conversations').set(set).where('id', '=', row.id).execute();
    const next = { ...row, ...set };
    await this.emit(trx, next, 'ai.conversation.scored', clock);
    return next;
  }

  async emit(trx: Trx, row: ConversationRow, type: EventType, clock: Clock, agent?: Pick<AgentRow, 'webhook_url'>): Promise<void> {
    const webhookUrl = (agent ?? await trx.selectFrom('ai_agents').select('webhook_url').where('id', '=', row.agent_id).executeTakeFirst())?.webhook_url ?? null;
    await this.events.emit(trx, {
      accountId: row.account_id, mode: row.mode, type, resourceType: 'ai_conversation', resourceId: row.id,
      object: presentConversation(row), webhookUrl, clock,
    });
  }

  /** A conversation step as a durable job; sandbox steps ride the account's test clock. */
  async schedule(trx: Trx, row: ConversationRow, kind: string, payload: object, simulatedSeconds: number): Promise<void> {
    await this.platform.jobs.enqueue(trx, kind, payload, {
      delaySeconds: simulatedSeconds * this.platform.config.simTimeScale,
      clockId: row.mode === 'sandbox' ? row.account_id : null,
    });
  }

  private transitionDeps(clock: Clock) {
    return { clock, emit: (trx: Trx, row: ConversationRow, type: EventType) => this.emit(trx, row, type, clock) };
  }

  readAll(db: Kysely<Tables>, id: string): Promise<ConversationRow | undefined> {
    return db.selectFrom('ai_conversations').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Writes a turn's changes and returns the row as it now is (both runners, sandbox and live). */
  async save(trx: Trx, row: ConversationRow, set: Partial<ConversationRow>, clock: Clock): Promise<ConversationRow> {
    const changes = { ...set, updated_at: clock.now().toISOString() };
    await trx.updateTable('ai_conversations').set(changes).where('id', '=', row.id).execute();
    return { ...row, ...changes };
  }

  agentOf(db: Kysely<Tables>, conv: ConversationRow): Promise<AgentRow> {
    return db.selectFrom('ai_agents').selectAll().where('id', '=', conv.agent_id).executeTakeFirstOrThrow();
  }
}

/** A flow call's caller script: a plain line of text is a `say` step. */
function callerSteps(script: Array<string | CallerStep>): CallerStep[] {
  return script.map((step) => (typeof step === 'string' ? { say: step } : step));
}

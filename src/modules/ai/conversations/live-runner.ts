// Conversations on live calls: the agent speaks over the call's media port and hears the
// caller through it. Each agent turn is one media operation: a reply the caller may answer is
// a `collect` that speaks it and then listens for an utterance (voice activity, then speech
// to text, in the carrier's media worker and speech endpoint); a goodbye or a "let me transfer
// you" is a `speak`, after which the call is hung up or transferred over SIP. The port reports
// the operation's end outside any transaction (MediaEvents.finished): the engine is asked
// OUTSIDE any transaction, then the turn is written and the next operation ordered in one
// transaction on the locked call and conversation, so a report that comes twice writes once.
//
// The operation a conversation awaits is `<conversation id>:<script_position>`; what it was
// (listen, goodbye, transfer) follows from the last turn of the transcript, so no other state
// is kept. Transcript `at` values are real talk seconds on the call (the media port's clock).
import type { Platform } from '../../../platform/context.ts';
import type { Clock } from '../../../platform/clock.ts';
import { Problem } from '../../../platform/problems.ts';
import { inTransaction, type Trx } from '../../../store/transaction.ts';
import type { MediaEvents } from '../../../carriers/index.ts';
import type { MediaOp, MediaResult, PromptOp } from '../../../telephony/media-ops.ts';
import type { VoiceCarriers } from '../../../carriers/index.ts';
import type { CallRow } from '../../calls/tables.ts';
import type { CallService } from '../../calls/service.ts';
import type { AgentReply, ReceptionistEngine, TranscriptTurn } from '../engine/index.ts';
import { agentProfile } from '../agents/service.ts';
import type { KnowledgeIndexCache } from '../knowledge/index-cache.ts';
import type { AgentRow, ConversationRow } from '../tables.ts';
import { replyRecord, type ConversationService } from './service.ts';
import { TRANSFER_FAILED_TEXT, TRANSFER_RING_TIMEOUT } from './transfer-words.ts';
import { round } from './timing.ts';

/**
 * Seconds of quiet that end a caller's utterance when its words do not say whether it is
 * finished; a complete line ends sooner and one that trails off ("and...", "um") waits longer
 * (telephony/end-of-utterance.ts, the collect's `endOfUtterance: 'words'`).
 */
export const LIVE_SPEECH_TIMEOUT_SECONDS = 0.8;
/**
 * Quiet before the greeting: the caller's phone may not play audio until a moment after our
 * 200 OK reaches it (its media path is still being set up), and the greeting's first words
 * would be clipped.
 */
export const GREETING_LEAD_SECONDS = 0.5;
/** Seconds the agent waits for the caller to start talking after it finished speaking. */
export const LIVE_LISTEN_TIMEOUT_SECONDS = 8;
export const STILL_THERE_TEXT = 'Are you still there? How can I help you?';
export const SILENT_GOODBYE_TEXT = "I can't hear anything, so I'll end the call now. Please call back any time. Goodbye.";
/** What a live caller hears when the agent cannot hear them (no speech-to-text endpoint) or is not taking calls. */
export const LIVE_AGENT_UNAVAILABLE_TEXT = "We're sorry, our virtual receptionist can't take calls right now. Please try again later. Goodbye.";

type Awaited = 'listen' | 'goodbye' | 'transfer';

/** Op ids of conversations start with the conversation's id prefix. */
export const LIVE_OP_PREFIX = 'conv_';

export class LiveConversations implements MediaEvents {
  constructor(
    private readonly platform: Platform,
    private readonly conversations: ConversationService,
    private readonly calls: CallService,
    private readonly carriers: VoiceCarriers,
    private readonly indexes: KnowledgeIndexCache,
    private readonly engine: ReceptionistEngine,
  ) {}

  private get db() {
    return this.platform.database.db;
  }

  /** Whether live calls on this server can hear callers' words (a speech-to-text endpoint). */
  hearsSpeech(call: Pick<CallRow, 'carrier'>): boolean {
    return this.carriers.named(call.carrier).media.hearsSpeech !== false;
  }

  /** The agent took the answered call (in `trx`, the conversation just inserted): it greets and listens. */
  async start(trx: Trx, call: CallRow, agent: AgentRow, conv: ConversationRow, clock: Clock): Promise<void> {
    const greeting = this.engine.greet(agentProfile(agent), clock.now());
    const at = await this.elapsed(trx, call);
    const turn: TranscriptTurn = { speaker: 'agent', text: greeting.text, at, citations: [], action: greeting.action };
    const saved = await this.conversations.save(trx, conv, { transcript: JSON.stringify([turn]), script_position: 1 }, clock);
    await this.order(trx, call, saved, agent, 'listen', greeting.text, GREETING_LEAD_SECONDS);
  }

  async heard(): Promise<void> {
    // Words are taken when the listening operation ends, not as they are heard.
  }

  /** The media port reports the end of a conversation's operation. */
  async finished(callId: string, opId: string, result: MediaResult): Promise<void> {
    const [conversationId, seqText] = opId.split(':');
    const seq = Number(seqText);
    const conv = conversationId ? await this.conversations.readAll(this.db, conversationId) : undefined;
    if (!conv || conv.call_id !== callId || !this.awaits(conv, seq)) return;
    // The call ended under it, or something else took the line: nothing for the agent to do.
    if (resultCutShort(result)) return;
    const agent = await this.conversations.agentOf(this.db, conv);
    const transcript = JSON.parse(conv.transcript) as TranscriptTurn[];
    const awaited = awaitedAfter(transcript, agent);
    const heard = result.kind === 'collect' && result.reason === 'speech' && result.speech ? result.speech : null;
    let reply: AgentReply | null = null;
    if (awaited === 'listen' && heard !== null) {
      const index = await this.indexes.get(agent.id, agent.knowledge_version);
      const now = (await this.platform.sandboxClocks.clockFor(conv.account_id, conv.mode)).now();
      reply = await this.engine.reply({ agent: agentProfile(agent), index, history: transcript, utterance: heard, at: now });
    }
    await inTransaction(this.db, async (trx) => {
      const call = await this.calls.lock(trx, callId);
      const current = await this.conversations.lock(trx, { id: conv.id });
      if (!call || !current || call.status !== 'in_progress' || !this.awaits(current, seq) || current.transcript !== conv.transcript) return;
      const clock = await this.platform.sandboxClocks.clockFor(call.account_id, call.mode, trx);
      if (awaited === 'goodbye') return this.calls.endFromFlow(trx, call, clock);
      if (awaited === 'transfer') return this.transfer(trx, call, current, agent, transcript, clock);
      if (reply === null || heard === null) return this.silence(trx, call, current, agent, transcript, clock);
      return this.answer(trx, call, current, agent, transcript, { heard, result, reply }, clock);
    });
  }

  /** The caller said something and the engine replied: both turns, then the reply is spoken. */
  private async answer(trx: Trx, call: CallRow, conv: ConversationRow, agent: AgentRow, transcript: TranscriptTurn[],
    said: { heard: string; result: MediaResult; reply: AgentReply }, clock: Clock): Promise<void> {
    const { heard, result, reply } = said;
    const now = await this.elapsed(trx, call);
    const from = result.kind === 'collect' && result.utterance ? result.utterance.start : now;
    const callerTurn: TranscriptTurn = { speaker: 'caller', text: heard, at: round(from), citations: [], action: null };
    const agentTurn: TranscriptTurn = { speaker: 'agent', text: reply.text, at: now, citations: reply.citations, action: reply.action };
    const turns = [...transcript, callerTurn, agentTurn];
    const saved = await this.conversations.save(trx, conv, {
      transcript: JSON.stringify(turns), ...replyRecord(conv, turns.length - 1, reply), script_position: conv.script_position + 1,
    }, clock);
    await this.order(trx, call, saved, agent, awaitedAfter(turns, agent), reply.text);
  }

  /** The caller said nothing: ask once whether they are there, then say goodbye. */
  private async silence(trx: Trx, call: CallRow, conv: ConversationRow, agent: AgentRow, transcript: TranscriptTurn[], clock: Clock): Promise<void> {
    const asked = transcript.at(-1)?.text === STILL_THERE_TEXT;
    const text = asked ? SILENT_GOODBYE_TEXT : STILL_THERE_TEXT;
    const turn: TranscriptTurn = { speaker: 'agent', text, at: await this.elapsed(trx, call), citations: [], action: asked ? 'end' : 'clarify' };
    const turns = [...transcript, turn];
    const saved = await this.conversations.save(trx, conv, { transcript: JSON.stringify(turns), script_position: conv.script_position + 1 }, clock);
    await this.order(trx, call, saved, agent, asked ? 'goodbye' : 'listen', text);
  }

  /** The agent said it transfers: the call's blind transfer (REFER or bridge, per trunk) starts now. */
  private async transfer(trx: Trx, call: CallRow, conv: ConversationRow, agent: AgentRow, transcript: TranscriptTurn[], clock: Clock): Promise<void> {
    try {
      const { index } = await this.calls.startTransfer(trx, call, agent.transfer_number!, TRANSFER_RING_TIMEOUT, clock);
      await this.conversations.save(trx, conv, { pending_transfer: index, script_position: conv.script_position + 1 }, clock);
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      await this.transferFailed(trx, call, { ...conv, pending_transfer: null }, clock, transcript);
    }
  }

  /** A transfer that did not connect (or could not start): the agent apologises and takes a message. */
  async transferFailed(trx: Trx, call: CallRow, conv: ConversationRow, clock: Clock, transcript = JSON.parse(conv.transcript) as TranscriptTurn[]): Promise<void> {
    const agent = await this.conversations.agentOf(this.db, conv);
    const turn: TranscriptTurn = { speaker: 'agent', text: TRANSFER_FAILED_TEXT, at: await this.elapsed(trx, call), citations: [], action: 'clarify' };
    const saved = await this.conversations.save(trx, conv, {
      transcript: JSON.stringify([...transcript, turn]), pending_transfer: null, script_position: conv.script_position + 1,
    }, clock);
    await this.order(trx, call, saved, agent, 'listen', TRANSFER_FAILED_TEXT);
  }

  /** Orders the media operation the conversation now awaits (it commits with the turn). */
  private async order(trx: Trx, call: CallRow, conv: ConversationRow, agent: AgentRow, awaited: Awaited, text: string, leadSeconds = 0): Promise<void> {
    const speak: PromptOp = { kind: 'speak', text, loop: 1, language: agent.language, voice: agent.voice === 'default' ? undefined : agent.voice, bySentence: true };
    const lead: PromptOp[] = leadSeconds > 0 ? [{ kind: 'silence', seconds: leadSeconds }] : [];
    const op: MediaOp = awaited === 'listen'
      ? {
        kind: 'collect', prompts: [...lead, speak], bargeIn: true, dtmf: false, speech: true, finishOnKey: '',
        timeoutSeconds: LIVE_LISTEN_TIMEOUT_SECONDS, speechTimeoutSeconds: LIVE_SPEECH_TIMEOUT_SECONDS, endOfUtterance: 'words', hints: [],
      }
      : speak;
    await this.carriers.named(call.carrier).media.run(trx, call, `${conv.id}:${conv.script_position}`, op);
  }

  private awaits(conv: ConversationRow, seq: number): boolean {
    return conv.status === 'in_progress' && conv.pending_transfer === null && conv.script_position === seq;
  }

  private async elapsed(trx: Trx, call: CallRow): Promise<number> {
    return round(await this.carriers.named(call.carrier).media.elapsed(trx, call));
  }
}

/**
 * What the agent does once its last turn is said: hang up after a goodbye, transfer after
 * announcing one (when it has somewhere to send the caller), otherwise listen. The greeting
 * always listens (after hours it offers to take a message).
 */
function awaitedAfter(transcript: TranscriptTurn[], agent: Pick<AgentRow, 'transfer_number'>): Awaited {
  const last = transcript.at(-1);
  if (transcript.length <= 1 || !last || last.speaker !== 'agent') return 'listen';
  if (last.action === 'end') return 'goodbye';
  if (last.action === 'transfer' && agent.transfer_number) return 'transfer';
  return 'listen';
}

function resultCutShort(result: MediaResult): boolean {
  if (result.kind === 'bridge') return true;
  return result.reason === 'hangup' || result.reason === 'interrupted';
}

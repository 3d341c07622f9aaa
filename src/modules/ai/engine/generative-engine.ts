// Receptionist backed by an OpenAI-compatible chat completions API.
//
// The model only phrases answers: it sees the passages retrieved by the
// KnowledgeIndex and must answer from them alone, citing them. Everything that
// must never depend on a model stays deterministic: conversation rules (asking
// for a person, message taking, goodbyes) are decided by the DefaultEngine
// before the model is called, and a model reply that is late, malformed or
// cites nothing it was shown is discarded in favour of the DefaultEngine's
// answer, with the reason recorded in `fallback_reason`.
import type * as Undici from 'undici';
import { lazyRequire } from '../../../platform/lazy-require.ts';
import { DefaultEngine } from './default-engine.ts';
import { SCORE_WEIGHTS, clampScore, overallScore, type ScorePartName } from './scoring.ts';
import type {
  AgentProfile,
  AgentReply,
  ConversationScore,
  Outcome,
  ReceptionistEngine,
  ReplyInput,
  ScorePart,
  TranscriptTurn,
} from './types.ts';
import type { SearchHit } from './retrieval.ts';

/** Loaded on first use (see platform/lazy-require.ts). */
const undici = lazyRequire<typeof Undici>('undici');

export interface LlmConfig {
  /** e.g. "https://api.openai.com/v1" or "http://127.0.0.1:11434/v1" */
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs?: number;
}

export const DEFAULT_LLM_TIMEOUT_MS = 8000;
const PASSAGE_LIMIT = 5;
const MAX_REPLY_CHARS = 1200;
const HISTORY_TURNS = 8;
const MODEL_ACTIONS = ['answer', 'clarify', 'transfer', 'end'] as const;
type ModelAction = (typeof MODEL_ACTIONS)[number];

/** A failure of the model call; its message becomes the reply's fallback_reason. */
class LlmError extends Error {}

export class GenerativeEngine implements ReceptionistEngine {
  readonly name = 'generative' as const;
  readonly #config: Required<Omit<LlmConfig, 'apiKey'>> & { apiKey?: string };
  readonly #fallback: DefaultEngine;

  constructor(config: LlmConfig, fallback: DefaultEngine = new DefaultEngine()) {
    this.#config = { ...config, baseUrl: config.baseUrl.replace(/\/+$/, ''), timeoutMs: config.timeoutMs ?? DEFAULT_LLM_TIMEOUT_MS };
    this.#fallback = fallback;
  }

  greet(agent: AgentProfile, at: Date): { text: string; action: 'greet' | 'end' } {
    // The greeting is configured text; no reason to spend a model call on it.
    return this.#fallback.greet(agent, at);
  }

  async reply(input: ReplyInput): Promise<AgentReply> {
    const ruled = this.#fallback.ruleReply(input);
    if (ruled) return ruled;

    const hits = input.index.search(input.utterance, PASSAGE_LIMIT);
    if (hits.length === 0) {
      return this.#fallbackReply(input, 'no knowledge passage matched the question');
    }
    try {
      const content = await this.#complete(replyMessages(input, hits));
      const parsed = parseModelReply(content, hits);
      if (parsed.action === 'transfer') {
        // The model may decide to hand off, but how (transfer or message) is the rules' call.
        const { rule: _rule, ...handoff } = this.#fallback.transferReply(input, "I'm not sure I have the right answer for that.");
        return { ...handoff, engine: 'generative', confidence: parsed.confidence };
      }
      return { text: parsed.text, action: parsed.action, citations: parsed.citations, confidence: parsed.confidence, engine: 'generative' };
    } catch (error) {
      return this.#fallbackReply(input, describeError(error));
    }
  }

  async score(input: { transcript: TranscriptTurn[]; outcome: Outcome }): Promise<ConversationScore> {
    try {
      const content = await this.#complete(scoreMessages(input.transcript, input.outcome));
      const parts = parseModelScore(content);
      return { overall: overallScore(parts), parts, engine: 'generative' };
    } catch (error) {
      return { ...(await this.#fallback.score(input)), fallback_reason: describeError(error) };
    }
  }

  async #fallbackReply(input: ReplyInput, reason: string): Promise<AgentReply> {
    return { ...this.#fallback.knowledgeReply(input), fallback_reason: reason };
  }

  /** One chat completion in JSON mode; returns the message content. */
  async #complete(messages: { role: 'system' | 'user'; content: string }[]): Promise<string> {
    const { baseUrl, apiKey, model, timeoutMs } = this.#config;
    let response;
    try {
      response = await undici().fetch(`${baseUrl}/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
        },
        body: JSON.stringify({ model, messages, temperature: 0, response_format: { type: 'json_object' } }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
        throw new LlmError(`model request timed out after ${timeoutMs} ms`);
      }
      throw new LlmError(`model request failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    let body: unknown;
    try {
      if (!response.ok) {
        await response.body?.cancel();
        throw new LlmError(`model endpoint answered HTTP ${response.status}`);
      }
      body = await response.json();
    } catch (error) {
      if (error instanceof LlmError) throw error;
      if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
        throw new LlmError(`model request timed out after ${timeoutMs} ms`);
      }
      throw new LlmError('model endpoint returned a body that is not JSON');
    }
    const content = (body as { choices?: { message?: { content?: unknown } }[] })?.choices?.[0]?.message?.content;
    if (typeof content !== 'string' || content.trim() === '') throw new LlmError('model response has no message content');
    return content;
  }
}

// ---------------------------------------------------------------- prompts

function replyMessages(input: ReplyInput, hits: SearchHit[]): { role: 'system' | 'user'; content: string }[] {
  const { agent } = input;
  const passages = hits.map((h) => ({
    document_id: h.chunk.documentId,
    title: h.chunk.title,
    heading: h.chunk.heading,
    text: h.chunk.text,
  }));
  const system = [
    `You are the phone receptionist for ${agent.name}. Reply in ${agent.language || 'the caller\'s language'}, in one to three short spoken sentences.`,
    agent.instructions.trim() ? `Business instructions: ${agent.instructions.trim()}` : '',
    'Answer ONLY from the knowledge passages provided. Never use outside knowledge and never guess.',
    'If the passages do not answer the question, use action "transfer". If the question is unclear, use action "clarify" and ask one short question.',
    'Respond with a JSON object: {"action": "answer" | "clarify" | "transfer" | "end", "text": string, "citations": string[], "confidence": number between 0 and 1}.',
    'For action "answer", "citations" must list the document_id of every passage you used (at least one).',
  ]
    .filter(Boolean)
    .join('\n');
  const transcript = input.history
    .slice(-HISTORY_TURNS)
    .map((t) => `${t.speaker === 'agent' ? 'Receptionist' : 'Caller'}: ${t.text}`)
    .join('\n');
  const user = JSON.stringify({ passages, conversation_so_far: transcript, caller_says: input.utterance });
  return [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
}

function scoreMessages(transcript: TranscriptTurn[], outcome: Outcome): { role: 'system' | 'user'; content: string }[] {
  const system = [
    'You review phone calls handled by an AI receptionist. Score the call from its transcript.',
    'Respond with a JSON object: {"answered_from_knowledge": {"score": integer 0-100, "explanation": string},',
    ' "resolution": {...}, "caller_sentiment": {...}, "turns_to_resolution": {...}}.',
    'answered_from_knowledge: were the caller\'s questions answered from the business knowledge (agent turns with citations)?',
    'resolution: was the caller\'s need met given the outcome? caller_sentiment: how did the caller feel?',
    'turns_to_resolution: was it resolved in few turns? Explanations are one sentence.',
  ].join('\n');
  const user = JSON.stringify({
    outcome,
    transcript: transcript.map((t) => ({ speaker: t.speaker, text: t.text, action: t.action, citations: t.citations })),
  });
  return [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
}

// ---------------------------------------------------------------- validation

interface ModelReply {
  action: ModelAction;
  text: string;
  citations: string[];
  confidence: number;
}

function parseJsonObject(content: string): Record<string, unknown> {
  let value: unknown;
  try {
    // Some servers wrap JSON mode output in a code fence anyway.
    value = JSON.parse(content.trim().replace(/^```(?:json)?\s*|\s*```$/g, ''));
  } catch {
    throw new LlmError('model output is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new LlmError('model output is not a JSON object');
  return value as Record<string, unknown>;
}

/** Accepts a model reply only if it is well-formed and cites passages it was actually given. */
export function parseModelReply(content: string, hits: SearchHit[]): ModelReply {
  const obj = parseJsonObject(content);
  const { action, text, citations, confidence } = obj;
  if (typeof action !== 'string' || !(MODEL_ACTIONS as readonly string[]).includes(action)) {
    throw new LlmError(`model output has invalid action ${JSON.stringify(action)}`);
  }
  if (typeof text !== 'string' || text.trim() === '') throw new LlmError('model output has no text');
  if (text.length > MAX_REPLY_CHARS) throw new LlmError('model output text is too long');
  if (citations !== undefined && (!Array.isArray(citations) || !citations.every((c) => typeof c === 'string'))) {
    throw new LlmError('model output citations must be a list of strings');
  }
  // Citations may name a document or a chunk ("doc#3"); keep only documents that were in the passages.
  const shown = new Set(hits.map((h) => h.chunk.documentId));
  const cited = [...new Set(((citations as string[] | undefined) ?? []).map((c) => c.replace(/#\d+$/, '')))];
  const valid = cited.filter((c) => shown.has(c));
  if (action === 'answer' && valid.length === 0) {
    throw new LlmError('model answered without citing any of the retrieved passages');
  }
  const conf = typeof confidence === 'number' && confidence >= 0 && confidence <= 1 ? confidence : 0.8;
  return { action: action as ModelAction, text: text.trim(), citations: action === 'answer' ? valid : [], confidence: conf };
}

export function parseModelScore(content: string): Record<ScorePartName, ScorePart> {
  const obj = parseJsonObject(content);
  // Some models nest the parts under "parts".
  const source = typeof obj.parts === 'object' && obj.parts !== null ? (obj.parts as Record<string, unknown>) : obj;
  const parts = {} as Record<ScorePartName, ScorePart>;
  for (const name of Object.keys(SCORE_WEIGHTS) as ScorePartName[]) {
    const part = source[name] as { score?: unknown; explanation?: unknown } | undefined;
    const score = part?.score;
    if (typeof score !== 'number' || !Number.isFinite(score) || score < 0 || score > 100) {
      throw new LlmError(`model score for ${name} is missing or not a number 0-100`);
    }
    const explanation = typeof part?.explanation === 'string' && part.explanation.trim() ? part.explanation.trim() : 'Scored by the model.';
    parts[name] = { score: clampScore(score), weight: SCORE_WEIGHTS[name], explanation };
  }
  return parts;
}

function describeError(error: unknown): string {
  if (error instanceof LlmError) return error.message;
  return `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
}

// Rule-based quality score of a finished call, computed from its transcript.
// Four parts, each 0..100 with a weight; `overall` is their weighted mean. A
// part that does not apply (no questions were asked) gets weight 0 so it
// neither helps nor hurts.
import { detectIntent, normalizeUtterance } from './intents.ts';
import { analyze } from './retrieval.ts';
import type { ConversationScore, Outcome, ScorePart, TranscriptTurn } from './types.ts';

export const SCORE_WEIGHTS = {
  answered_from_knowledge: 0.35,
  resolution: 0.35,
  caller_sentiment: 0.15,
  turns_to_resolution: 0.15,
} as const;

export type ScorePartName = keyof typeof SCORE_WEIGHTS;

export function scoreConversation(input: { transcript: TranscriptTurn[]; outcome: Outcome }): ConversationScore {
  const parts = {
    answered_from_knowledge: scoreAnsweredFromKnowledge(input.transcript),
    resolution: scoreResolution(input.transcript, input.outcome),
    caller_sentiment: scoreCallerSentiment(input.transcript),
    turns_to_resolution: scoreTurns(input.transcript, input.outcome),
  };
  return { overall: overallScore(parts), parts, engine: 'default' };
}

export function overallScore(parts: Record<ScorePartName, ScorePart>): number {
  const all = Object.values(parts);
  const totalWeight = all.reduce((sum, p) => sum + p.weight, 0);
  if (totalWeight === 0) return 0;
  return clampScore(all.reduce((sum, p) => sum + p.score * p.weight, 0) / totalWeight);
}

export function clampScore(n: number): number {
  return Math.max(0, Math.min(100, Math.round(n)));
}

/** Caller questions about the business, each paired with the agent turn that followed it. */
function questionsWithReplies(transcript: TranscriptTurn[]): { question: TranscriptTurn; reply: TranscriptTurn }[] {
  const pairs: { question: TranscriptTurn; reply: TranscriptTurn }[] = [];
  transcript.forEach((turn, i) => {
    if (turn.speaker !== 'caller' || detectIntent(turn.text) !== 'question' || analyze(turn.text).length === 0) return;
    // A caller utterance right after "what message should I pass on?" is the message, not a question.
    const previous = transcript.slice(0, i).reverse().find((t) => t.speaker === 'agent');
    if (previous?.action === 'clarify' && /message/i.test(previous.text) && transcript[i + 1]?.action === 'message') return;
    // A last remark the caller hung up on was not put to the receptionist.
    const reply = transcript.slice(i + 1).find((t) => t.speaker === 'agent');
    if (reply) pairs.push({ question: turn, reply });
  });
  return pairs;
}

/**
 * The caller questions the receptionist did not answer from its knowledge: the same reading as
 * the score's answered_from_knowledge part (so "2 of 3 questions answered" and the analytics'
 * unanswered questions always agree), which is what a business should add knowledge for.
 */
export function unansweredQuestions(transcript: TranscriptTurn[]): TranscriptTurn[] {
  return questionsWithReplies(transcript).filter((p) => !answeredFromKnowledge(p.reply)).map((p) => p.question);
}

function answeredFromKnowledge(reply: TranscriptTurn): boolean {
  return reply.action === 'answer' && reply.citations.length > 0;
}

function scoreAnsweredFromKnowledge(transcript: TranscriptTurn[]): ScorePart {
  const pairs = questionsWithReplies(transcript);
  const weight = SCORE_WEIGHTS.answered_from_knowledge;
  if (pairs.length === 0) {
    return { score: 100, weight: 0, explanation: 'The caller asked no questions about the business, so this does not apply.' };
  }
  const answered = pairs.filter((p) => answeredFromKnowledge(p.reply)).length;
  return {
    score: clampScore((100 * answered) / pairs.length),
    weight,
    explanation: `${answered} of ${pairs.length} caller question${pairs.length === 1 ? ' was' : 's were'} answered from the knowledge base.`,
  };
}

function scoreResolution(transcript: TranscriptTurn[], outcome: Outcome): ScorePart {
  const weight = SCORE_WEIGHTS.resolution;
  const callerAskedForPerson = transcript.some((t) => t.speaker === 'caller' && detectIntent(t.text) === 'transfer');
  const anyAnswer = transcript.some((t) => t.speaker === 'agent' && t.action === 'answer');
  switch (outcome) {
    case 'resolved':
      return { score: 100, weight, explanation: 'The call was resolved without needing a person.' };
    case 'message_taken':
      return { score: 80, weight, explanation: 'A message was taken for the team to follow up.' };
    case 'transferred':
      return callerAskedForPerson
        ? { score: 85, weight, explanation: 'The caller asked for a person and was transferred.' }
        : { score: 50, weight, explanation: 'The caller was transferred because the receptionist could not answer.' };
    case 'abandoned':
      return anyAnswer
        ? { score: 30, weight, explanation: 'The caller hung up after getting some answers, without a clear resolution.' }
        : { score: 0, weight, explanation: 'The caller hung up before anything was resolved.' };
  }
}

// Small lexicon of what callers say when pleased or annoyed.
const POSITIVE = new Set([
  'thanks', 'thank', 'great', 'perfect', 'awesome', 'helpful', 'appreciate', 'appreciated', 'wonderful', 'excellent',
  'good', 'nice', 'lovely', 'cool', 'fantastic', 'amazing', 'brilliant', 'glad', 'happy', 'pleased', 'easy', 'clear',
  'sweet', 'love', 'super',
]);
const NEGATIVE = new Set([
  'useless', 'terrible', 'awful', 'frustrated', 'frustrating', 'annoying', 'annoyed', 'stupid', 'ridiculous', 'angry',
  'worst', 'hate', 'wrong', 'waste', 'bad', 'horrible', 'confusing', 'confused', 'ugh', 'upset', 'disappointed',
  'unacceptable', 'pointless', 'rude', 'unhelpful', 'dumb', 'mad', 'sucks',
]);
const NEGATORS = new Set(['not', "don't", 'dont', 'no', 'never', "isn't", 'isnt', "wasn't", 'wasnt', "didn't", 'didnt']);

/** Counts sentiment words in caller turns; "not helpful" counts as negative, "not bad" as positive. */
export function sentimentCounts(texts: string[]): { positive: number; negative: number } {
  let positive = 0;
  let negative = 0;
  for (const text of texts) {
    const words = normalizeUtterance(text).split(' ');
    words.forEach((word, i) => {
      const polarity = POSITIVE.has(word) ? 1 : NEGATIVE.has(word) ? -1 : 0;
      if (polarity === 0) return;
      // "not helpful", "not very helpful"; the negation does not reach past another sentiment word.
      const previous = words[i - 1] ?? '';
      const beforePrevious = words[i - 2] ?? '';
      const negated =
        NEGATORS.has(previous) || (NEGATORS.has(beforePrevious) && !POSITIVE.has(previous) && !NEGATIVE.has(previous));
      if ((polarity > 0) !== negated) positive++;
      else negative++;
    });
  }
  return { positive, negative };
}

const NEUTRAL_SENTIMENT = 60;
const ASKED_TO_REPEAT = /didn'?t (?:quite )?catch|say (?:it|that) (?:another way|again)|rephrase|could you repeat/i;

function scoreCallerSentiment(transcript: TranscriptTurn[]): ScorePart {
  const weight = SCORE_WEIGHTS.caller_sentiment;
  const { positive, negative } = sentimentCounts(transcript.filter((t) => t.speaker === 'caller').map((t) => t.text));
  if (positive + negative === 0) {
    return { score: NEUTRAL_SENTIMENT, weight, explanation: 'The caller expressed no clear sentiment.' };
  }
  const balance = (positive - negative) / (positive + negative); // -1..1
  const score = clampScore(NEUTRAL_SENTIMENT + balance * (balance >= 0 ? 100 - NEUTRAL_SENTIMENT : NEUTRAL_SENTIMENT));
  const mood = balance > 0.2 ? 'positive' : balance < -0.2 ? 'negative' : 'mixed';
  return { score, weight, explanation: `Caller sentiment was ${mood} (${positive} positive, ${negative} negative expressions).` };
}

function scoreTurns(transcript: TranscriptTurn[], outcome: Outcome): ScorePart {
  const weight = SCORE_WEIGHTS.turns_to_resolution;
  const callerTurns = transcript.filter((t) => t.speaker === 'caller' && t.text.trim() !== '').length;
  // Each time the receptionist did not understand, the caller lost a turn.
  const repeats = transcript.filter((t) => t.speaker === 'agent' && t.action === 'clarify' && ASKED_TO_REPEAT.test(t.text)).length;
  if (callerTurns === 0) return { score: 0, weight, explanation: 'The caller never spoke.' };
  const score = clampScore(100 - 12 * Math.max(0, callerTurns - 2) - 10 * repeats);
  const verb = outcome === 'abandoned' ? 'before hanging up' : 'to reach the outcome';
  return {
    score,
    weight,
    explanation: `The caller needed ${callerTurns} turn${callerTurns === 1 ? '' : 's'} ${verb}${repeats > 0 ? `, with ${repeats} request${repeats === 1 ? '' : 's'} to repeat` : ''}.`,
  };
}

// The deterministic receptionist: intent rules first, then extractive answers
// from the knowledge index, and a handoff to a person whenever it is not sure.
// It keeps no state of its own; where the call stands (e.g. "waiting for the
// caller's message") is read back from the transcript history.
import { ANSWER_CONFIDENCE_THRESHOLD, CONDITION_WEIGHT, answerability, extractAnswer } from './answer.ts';
import { splitCondition } from './clauses.ts';
import { isOpen } from './business-hours.ts';
import { detectIntent, extractInlineMessage } from './intents.ts';
import { analyzeQuery } from './retrieval.ts';
import { scoreConversation } from './scoring.ts';
import type {
  AgentProfile,
  AgentReply,
  ConversationRule,
  ConversationScore,
  Outcome,
  ReceptionistEngine,
  ReplyInput,
  TranscriptTurn,
} from './types.ts';

/** Ends every prompt for a message; how the engine recognises, from history, that the next utterance is the message. */
export const MESSAGE_PROMPT = 'what message should I pass on?';
const MESSAGE_PROMPT_PATTERN = /what message should i pass on\?\s*$/i;
const MESSAGE_OFFER_PATTERN = /\bmessage\b/i;

const SEARCH_LIMIT = 8;
/** Said before handing off a question the documents do not answer. */
export const NO_INFORMATION = "I'm sorry, I don't have that information.";
/** Below this margin between the two best passages (on different topics) the engine asks which one the caller meant. */
const CLARIFY_MARGIN = 0.08;
const CLARIFY_PATTERN = /^Just to be sure, do you mean .+ or .+\?$/;

export class DefaultEngine implements ReceptionistEngine {
  readonly name = 'default' as const;

  greet(agent: AgentProfile, at: Date): { text: string; action: 'greet' | 'end' } {
    if (agent.businessHours && !isOpen(agent.businessHours, at)) {
      const closed = agent.afterHoursMessage?.trim() || `Thanks for calling ${agent.name}. We're closed right now.`;
      const offer = MESSAGE_OFFER_PATTERN.test(closed) ? '' : " If you'd like, I can take a message for the team.";
      return { text: `${closed}${offer}`, action: 'end' };
    }
    return { text: agent.greeting.trim() || `Thanks for calling ${agent.name}. How can I help you today?`, action: 'greet' };
  }

  async reply(input: ReplyInput): Promise<AgentReply> {
    return this.ruleReply(input) ?? this.knowledgeReply(input);
  }

  async score(input: { transcript: TranscriptTurn[]; outcome: Outcome }): Promise<ConversationScore> {
    return scoreConversation(input);
  }

  /**
   * The turns decided by conversation rules alone: message taking, requests for
   * a person, goodbyes and small talk. Returns null when the utterance needs the
   * knowledge base. The generative engine calls this first too, so these rules
   * hold whichever engine is configured.
   */
  ruleReply(input: ReplyInput): AgentReply | null {
    const { agent, history, utterance } = input;
    const intent = detectIntent(utterance);
    const lastAgentTurn = [...history].reverse().find((t) => t.speaker === 'agent');

    if (lastAgentTurn && isAwaitingMessage(lastAgentTurn)) {
      if (intent === 'transfer') return this.transferReply(input, 'Sure.');
      if (intent === 'affirm') return ruled('message_requested', 'clarify', `Go ahead, ${MESSAGE_PROMPT}`);
      if (intent === 'cancel' || intent === 'deny') {
        return ruled('message_cancelled', 'clarify', "No problem, I won't pass anything on. Is there anything else I can help you with?");
      }
      return this.messageTaken(utterance.trim());
    }

    switch (intent) {
      case 'transfer':
        return this.transferReply(input, 'Sure.');
      case 'message': {
        const inline = extractInlineMessage(utterance);
        return inline ? this.messageTaken(inline) : ruled('message_requested', 'clarify', `Sure, ${MESSAGE_PROMPT}`);
      }
      case 'end':
      case 'deny':
        return ruled('goodbye', 'end', `Thanks for calling ${agent.name}. Goodbye!`);
      case 'affirm':
        if (lastAgentTurn && MESSAGE_OFFER_PATTERN.test(lastAgentTurn.text) && lastAgentTurn.action !== 'message') {
          return ruled('message_requested', 'clarify', `Great, ${MESSAGE_PROMPT}`);
        }
        return smallTalk('Great. What else can I help you with?');
      case 'cancel':
        return smallTalk('No problem. Is there anything else I can help you with?');
      case 'greeting':
        return smallTalk('Hi there! How can I help you today?');
      case 'thanks':
        return smallTalk("You're welcome! Is there anything else I can help you with?");
      case 'how_are_you':
        return smallTalk("I'm doing well, thanks for asking! How can I help you today?");
      case 'identity':
        return smallTalk(
          `I'm the virtual receptionist for ${agent.name}. I can answer questions about us, take a message, or put you through to a person.`,
        );
      case 'question':
        return null;
    }
  }

  /**
   * Answers from the knowledge base; asks which reading the caller meant when two
   * passages answer about equally well; says it does not have the information and
   * hands off when no passage answers well enough. Never guesses.
   */
  knowledgeReply(input: ReplyInput): AgentReply {
    // Nothing but filler ("uh, so, can you tell me...") is a request to repeat, not a question we failed.
    if (analyzeQuery(input.utterance).length === 0) {
      return ruled('not_understood', 'clarify', "Sorry, I didn't quite catch that. Could you say it another way?", 0);
    }
    // The caller is answering our "do you mean A or B?": read their reply together with the question.
    const clarified = pendingClarification(input.history);
    const question = clarified ? `${clarified.question} ${input.utterance}` : input.utterance;
    // A trailing condition ("... if I don't have insurance") ranks passages less than what is asked about.
    const clauses = splitCondition(question);
    const query = clauses ? { main: clauses.mainText, qualifier: clauses.conditionText, qualifierWeight: CONDITION_WEIGHT } : question;
    const hits = input.index.search(query, SEARCH_LIMIT);
    const answer = extractAnswer(question, hits, input.index);
    if (answer === null) return this.noInformation(input, 0);
    // Two passages on different topics answer about equally well: the small margin says
    // which one is unclear, not that neither answers, so ask once before handing off.
    const rival = answer.rival;
    const ownTopic = topicOf(answer.sentences[0]?.chunkHeading ?? null);
    const clearWinner = answerability({ ...answer.signals, margin: 1 });
    if (!clarified && rival && rival.margin < CLARIFY_MARGIN && ownTopic && topicOf(rival.heading) !== ownTopic && clearWinner >= ANSWER_CONFIDENCE_THRESHOLD) {
      return ruled('clarify_reading', 'clarify', `Just to be sure, do you mean ${ownTopic} or ${topicOf(rival.heading)}?`, answer.confidence);
    }
    if (answer.confidence < ANSWER_CONFIDENCE_THRESHOLD) return this.noInformation(input, answer.confidence);
    return { text: answer.text, action: 'answer', citations: answer.citations, confidence: answer.confidence, engine: 'default' };
  }

  /** "I don't have that information", then a transfer or a message: never a guess. */
  noInformation(input: ReplyInput, confidence: number): AgentReply {
    return { ...this.transferReply(input, NO_INFORMATION), rule: 'no_information', confidence };
  }

  /** Puts the caller through to a person, or takes a message when nobody can take the call. */
  transferReply(input: ReplyInput, lead: string): AgentReply {
    const { agent, at } = input;
    if (at && agent.businessHours && !isOpen(agent.businessHours, at)) {
      return ruled('after_hours', 'clarify', `${lead} We're closed right now, but I can take a message for the team. So, ${MESSAGE_PROMPT}`);
    }
    if (!agent.transferNumber) {
      return ruled('transfer_requested', 'clarify', `${lead} I can't put you through to a person right now, but I can take a message. So, ${MESSAGE_PROMPT}`);
    }
    return ruled('transfer_requested', 'transfer', `${lead} I'm transferring you to a member of our team now. Please hold.`);
  }

  messageTaken(message: string): AgentReply {
    return {
      ...ruled('message_taken', 'message', `Thank you, I've taken your message and will pass it on to the team. Is there anything else I can help you with?`),
      message,
    };
  }
}

/** When the agent's last turn asked "do you mean A or B?", the caller's question it was about. */
function pendingClarification(history: TranscriptTurn[]): { question: string } | null {
  const last = history.length - 1;
  const agent = history[last];
  if (!agent || agent.speaker !== 'agent' || agent.action !== 'clarify' || !CLARIFY_PATTERN.test(agent.text)) return null;
  const caller = history[last - 1];
  return caller && caller.speaker === 'caller' ? { question: caller.text } : null;
}

/** "Frequently asked questions > Do you pull permits?" -> "do you pull permits"; "Hours" -> "our hours". */
function topicOf(heading: string | null): string {
  const last = heading?.split(' > ').pop()?.trim().replace(/[?.!:]+$/, '') ?? '';
  if (!last) return '';
  const lower = last.charAt(0).toLowerCase() + last.slice(1);
  if (/^(?:do|does|can|is|are|how|what|who|where|when|will|should)\b/i.test(last)) return `"${lower}"`;
  // "Our showroom and office" is already ours.
  return /^our\b/i.test(last) ? lower.toLowerCase() : `our ${lower.toLowerCase()}`;
}

function isAwaitingMessage(lastAgentTurn: TranscriptTurn): boolean {
  return lastAgentTurn.action === 'clarify' && MESSAGE_PROMPT_PATTERN.test(lastAgentTurn.text);
}

function ruled(rule: ConversationRule, action: AgentReply['action'], text: string, confidence = 1): AgentReply {
  return { text, action, citations: [], confidence, engine: 'default', rule };
}

function smallTalk(text: string): AgentReply {
  return ruled('small_talk', 'clarify', text);
}

// The deterministic receptionist: intent rules first, then extractive answers
// from the knowledge index, and a handoff to a person whenever it is not sure.
// It keeps no state of its own; where the call stands (e.g. "waiting for the
// caller's message") is read back from the transcript history.
import { ANSWER_CONFIDENCE_THRESHOLD, extractAnswer } from './answer.ts';
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

  /** Answers from the knowledge base, or hands off when no passage answers well enough. */
  knowledgeReply(input: ReplyInput): AgentReply {
    // Nothing but filler ("uh, so, can you tell me...") is a request to repeat, not a question we failed.
    if (analyzeQuery(input.utterance).length === 0) {
      return ruled('not_understood', 'clarify', "Sorry, I didn't quite catch that. Could you say it another way?", 0);
    }
    const hits = input.index.search(input.utterance, SEARCH_LIMIT);
    const answer = extractAnswer(input.utterance, hits, input.index);
    if (answer === null || answer.confidence < ANSWER_CONFIDENCE_THRESHOLD) {
      return { ...this.transferReply(input, "I'm not sure I have the right answer for that."), rule: 'no_information', confidence: answer?.confidence ?? 0 };
    }
    return { text: answer.text, action: 'answer', citations: answer.citations, confidence: answer.confidence, engine: 'default' };
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

function isAwaitingMessage(lastAgentTurn: TranscriptTurn): boolean {
  return lastAgentTurn.action === 'clarify' && MESSAGE_PROMPT_PATTERN.test(lastAgentTurn.text);
}

function ruled(rule: ConversationRule, action: AgentReply['action'], text: string, confidence = 1): AgentReply {
  return { text, action, citations: [], confidence, engine: 'default', rule };
}

function smallTalk(text: string): AgentReply {
  return ruled('small_talk', 'clarify', text);
}

// Shared contracts of the AI receptionist engine. The conversation service
// (outside this module) only depends on these names, so they stay stable; new
// optional fields may be added.
import type { KnowledgeIndex } from './retrieval.ts';

export type ContentType = 'text/plain' | 'text/markdown' | 'text/html';

export interface KnowledgeDocument {
  documentId: string;
  title: string;
  content: string;
  contentType: ContentType;
}

export type { KnowledgeChunk } from './knowledge-chunk.ts';

export type Weekday = 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun';

export interface BusinessHours {
  timezone: string;
  /** Ranges "HH:MM-HH:MM" in the business's local time; a missing day means closed. */
  schedule: Partial<Record<Weekday, string[]>>;
}

export interface AgentProfile {
  name: string;
  greeting: string;
  instructions: string;
  language: string;
  transferNumber: string | null;
  businessHours: BusinessHours | null;
  afterHoursMessage: string | null;
}

export type TurnAction = 'greet' | 'answer' | 'clarify' | 'transfer' | 'message' | 'end';

export interface TranscriptTurn {
  speaker: 'agent' | 'caller';
  text: string;
  at: number;
  citations: string[];
  action: TurnAction | null;
}

export interface ReplyInput {
  agent: AgentProfile;
  index: KnowledgeIndex;
  history: TranscriptTurn[];
  utterance: string;
  /** Current time; when given and the business is closed, transfers become message taking. */
  at?: Date;
}

export interface AgentReply {
  text: string;
  action: TurnAction;
  /** Distinct documentIds the answer was taken from. */
  citations: string[];
  /** 0..1 */
  confidence: number;
  engine: 'default' | 'generative';
  /** Set when the generative engine could not be used for this turn and the default engine answered. */
  fallback_reason?: string;
  /** The message taken, when action is 'message'. */
  message?: string;
  /**
   * Set when a deterministic conversation rule decided the turn (for example the caller asked
   * for a person). Such turns never go to a language model, so they are not fallbacks.
   */
  rule?: ConversationRule;
}

export type ConversationRule =
  | 'transfer_requested'
  | 'message_requested'
  | 'message_taken'
  | 'message_cancelled'
  | 'goodbye'
  | 'small_talk'
  | 'not_understood'
  /** The knowledge does not answer: "I don't have that information", then a transfer or a message. */
  | 'no_information'
  /** Unsure between two readings of the question: asks which one the caller meant. */
  | 'clarify_reading'
  | 'after_hours';

export type Outcome = 'resolved' | 'transferred' | 'message_taken' | 'abandoned';

export interface ScorePart {
  /** 0..100 integer */
  score: number;
  /** Relative weight in `overall`; 0 when the part does not apply to this conversation. */
  weight: number;
  explanation: string;
}

export interface ConversationScore {
  /** 0..100 integer: weighted mean of the parts. */
  overall: number;
  parts: {
    answered_from_knowledge: ScorePart;
    resolution: ScorePart;
    caller_sentiment: ScorePart;
    turns_to_resolution: ScorePart;
  };
  engine: 'default' | 'generative';
  fallback_reason?: string;
}

export interface ReceptionistEngine {
  readonly name: 'default' | 'generative';
  /** After hours => afterHoursMessage (offering to take a message) with action 'end'. */
  greet(agent: AgentProfile, at: Date): { text: string; action: 'greet' | 'end' };
  reply(input: ReplyInput): Promise<AgentReply>;
  score(input: { transcript: TranscriptTurn[]; outcome: Outcome }): Promise<ConversationScore>;
}

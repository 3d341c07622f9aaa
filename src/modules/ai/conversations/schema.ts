// The conversation contract: the Conversation resource (transcript, outcome, score), its
// list filters, and the sandbox's simulated inbound call.
import { Type } from 'typebox';
import { NullableTimestamp, PageQuery, Timestamp } from '../../../platform/schemas.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const OUTCOMES = ['resolved', 'transferred', 'message_taken', 'abandoned'] as const;
export const CONVERSATION_STATUSES = ['in_progress', 'completed'] as const;
const Engine = Type.Union([Type.Literal('default'), Type.Literal('generative')]);

export const TranscriptTurnSchema = Type.Object({
  speaker: Type.Union([Type.Literal('agent'), Type.Literal('caller')]),
  text: Type.String(),
  at: Type.Number({ description: 'Seconds from the moment the call was answered.' }),
  citations: Type.Array(Type.String(), { description: 'Knowledge documents (doc_...) the answer was taken from.' }),
  action: Nullable(Type.Union(['greet', 'answer', 'clarify', 'transfer', 'message', 'end'].map((a) => Type.Literal(a)), {
    description: 'What the agent did with this turn: greet, answer (from knowledge), clarify (asked or small talk), transfer, message (took one), end (said goodbye). null on caller turns.',
  })),
});

const ScorePartSchema = Type.Object({
  score: Type.Integer({ minimum: 0, maximum: 100 }),
  weight: Type.Number({ description: 'Weight in `overall`; 0 when the part does not apply to this conversation.' }),
  explanation: Type.String(),
});

export const ConversationScoreSchema = Type.Object({
  overall: Type.Integer({ minimum: 0, maximum: 100, description: 'Weighted mean of the parts.' }),
  parts: Type.Object({
    answered_from_knowledge: ScorePartSchema,
    resolution: ScorePartSchema,
    caller_sentiment: ScorePartSchema,
    turns_to_resolution: ScorePartSchema,
  }),
  engine: Engine,
  fallback_reason: Type.Optional(Type.String({ description: 'Why the generative engine could not score and the default engine did.' })),
});

export const ConversationSchema = Type.Object(
  {
    id: Type.String({ description: '`conv_` followed by an opaque, time-sortable suffix.', examples: ['conv_01jd8x0v6kf5b9w3t2q1r0p9n8'] }),
    object: Type.Literal('ai_conversation'),
    mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')]),
    agent_id: Type.String(),
    call_id: Type.String({ description: 'The inbound call (call_...) the conversation is held on.' }),
    number_id: Type.String(),
    from: Type.String({ description: 'The caller.' }),
    to: Type.String({ description: 'Your number the caller dialled.' }),
    status: Type.Enum(CONVERSATION_STATUSES),
    outcome: Nullable(Type.Enum(OUTCOMES, {
      description: 'Once completed: resolved (answered from knowledge), transferred (to the agent\'s transfer_number), message_taken, or abandoned (the caller left unhelped).',
    })),
    transcript: Type.Array(TranscriptTurnSchema),
    message: Nullable(Type.String({ description: 'The message the caller left, when one was taken.' })),
    duration_seconds: Nullable(Type.Integer({ description: 'From answer to the end of the last turn, once completed.' })),
    engine: Engine,
    fallbacks: Type.Array(Type.Object({
      turn: Type.Integer({ description: 'Index in `transcript` of the agent turn the default engine answered.' }),
      reason: Type.String(),
    }), { description: 'Turns where the generative engine failed (time-out, error, bad output) and the default engine answered instead.' }),
    score: Nullable(ConversationScoreSchema),
    started_at: Timestamp,
    ended_at: NullableTimestamp,
    scored_at: NullableTimestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Conversation' },
);

export const ConversationListQuery = Type.Object({
  ...PageQuery,
  agent_id: Type.Optional(Type.String({ maxLength: 64 })),
  status: Type.Optional(Type.Enum(CONVERSATION_STATUSES)),
  outcome: Type.Optional(Type.Enum(OUTCOMES)),
  from: Type.Optional(Type.String({ maxLength: 32, description: 'The caller\'s number (E.164).' })),
  score_gte: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: 'Only scored conversations with overall >= this.' })),
  score_lte: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: 'Only scored conversations with overall <= this.' })),
  created_gte: Type.Optional(Type.String({ format: 'date-time', description: 'Only conversations created at or after this time.' })),
  created_lte: Type.Optional(Type.String({ format: 'date-time', description: 'Only conversations created at or before this time.' })),
});

export const InboundCallBody = Type.Object(
  {
    from: Type.String({ format: 'e164', minLength: 2, maxLength: 32, description: 'The simulated caller, E.164.', examples: ['+14155550199'] }),
    to: Type.String({ minLength: 2, maxLength: 32, description: 'An active voice number of the account: answered by its AI agent, or by its flow (voice_url, voice_flow; with neither, a message that it is not set up).' }),
    caller_script: Type.Array(Type.Union([
      Type.String({ minLength: 1, maxLength: 1000, description: 'A line the caller says (to an AI agent: one turn; to a flow: a say step).' }),
      Type.Object({ press: Type.String({ minLength: 1, maxLength: 64, pattern: '^[0-9*#A-Dw]+$', description: 'Keys pressed when a gather listens.', examples: ['1'] }) }, { additionalProperties: false, title: 'CallerPress' }),
      Type.Object({ say: Type.String({ minLength: 1, maxLength: 1000, description: 'Words said when a gather listens.', examples: ['billing please'] }) }, { additionalProperties: false, title: 'CallerSay' }),
      Type.Object({ wait: Type.Number({ exclusiveMinimum: 0, maximum: 3600, description: 'Simulated seconds before the next step.', examples: [3] }) }, { additionalProperties: false, title: 'CallerWait' }),
      Type.Object({ hangup: Type.Literal(true, { description: 'The caller hangs up.' }) }, { additionalProperties: false, title: 'CallerHangup' }),
    ]), {
      maxItems: 50,
      description: 'What the caller does, in order. To an AI agent: lines of text, one per turn; after the last the caller hangs up. '
        + 'To a flow: steps ({"press": "1"}, {"say": "..."}, {"wait": 3}, {"hangup": true}); press and say wait until a gather listens and its prompts end; '
        + 'after the last step the caller stays on the line until the flow hangs up.',
      examples: [[{ wait: 1 }, { press: '1' }, { say: 'billing please' }, { hangup: true }]],
    }),
  },
  { additionalProperties: false },
);

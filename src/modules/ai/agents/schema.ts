// The AI agent contract: the Agent resource and its request bodies. `business_hours` uses
// the engine's format ({timezone, schedule}); its meaning is checked by validateBusinessHours.
import { Type } from 'typebox';
import { Metadata, PageQuery, Timestamp } from '../../../platform/schemas.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const BusinessHoursSchema = Type.Object(
  {
    timezone: Type.String({ description: 'IANA timezone of the business, e.g. America/Los_Angeles.', examples: ['America/Los_Angeles'] }),
    schedule: Type.Record(Type.String(), Type.Array(Type.String({ maxLength: 11 }), { maxItems: 8 }), {
      description: 'Open ranges "HH:MM-HH:MM" (24-hour, local time) by day: mon, tue, wed, thu, fri, sat, sun. A missing day or [] is closed. '
        + 'A range ends after it starts ("24:00" closes at midnight); split ranges that cross midnight across two days.',
      examples: [{ mon: ['09:00-17:00'], sat: ['10:00-13:00'] }],
    }),
  },
  { description: 'When the receptionist transfers callers; outside these hours it plays `after_hours_message` and takes messages. null: always open.' },
);

const TransferNumber = Type.String({ format: 'e164', minLength: 2, maxLength: 32, description: 'E.164 number callers are transferred to when they ask for a person or the agent cannot help.', examples: ['+15035550123'] });

export const AgentSchema = Type.Object(
  {
    id: Type.String({ description: '`agent_` followed by an opaque, time-sortable suffix.', examples: ['agent_01jd8x0v6kf5b9w3t2q1r0p9n8'] }),
    object: Type.Literal('ai_agent'),
    mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')]),
    status: Type.Union([Type.Literal('active'), Type.Literal('paused'), Type.Literal('deleted')], {
      description: 'active answers its numbers; paused does not (calls to its numbers are refused); deleted after DELETE.',
    }),
    name: Type.String(),
    greeting: Type.String({ description: 'The first thing the receptionist says during business hours.' }),
    instructions: Type.String({ description: 'How the receptionist should behave (passed to the generative engine).' }),
    language: Type.String({ description: 'BCP 47 language tag.' }),
    voice: Type.String({ description: 'Text-to-speech voice name.' }),
    transfer_number: Nullable(Type.String()),
    business_hours: Nullable(BusinessHoursSchema),
    after_hours_message: Nullable(Type.String()),
    number_ids: Type.Array(Type.String(), { description: 'Numbers (num_...) this agent answers.' }),
    knowledge: Type.Object({
      documents: Type.Integer({ description: 'Knowledge documents pushed to this agent.' }),
      chunks: Type.Integer({ description: 'Passages they were split into for retrieval.' }),
    }),
    webhook_url: Nullable(Type.String({ description: 'Receives this agent\'s ai.* events (agent, knowledge, conversations), besides your subscriptions.' })),
    metadata: Type.Record(Type.String(), Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Agent' },
);

const fields = {
  greeting: Type.String({ minLength: 1, maxLength: 1000 }),
  instructions: Type.String({ maxLength: 8000 }),
  language: Type.String({ minLength: 2, maxLength: 35, pattern: '^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$' }),
  voice: Type.String({ minLength: 1, maxLength: 64 }),
  after_hours_message: Type.String({ minLength: 1, maxLength: 1000 }),
  number_ids: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 100, uniqueItems: true, description: 'Numbers this agent answers; replaces the current set on update.' }),
  webhook_url: Type.String({ maxLength: 2048 }),
};

export const CreateAgentBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: 'The business or receptionist name, used in default phrases.' }),
    greeting: Type.Optional(fields.greeting),
    instructions: Type.Optional(fields.instructions),
    language: Type.Optional({ ...fields.language, default: 'en' }),
    voice: Type.Optional({ ...fields.voice, default: 'default' }),
    transfer_number: Type.Optional(TransferNumber),
    business_hours: Type.Optional(Nullable(BusinessHoursSchema)), // null (or omitted): always open, as on update
    after_hours_message: Type.Optional(fields.after_hours_message),
    number_ids: Type.Optional(fields.number_ids),
    webhook_url: Type.Optional(fields.webhook_url),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);

export const UpdateAgentBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('paused')])),
    greeting: Type.Optional(fields.greeting),
    instructions: Type.Optional(fields.instructions),
    language: Type.Optional(fields.language),
    voice: Type.Optional(fields.voice),
    transfer_number: Type.Optional(Nullable(TransferNumber)),
    business_hours: Type.Optional(Nullable(BusinessHoursSchema)),
    after_hours_message: Type.Optional(Nullable(fields.after_hours_message)),
    number_ids: Type.Optional(fields.number_ids),
    webhook_url: Type.Optional(Nullable(fields.webhook_url)),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);

export const AgentListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('paused')])),
});

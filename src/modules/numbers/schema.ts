import { Type } from 'typebox';
import { E164, NullableTimestamp, Timestamp } from '../../platform/schemas.ts';

export const Capability = Type.Union([Type.Literal('voice'), Type.Literal('sms'), Type.Literal('mms'), Type.Literal('whatsapp')]);
export const NumberType = Type.Union([Type.Literal('local'), Type.Literal('mobile'), Type.Literal('toll_free')]);
export const NumberStatus = Type.Union([Type.Literal('active'), Type.Literal('porting'), Type.Literal('released')]);
export const WebhookUrl = Type.String({
  format: 'uri', pattern: '^https?://', maxLength: 2048,
  description: 'An http(s) URL that receives this resource\'s events, signed with the account\'s default secret.',
});

export const NumberSchema = Type.Object(
  {
    id: Type.String({ examples: ['num_01jd8x0v6kf5b9w3t2q1r0p9n8'] }),
    object: Type.Literal('number'),
    phone_number: E164,
    country: Type.String({ description: 'ISO 3166-1 alpha-2.' }),
    type: NumberType,
    capabilities: Type.Array(Capability),
    status: NumberStatus,
    temporary: Type.Boolean({ description: 'True for a temporary number provisioned while a port-in runs.' }),
    temporary_for: Type.Union([E164, Type.Null()], { description: 'On a temporary number: the number being ported that it stands in for.' }),
    port_id: Type.Union([Type.String(), Type.Null()], { description: 'The port order that brought this number (ported or temporary).' }),
    friendly_name: Type.Union([Type.String(), Type.Null()]),
    webhook_url: Type.Union([Type.String(), Type.Null()], { description: 'Default webhook_url of messages sent from or received by this number.' }),
    agent_id: Type.Union([Type.String(), Type.Null()], { description: 'The AI agent that answers this number, if any.' }),
    voice_url: Type.Union([Type.String(), Type.Null()], { description: 'Inbound calls: Switchboard POSTs the call here (signed) and runs the flow of the answer (docs/voice-flows.md).' }),
    voice_fallback_url: Type.Union([Type.String(), Type.Null()], { description: 'Asked once when a flow webhook of an inbound call fails; then an apology and hang-up.' }),
    voice_flow: Type.Union([Type.Array(Type.Record(Type.String(), Type.Unknown())), Type.Null()], { description: 'Inbound calls run this stored flow (a Flow, defaults filled in) when there is no voice_url.' }),
    voice_trunk: Type.Union([Type.String(), Type.Null()], { description: 'Live numbers: the SIP trunk (by its name in the operator\'s carriers file) that carries this number\'s calls; null: the default trunk.' }),
    messaging_carrier: Type.Union([Type.String(), Type.Null()], { description: 'Live numbers: the messaging link (SMPP bind, WhatsApp number, HTTP provider; by its name in the carriers file) that carries this number\'s messages; null: the default link for the channel.' }),
    mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')]),
    created_at: Timestamp,
    updated_at: Timestamp,
    released_at: NullableTimestamp,
  },
  { $id: 'Number' },
);

export const AvailableNumberSchema = Type.Object(
  {
    object: Type.Literal('available_number'),
    phone_number: E164,
    country: Type.String(),
    type: NumberType,
    area_code: Type.String(),
    capabilities: Type.Array(Capability),
  },
  { $id: 'AvailableNumber' },
);

export const AvailableQuery = Type.Object({
  country: Type.String({ pattern: '^[A-Za-z]{2}$', default: 'US', description: 'ISO 3166-1 alpha-2; default US.' }),
  area_code: Type.Optional(Type.String({ pattern: '^[0-9]{3}$' })),
  contains: Type.Optional(Type.String({ pattern: '^[0-9]{1,10}$', description: 'Digits the number must contain.' })),
  type: Type.Optional(NumberType),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
});

export const AvailableList = Type.Object({ object: Type.Literal('list'), data: Type.Array(Type.Ref('AvailableNumber')) }, { title: 'AvailableNumberList' });

export const ProvisionBody = Type.Object(
  {
    phone_number: E164,
    friendly_name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    webhook_url: Type.Optional(WebhookUrl),
  },
  { additionalProperties: false },
);

export const UpdateNumberBody = Type.Object(
  {
    friendly_name: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()])),
    webhook_url: Type.Optional(Type.Union([WebhookUrl, Type.Null()])),
    agent_id: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()])),
    voice_url: Type.Optional(Type.Union([WebhookUrl, Type.Null()], { description: 'Answer webhook of inbound calls; null removes it. Not with agent_id.' })),
    voice_fallback_url: Type.Optional(Type.Union([WebhookUrl, Type.Null()], { description: 'Asked once when a flow webhook of an inbound call fails.' })),
    voice_flow: Type.Optional(Type.Union([Type.Array(Type.Any(), { description: 'A flow (the Flow schema), validated with the JSON path of each error.' }), Type.Null()])),
  },
  { additionalProperties: false },
);

export const NumberListQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1 to 100.' }),
  starting_after: Type.Optional(Type.String({ maxLength: 64, description: 'The next_cursor of the previous page.' })),
  status: Type.Optional(NumberStatus),
  phone_number: Type.Optional(E164),
  temporary: Type.Optional(Type.Boolean()),
});

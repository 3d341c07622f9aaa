import { Type } from 'typebox';
import { E164, Metadata, NullableTimestamp, Timestamp } from '../../platform/schemas.ts';
import { MESSAGE_STATUSES } from './states.ts';

export const MAX_BODY_CHARACTERS = 1600;
export const MAX_MEDIA_URLS = 10;

const Channel = Type.Union([Type.Literal('sms'), Type.Literal('mms'), Type.Literal('whatsapp')]);
const Direction = Type.Union([Type.Literal('outbound'), Type.Literal('inbound')]);
const Status = Type.Union(MESSAGE_STATUSES.map((s) => Type.Literal(s)));
const MediaUrl = Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 });

const Template = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 512 }),
    language: Type.String({ minLength: 2, maxLength: 15, description: 'e.g. en_US' }),
    variables: Type.Array(Type.String({ maxLength: 1024 }), { maxItems: 20, default: [] }),
  },
  { additionalProperties: false, description: 'An approved WhatsApp template: the only kind of message allowed outside the 24-hour window.' },
);

export const MessageSchema = Type.Object(
  {
    id: Type.String({ examples: ['msg_01jd8x0v6kf5b9w3t2q1r0p9n8'] }),
    object: Type.Literal('message'),
    mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')]),
    direction: Direction,
    channel: Channel,
    from: E164,
    to: E164,
    number_id: Type.String({ description: 'The account\'s number that sent or received the message.' }),
    body: Type.Union([Type.String(), Type.Null()]),
    media_urls: Type.Array(Type.String()),
    template: Type.Union([Template, Type.Null()]),
    status: Status,
    status_reason: Type.Union([Type.String(), Type.Null()], {
      description: 'Why a live message is still waiting in its status, e.g. queued while its SMPP link cannot bind ("Waiting for the SMPP link ... to bind: ..."). The message goes out on its own once the cause clears; every status change resets this to null.',
    }),
    encoding: Type.Union([Type.Literal('gsm7'), Type.Literal('ucs2')], { description: 'gsm7 unless one character is outside GSM 03.38, then ucs2.' }),
    segments: Type.Integer({ description: 'SMS parts billed: GSM-7 160/153 septets (extension characters count 2), UCS-2 70/67 units. 1 for MMS and WhatsApp.' }),
    error_code: Type.Union([Type.String(), Type.Null()]),
    error_message: Type.Union([Type.String(), Type.Null()]),
    failure: Type.Union([Type.Ref('Failure'), Type.Null()], {
      description: 'Why the message was not sent or delivered (status failed or undelivered): code = error_code, message = error_message, carrier_code = the carrier\'s own code. Null otherwise.',
    }),
    webhook_url: Type.Union([Type.String(), Type.Null()]),
    metadata: Type.Record(Type.String(), Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
    sent_at: NullableTimestamp,
    delivered_at: NullableTimestamp,
    read_at: NullableTimestamp,
    failed_at: NullableTimestamp,
    received_at: NullableTimestamp,
    canceled_at: NullableTimestamp,
  },
  { $id: 'Message' },
);

const sendFields = {
  to: E164,
  body: Type.Optional(Type.String({ maxLength: MAX_BODY_CHARACTERS, description: `Up to ${MAX_BODY_CHARACTERS} characters.` })),
  webhook_url: Type.Optional(Type.String({
    format: 'uri', pattern: '^https?://', maxLength: 2048, description: 'Receives this message\'s events; default: the from number\'s webhook_url.',
  })),
  metadata: Type.Optional(Metadata),
};

export const SendMessageBody = Type.Object(
  {
    from: E164,
    ...sendFields,
    channel: Type.Union([Type.Literal('sms'), Type.Literal('mms'), Type.Literal('whatsapp')], { default: 'sms' }),
    media_urls: Type.Optional(Type.Array(MediaUrl, { minItems: 1, maxItems: MAX_MEDIA_URLS, description: 'MMS and WhatsApp only.' })),
    template: Type.Optional(Template),
  },
  { additionalProperties: false },
);

export const SendSmsBody = Type.Object(sendFields, { additionalProperties: false });

// `+` in a query string decodes to a space: accept "+1...", " 1..." and "1..." alike.
const QueryPhone = Type.String({ format: 'e164', description: 'E.164; encode the + as %2B.' });

export const MessageListQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1 to 100.' }),
  starting_after: Type.Optional(Type.String({ maxLength: 64, description: 'The next_cursor of the previous page.' })),
  from: Type.Optional(QueryPhone),
  to: Type.Optional(QueryPhone),
  status: Type.Optional(Status),
  channel: Type.Optional(Channel),
  direction: Type.Optional(Direction),
  created_gte: Type.Optional(Type.String({ format: 'date-time', description: 'Created at or after (RFC 3339).' })),
  created_lte: Type.Optional(Type.String({ format: 'date-time', description: 'Created at or before (RFC 3339).' })),
});

export const InboundMessageBody = Type.Object(
  {
    from: E164,
    to: Type.String({ format: 'e164', pattern: '^\\+[1-9][0-9]{6,14}$', description: 'A number of the account, E.164.' }),
    body: Type.Optional(Type.String({ maxLength: MAX_BODY_CHARACTERS })),
    channel: Type.Union([Type.Literal('sms'), Type.Literal('mms'), Type.Literal('whatsapp')], { default: 'sms' }),
    media_urls: Type.Optional(Type.Array(MediaUrl, { minItems: 1, maxItems: MAX_MEDIA_URLS })),
  },
  { additionalProperties: false },
);

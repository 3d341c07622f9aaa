import { Type } from 'typebox';
import { NullableTimestamp, PageQuery, Timestamp } from '../../platform/schemas.ts';

const ModeSchema = Type.Union([Type.Literal('sandbox'), Type.Literal('live')]);
const EventPattern = Type.String({ minLength: 1, maxLength: 80, description: '"*", an event type (e.g. call.completed) or "<prefix>.*" (e.g. call.*).' });
const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'https in live mode; sandbox also allows http (e.g. http://localhost:3000/hooks).' });
const GraceSeconds = Type.Integer({
  minimum: 0, maximum: 7 * 86400,
  description: 'How long the previous secret keeps signing (a second signature); default 86400 (24 h); 0 drops it at once.',
});

export const WebhookEndpointSchema = Type.Object(
  {
    id: Type.String({ examples: ['wh_01jd8x0v6kf5b9w3t2q1r0p9n8'] }),
    object: Type.Literal('webhook_endpoint'),
    mode: ModeSchema,
    url: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    events: Type.Array(Type.String(), { description: 'Subscribed event types; ["*"] for all.' }),
    enabled: Type.Boolean(),
    disabled_reason: Type.Union([Type.String(), Type.Null()], { description: '"gone" when disabled after the receiver answered 410; "listener_gone" for a listen session nobody listened to for an hour.' }),
    previous_secret_expires_at: Type.Union([Timestamp, Type.Null()], { description: 'Until then deliveries also carry a signature made with the previous secret.' }),
    transport: Type.Union([Type.Literal('http'), Type.Literal('listen')], {
      description: 'http: deliveries are POSTed to url. listen: a listen session (`switchboard listen`); deliveries go down its event stream and url is where the listener forwards them.',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'WebhookEndpoint' },
);

export const WebhookEndpointWithSecretSchema = Type.Intersect([
  Type.Ref('WebhookEndpoint'),
  Type.Object({ secret: Type.String({ description: 'The whsec_... signing secret. Shown only in this response: store it now.' }) }),
]);

export const CreateWebhookBody = Type.Object(
  {
    url: Url,
    events: Type.Optional(Type.Array(EventPattern, { minItems: 1, maxItems: 100, description: 'Default ["*"] (every event). An empty list is refused: it would subscribe to nothing.' })),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
    enabled: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false },
);

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Type.Array(EventPattern, { minItems: 1, maxItems: 100 })),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
    enabled: Type.Optional(Type.Boolean({ description: 'true re-enables an endpoint disabled after a 410.' })),
  },
  { additionalProperties: false },
);

export const RotateSecretBody = Type.Object({ expires_in_seconds: Type.Optional(GraceSeconds) }, { additionalProperties: false });

export const DeletedWebhookSchema = Type.Object({ id: Type.String(), object: Type.Literal('webhook_endpoint'), deleted: Type.Literal(true) });

export const DefaultSecretSchema = Type.Object({
  object: Type.Literal('webhook_default_secret'),
  mode: ModeSchema,
  secret: Type.String({ description: "Signs deliveries to resources' own webhook_url in this mode." }),
  previous_secret_expires_at: NullableTimestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const WebhookTestSchema = Type.Object(
  {
    id: Type.String({ description: 'The id of the webhook endpoint tested.', examples: ['wh_01jd8x0v6kf5b9w3t2q1r0p9n8'] }),
    object: Type.Literal('webhook_test'),
    url: Type.String(),
    message: Type.String(),
  },
  { $id: 'WebhookTest' },
);

const AttemptSchema = Type.Object({
  attempt: Type.Integer({ description: '1 for the first attempt; replays continue the count.' }),
  attempted_at: Timestamp,
  status_code: Type.Union([Type.Integer(), Type.Null()], { description: 'null when no HTTP answer came (timeout, connection error).' }),
  latency_ms: Type.Integer(),
  response_excerpt: Type.Union([Type.String(), Type.Null()], { description: 'The first 4 KiB of the response body.' }),
  error: Type.Union([Type.String(), Type.Null()]),
  next_attempt_at: NullableTimestamp,
});

export const DeliveryStatusSchema = Type.Union(
  [Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('dead')],
  { description: 'pending: waiting for an attempt; succeeded; dead: dead-lettered after the last attempt; failed: stopped early (410, endpoint disabled or deleted).' },
);

export const WebhookDeliverySchema = Type.Object(
  {
    id: Type.String({ examples: ['dlv_01jd8x0v6kf5b9w3t2q1r0p9n8'] }),
    object: Type.Literal('webhook_delivery'),
    mode: ModeSchema,
    event_id: Type.String(),
    event_type: Type.String(),
    resource_id: Type.String(),
    webhook_id: Type.Union([Type.String(), Type.Null()], { description: "null: the resource's own webhook_url." }),
    url: Type.String(),
    status: DeliveryStatusSchema,
    attempt_count: Type.Integer(),
    replay_count: Type.Integer(),
    next_attempt_at: NullableTimestamp,
    last_attempt_at: NullableTimestamp,
    last_status_code: Type.Union([Type.Integer(), Type.Null()]),
    last_error: Type.Union([Type.String(), Type.Null()]),
    succeeded_at: NullableTimestamp,
    dead_lettered_at: NullableTimestamp,
    created_at: Timestamp,
    attempts: Type.Array(AttemptSchema),
  },
  { $id: 'WebhookDelivery' },
);

export const DeliveryQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(DeliveryStatusSchema),
  event_type: Type.Optional(Type.String({ maxLength: 80 })),
});

export const DeadLetterQuery = Type.Object({
  ...PageQuery,
  webhook_id: Type.Optional(Type.String({ maxLength: 64 })),
  event_type: Type.Optional(Type.String({ maxLength: 80 })),
  created_gte: Type.Optional(Type.String({ format: 'date-time', description: 'Deliveries created at or after this time.' })),
  created_lte: Type.Optional(Type.String({ format: 'date-time', description: 'Deliveries created at or before this time.' })),
});

export const BulkReplayBody = Type.Object(
  {
    since: Type.String({ format: 'date-time', description: 'Replay dead and failed deliveries created at or after this time.' }),
    until: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

export const BulkReplaySchema = Type.Object({
  object: Type.Literal('webhook_replay'),
  replayed: Type.Integer({ description: 'Deliveries put back in the queue (at most 1000 per request).' }),
  has_more: Type.Boolean({ description: 'More remain: call again.' }),
});

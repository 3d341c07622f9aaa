// The contract of listen sessions (`switchboard listen`): create one, hold its event stream
// open, post back each dispatch's result.
import { Type } from 'typebox';
import { Timestamp } from '../../platform/schemas.ts';

const EventPattern = Type.String({ minLength: 1, maxLength: 80, description: '"*", an event type (e.g. call.completed) or "<prefix>.*" (e.g. call.*).' });

export const CreateListenSessionBody = Type.Object(
  {
    forward_to: Type.String({
      minLength: 1, maxLength: 2048, examples: ['http://localhost:3000/hooks'],
      description: 'The local receiver the listener forwards each delivery to. Switchboard never connects to it itself.',
    }),
    events: Type.Optional(Type.Array(EventPattern, { minItems: 1, maxItems: 100, description: 'Default ["*"] (every event). An empty list is refused: it would subscribe to nothing.' })),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
  },
  { additionalProperties: false },
);

export const ListenSessionSchema = Type.Object(
  {
    id: Type.String({ description: 'The session is a webhook endpoint (wh_...) with transport "listen": its deliveries, dead letters and DELETE work as for any endpoint.', examples: ['wh_01jd8x0v6kf5b9w3t2q1r0p9n8'] }),
    object: Type.Literal('webhook_listen_session'),
    mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')]),
    events: Type.Array(Type.String()),
    forward_to: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    secret: Type.String({ description: "The mode's default secret (GET /v1/webhooks/default_secret): it signs the session's deliveries, the same from one session to the next." }),
    stream_url: Type.String({ format: 'uri', description: 'Absolute (on SWITCHBOARD_PUBLIC_URL): GET it with Accept: text/event-stream to receive the deliveries.' }),
    results_url: Type.String({ format: 'uri', description: 'Absolute (on SWITCHBOARD_PUBLIC_URL): POST each delivery\'s result there.' }),
    created_at: Timestamp,
  },
  { $id: 'WebhookListenSession' },
);

export const ListenStreamHeaders = Type.Object({
  'last-event-id': Type.Optional(Type.String({ maxLength: 64, description: 'Resume: the id of the last event received; unanswered deliveries after it are sent again.' })),
});

export const ListenResultBody = Type.Object(
  {
    dispatch_id: Type.String({ minLength: 1, maxLength: 64, description: 'The `dispatch_id` (and SSE id) of the delivery event.' }),
    status_code: Type.Union([Type.Integer({ minimum: 100, maximum: 599 }), Type.Null()], { description: "The local receiver's HTTP status; null when it gave none (connection refused, timeout)." }),
    latency_ms: Type.Integer({ minimum: 0, maximum: 3_600_000 }),
    response_excerpt: Type.Optional(Type.Union([Type.String({ maxLength: 4096 }), Type.Null()], { description: 'The first 4 KiB of the response body.' })),
    error: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()], { description: 'Why there was no status (e.g. "ECONNREFUSED: ...").' })),
    retry_after: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()], { description: "The receiver's Retry-After header, as sent." })),
  },
  { additionalProperties: false },
);

export const ListenResultSchema = Type.Object({
  object: Type.Literal('webhook_listen_result'),
  dispatch_id: Type.String(),
  delivery_id: Type.String({ description: "The delivery whose attempt this result is; the attempt is recorded on it at once (retry or dead letter included)." }),
});

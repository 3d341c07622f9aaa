import { Type } from 'typebox';
import { PageQuery, Timestamp } from '../../platform/schemas.ts';

/** The envelope every webhook carries, as GET /v1/events returns it. */
export const EventSchema = Type.Object(
  {
    id: Type.String({ examples: ['evt_01jd8x0v6kf5b9w3t2q1r0p9n8'], description: 'Stable event id; webhook-id carries it too. De-duplicate on it.' }),
    object: Type.Literal('event', { description: 'What this object is, as on every resource.' }),
    type: Type.String({ description: 'An event type of the catalogue, e.g. call.completed.' }),
    created_at: Timestamp,
    mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')]),
    sequence: Type.Integer({ description: "Per-resource order: 1 for a resource's first event, then 2, 3, ..." }),
    data: Type.Object({ object: Type.Object({}, { additionalProperties: true, description: 'The full resource as GET returns it, after the change.' }) }),
  },
  { $id: 'Event' },
);

export const EventQuery = Type.Object({
  ...PageQuery,
  type: Type.Optional(Type.String({ maxLength: 80, description: 'Only events of this type.' })),
  object_id: Type.Optional(Type.String({ maxLength: 64, description: 'Only events whose data.object is this resource (call_..., msg_..., ...): a call\'s webhook_url points here when nothing else receives its events.', examples: ['call_01jd8x0v6kf5b9w3t2q1r0p9n8'] })),
  resource_id: Type.Optional(Type.String({ maxLength: 64, description: 'The same as object_id (its older name).' })),
  created_gte: Type.Optional(Type.String({ format: 'date-time', description: 'Created at or after this time.' })),
  created_lte: Type.Optional(Type.String({ format: 'date-time', description: 'Created at or before this time.' })),
});

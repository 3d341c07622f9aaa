// The queues contract (TypeBox): the Queue resource, its members, and the bodies of the
// requests that make, change and take from it.
import { Type } from 'typebox';
import { E164, Timestamp } from '../../platform/schemas.ts';
import { QUEUE_LIMITS, WaitFlow, WaitVerb } from '../calls/flows/verbs/enqueue.ts';
import { FLOW_LIMITS, FlowUrl } from '../calls/flows/verbs/common.ts';
import { RoutingSchema } from './routing.ts';

const WaitUrl = FlowUrl('Answers the wait flow (a signed POST with the caller\'s `queue` position and wait), asked at the start of each pass.');

/** Ceiling of max_size: a queue holds at most this many callers at once. */
export const MAX_QUEUE_SIZE = 1000;
export const DEFAULT_QUEUE_SIZE = 100;

const QueueName = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9 ._-]*$', description: 'Unique per account and mode; flows name the queue by it.', examples: ['support'] });
const MaxSize = Type.Integer({ minimum: 1, maximum: MAX_QUEUE_SIZE, description: `Callers that may wait at once; one more is refused (the enqueue result \`full\`). Default ${DEFAULT_QUEUE_SIZE}.` });
const MaxWait = Type.Integer({ minimum: 1, maximum: QUEUE_LIMITS.maxWaitSeconds, description: 'A caller waiting this long leaves with `timeout` (an enqueue verb\'s own max_wait_seconds wins).' });

export const QueueSchema = Type.Object({
  id: Type.String({ examples: ['queue_01jd8x0v6kf5b9w3t2q1r0p9n8'] }),
  object: Type.Literal('queue'),
  mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')]),
  name: Type.String(),
  max_size: Type.Integer(),
  max_wait_seconds: Type.Union([Type.Integer(), Type.Null()]),
  wait_flow: Type.Array(WaitVerb, { description: 'What callers hear while they wait, looped (unless their enqueue verb brings its own); [] when the queue has none.' }),
  wait_url: Type.Union([Type.String(), Type.Null()], { description: 'Answers the wait flow instead, asked at the start of each pass.' }),
  current_size: Type.Integer({ description: 'Callers waiting now.' }),
  average_wait_seconds: Type.Integer({ description: 'Average of how long the callers waiting now have waited (0 when none).' }),
  oldest_wait_seconds: Type.Integer({ description: 'How long the longest waiting caller has waited (0 when none).' }),
  routing: Type.Union([RoutingSchema, Type.Null()], { description: 'How waiting callers are offered to workers (null: they wait for a dequeue).' }),
  created_at: Timestamp,
  updated_at: Timestamp,
}, { $id: 'Queue' });

export const QueueMemberSchema = Type.Object({
  object: Type.Literal('queue_member'),
  call_id: Type.String(),
  queue_id: Type.String(),
  status: Type.Union(['waiting', 'reserved', 'bridged', 'left'].map((s) => Type.Literal(s)), {
    description: 'waiting; reserved: a dequeue to a call in progress holds it until that call\'s flow takes it; bridged: taken and connected; left: its stay ended (`result` says how).',
  }),
  position: Type.Union([Type.Integer(), Type.Null()], { description: '1 is next; null once it is no longer waiting.' }),
  priority: Type.Integer(),
  wait_seconds: Type.Integer({ description: 'How long it has waited (until it was taken or left).' }),
  enqueued_at: Timestamp,
  result: Type.Union([Type.Union(['bridged', 'timeout', 'full', 'hangup', 'leave', 'error'].map((r) => Type.Literal(r))), Type.Null()], { description: 'How its stay ended (null while in the queue).' }),
  bridged_call_id: Type.Union([Type.String(), Type.Null()], { description: 'The call in progress that took it (reserved or bridged).' }),
  dequeued_to: Type.Union([Type.String(), Type.Null()], { description: 'The number dialled for it by a dequeue with `to`.' }),
}, { $id: 'QueueMember' });

const WaitFields = {
  wait_flow: Type.Optional(WaitFlow),
  wait_url: Type.Optional(WaitUrl),
};

export const CreateQueueBody = Type.Object({
  name: QueueName,
  max_size: Type.Optional(MaxSize),
  max_wait_seconds: Type.Optional(MaxWait),
  ...WaitFields,
  routing: Type.Optional(RoutingSchema),
}, { additionalProperties: false, description: 'At most one of wait_flow and wait_url; with neither, callers hear a short hold message, looped.' });

export const UpdateQueueBody = Type.Object({
  name: Type.Optional(QueueName),
  max_size: Type.Optional(MaxSize),
  max_wait_seconds: Type.Optional(Type.Union([MaxWait, Type.Null()])),
  wait_flow: Type.Optional(Type.Array(WaitVerb, { maxItems: QUEUE_LIMITS.waitVerbs, description: 'The new wait flow; [] removes it.' })),
  wait_url: Type.Optional(Type.Union([WaitUrl, Type.Null()])),
  routing: Type.Optional(Type.Union([RoutingSchema, Type.Null()], { description: 'New routing settings (replacing the old ones); null stops routing.' })),
}, { additionalProperties: false, description: 'Changes apply to callers who join from now on.' });

export const QueueListQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1 to 100.' }),
  starting_after: Type.Optional(Type.String({ maxLength: 64, description: 'The next_cursor of the previous page.' })),
  name: Type.Optional(Type.String({ maxLength: 64, description: 'Only the queue of this name.' })),
}, { additionalProperties: false });

export const MemberParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  call_id: Type.String({ minLength: 1, maxLength: 64, description: 'The waiting call, or `front` for the next caller (by priority, then wait).' }),
});

export const DequeueBody = Type.Union([
  Type.Object({
    to: E164,
    caller_id: Type.Optional(E164),
    timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: FLOW_LIMITS.dialRingSeconds, default: 30, description: 'Seconds to let the number ring.' })),
    time_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: FLOW_LIMITS.dialTimeLimitSeconds, default: FLOW_LIMITS.dialTimeLimitSeconds, description: 'Seconds the two may talk.' })),
  }, { additionalProperties: false, title: 'DequeueDial', description: 'Dial this number and bridge the caller to it (as a flow\'s dial); its caller ID is the caller\'s `from` unless caller_id says otherwise.' }),
  Type.Object({
    call_id: Type.String({ pattern: '^call_[0-9a-z]+$', maxLength: 64, description: 'A call in progress of this account and mode (an agent): its flow is replaced by a `dequeue` of this caller, which bridges the two.' }),
    time_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: FLOW_LIMITS.dialTimeLimitSeconds, description: 'Seconds the two may talk.' })),
  }, { additionalProperties: false, title: 'DequeueToCall' }),
], { description: 'Exactly one of: `to` (dial and bridge) or `call_id` (bridge to a call in progress).' });

export const DeletedQueueSchema = Type.Object({ id: Type.String(), object: Type.Literal('queue'), deleted: Type.Literal(true) }, { title: 'DeletedQueue' });

// `enqueue`: the caller waits in a queue (the queues module, src/modules/queues) hearing its
// wait flow, looped, until a dequeue bridges it, it waits too long, it leaves (a `leave` in
// the wait flow, DELETE .../members/{call_id}), or it hangs up. The flow waits on the verb
// like a transfer waits on its transfer: the queues module closes its log entry with the
// result and goes on (the action_url, else the next verb).
import { Type, type Static } from 'typebox';
import { FlowUrl } from './common.ts';
import { LeaveVerb } from './leave.ts';
import { PauseVerb } from './pause.ts';
import { PlayVerb } from './play.ts';
import { SayVerb } from './say.ts';
import { defineVerb, type FlowRuntime, type VerbStep } from './verb.ts';

/** Bounds of queues and their wait flows. */
export const QUEUE_LIMITS = {
  priority: 999,
  defaultPriority: 500,
  waitVerbs: 20,
  maxWaitSeconds: 86_400,
} as const;

/** A verb of a wait flow: what a waiting caller hears, and `leave`. */
export const WaitVerb = Type.Union([
  Type.Object({ say: SayVerb }, { additionalProperties: false, title: 'say' }),
  Type.Object({ play: PlayVerb }, { additionalProperties: false, title: 'play' }),
  Type.Object({ pause: PauseVerb }, { additionalProperties: false, title: 'pause' }),
  Type.Object({ leave: LeaveVerb }, { additionalProperties: false, title: 'leave' }),
]);
export type WaitVerb = Static<typeof WaitVerb>;

export const WaitFlow = Type.Array(WaitVerb, {
  minItems: 1,
  maxItems: QUEUE_LIMITS.waitVerbs,
  description: 'What a waiting caller hears, looped until it is bridged or leaves: say, play, pause and leave. A say\'s text may hold '
    + '{{queue.position}} (1 is next), {{queue.size}}, {{queue.wait_seconds}} and {{queue.estimated_wait_seconds}}.',
});

export const QueueRef = Type.String({ minLength: 1, maxLength: 64, description: 'The queue, by its name or its id (queue_...).', examples: ['support'] });

export const EnqueueVerb = Type.Object({
  queue: QueueRef,
  priority: Type.Optional(Type.Integer({ minimum: 0, maximum: QUEUE_LIMITS.priority, default: QUEUE_LIMITS.defaultPriority, description: 'Lower is taken first; equal priorities go longest waiting first.' })),
  wait_flow: Type.Optional(WaitFlow),
  wait_url: Type.Optional(FlowUrl('Answers the wait flow (a signed POST with the caller\'s `queue` position and wait), asked at the start of each pass; default the queue\'s.')),
  max_wait_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: QUEUE_LIMITS.maxWaitSeconds, description: 'Leave with `timeout` after waiting this long; default the queue\'s.' })),
  action_url: Type.Optional(FlowUrl('Receives the result (a signed POST, `reason: "enqueue"`: bridged, timeout, full, hangup, leave or error); its answer is the flow that runs next. Without it the flow goes on.')),
}, { additionalProperties: false, description: 'Wait in a queue, hearing its wait flow, until a dequeue bridges the caller or it leaves.' });
export type EnqueueBody = Static<typeof EnqueueVerb>;

/** data.object of call.queue.joined and call.queue.left; what an enqueue's action_url receives. */
export const CallQueueSchema = Type.Object({
  object: Type.Literal('call_queue'),
  call_id: Type.String(),
  queue_id: Type.Union([Type.String(), Type.Null()], { description: 'Null when the queue named does not exist (result error).' }),
  queue_name: Type.String(),
  result: Type.Union([Type.Union(['bridged', 'timeout', 'full', 'hangup', 'leave', 'error'].map((r) => Type.Literal(r))), Type.Null()], {
    description: 'Null on joining. bridged: a dequeue connected it (told once the bridge ends); timeout: max_wait_seconds passed; full: the queue was at max_size; '
      + 'hangup: the caller hung up; leave: a leave verb or DELETE .../members/{call_id}; error: the queue does not exist, or the bridge could not be made.',
  }),
  position: Type.Union([Type.Integer(), Type.Null()], { description: 'On joining: 1 is next.' }),
  priority: Type.Integer(),
  wait_seconds: Type.Number({ description: 'Seconds it waited in the queue (0 on joining).' }),
  detail: Type.Union([Type.String(), Type.Null()], { description: 'Why, for error.' }),
}, { $id: 'CallQueue' });

/** How the enqueue and dequeue verbs hand calls to the queues (implemented by the queues module). */
export interface FlowQueues {
  /** The caller joins (or is refused: full, no such queue); the verb's entry stays open while it waits. */
  enqueue(step: VerbStep, body: EnqueueBody, opId: string): Promise<void>;
  /** The agent's call takes a caller (the next, or a named one) and is bridged to it, or settles at once (timeout). */
  dequeue(step: VerbStep, body: { queue: string; call_id?: string | undefined; time_limit?: number | undefined; action_url?: string | undefined }, opId: string): Promise<void>;
}

declare module './verb.ts' {
  interface FlowRuntime {
    queues(): FlowQueues;
  }
}

export const enqueue = defineVerb({
  name: 'enqueue',
  schema: EnqueueVerb,
  resultSchema: CallQueueSchema,
  postsResult: true,
  urls: (body) => [
    ...waitFlowUrls(body.wait_flow),
    ...(body.wait_url !== undefined ? [{ path: 'wait_url', url: body.wait_url }] : []),
    ...(body.action_url !== undefined ? [{ path: 'action_url', url: body.action_url }] : []),
  ],
  async run(flow: FlowRuntime, step, body, opId) {
    await flow.queues().enqueue(step, body, opId);
  },
});

/** The audio URLs of a wait flow's plays, with their paths in it (the URL policy judges them when the flow is given). */
export function waitFlowUrls(verbs: readonly WaitVerb[] | undefined): Array<{ path: string; url: string }> {
  return (verbs ?? []).flatMap((verb, j) => ('play' in verb ? [{ path: `wait_flow[${j}].play.url`, url: verb.play.url }] : []));
}

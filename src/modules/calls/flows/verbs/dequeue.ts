// `dequeue`: an agent's call takes a caller waiting in a queue (the next by priority then
// wait, or a named call_id) and the two are bridged until one hangs up; the flow then goes
// on (the action_url, else the next verb). An empty queue is the result `timeout` at once.
// The taking is the queues module's (src/modules/queues): of two dequeues racing for one
// caller, on any node, exactly one gets it.
import { Type } from 'typebox';
import { FLOW_LIMITS, FlowUrl } from './common.ts';
import { QueueRef } from './enqueue.ts';
import { defineVerb } from './verb.ts';

export const DequeueVerb = Type.Object({
  queue: QueueRef,
  call_id: Type.Optional(Type.String({ pattern: '^call_[0-9a-z]+$', maxLength: 64, description: 'Take this caller rather than the next one.', examples: ['call_01jd8x0v6kf5b9w3t2q1r0p9n8'] })),
  time_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: FLOW_LIMITS.dialTimeLimitSeconds, default: FLOW_LIMITS.dialTimeLimitSeconds, description: 'Seconds the two may talk before the bridge is cut (both flows go on).' })),
  action_url: Type.Optional(FlowUrl('Receives the result (a signed POST, `reason: "dequeue"`: bridged, timeout when no caller waited, hangup, error); its answer is the flow that runs next. Without it the flow goes on.')),
}, { additionalProperties: false, description: 'Take a caller from a queue (the next, or a named call) and bridge it to this call.' });

/** What a dequeue's action_url receives (and its log entry shows). */
export const CallDequeueSchema = Type.Object({
  object: Type.Literal('call_dequeue'),
  call_id: Type.String({ description: 'The agent\'s call (this one).' }),
  queue_id: Type.Union([Type.String(), Type.Null()]),
  result: Type.Union(['bridged', 'timeout', 'hangup', 'error'].map((r) => Type.Literal(r)), {
    description: 'bridged: the two talked until one hung up or the time_limit; timeout: no caller was waiting; hangup: the caller hung up as it was taken; error: no such queue or caller.',
  }),
  caller_call_id: Type.Union([Type.String(), Type.Null()], { description: 'The caller taken.' }),
  talk_seconds: Type.Number(),
}, { $id: 'CallDequeue' });

export const dequeue = defineVerb({
  name: 'dequeue',
  schema: DequeueVerb,
  resultSchema: CallDequeueSchema,
  postsResult: true,
  urls: (body) => (body.action_url !== undefined ? [{ path: 'action_url', url: body.action_url }] : []),
  async run(flow, step, body, opId) {
    await flow.queues().dequeue(step, body, opId);
  },
});

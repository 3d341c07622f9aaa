// `dial`: call a number and bridge the caller to it. Busy and no answer are outcomes, not a
// dropped call: call.dial.completed says which and, with an action_url, the flow request
// that decides what next.
import { Type } from 'typebox';
import type { MediaResult } from '../../../../telephony/media-ops.ts';
import type { CallRow } from '../../tables.ts';
import { FLOW_LIMITS, FlowUrl, Phone } from './common.ts';
import { defineVerb, plainResult } from './verb.ts';

export const DialVerb = Type.Object({
  to: Phone('The number to call and connect the caller to.'),
  caller_id: Type.Optional(Phone('The number the dialled party sees; default the call\'s `from`.')),
  timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: FLOW_LIMITS.dialRingSeconds, default: 30, description: 'Seconds to let the number ring (then no_answer).' })),
  time_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: FLOW_LIMITS.dialTimeLimitSeconds, default: FLOW_LIMITS.dialTimeLimitSeconds, description: 'Seconds the two may talk before the bridge is cut (the call goes on with the next verb).' })),
  action_url: Type.Optional(FlowUrl('Receives the outcome (a signed POST, `reason: "dial"`); its answer is the flow that runs next. Without it the flow goes on.')),
}, { additionalProperties: false, description: 'Call a number and bridge the caller to it; busy and no answer are outcomes, not a dropped call.' });

/** data.object of call.dial.completed. */
export const CallDialSchema = Type.Object({
  object: Type.Literal('call_dial'),
  call_id: Type.String(),
  index: Type.Integer({ description: 'Position of the dial verb in the flow.' }),
  to: Type.String({ description: 'The number dialled.' }),
  outcome: Type.Union(['completed', 'busy', 'no_answer', 'failed', 'interrupted'].map((r) => Type.Literal(r)), {
    description: 'completed: it answered and the two talked until one side or the time_limit ended it; busy, no_answer, failed: it did not connect; interrupted: a new flow (POST /v1/calls/{id}/flow) cut it.',
  }),
  talk_seconds: Type.Number({ description: 'Seconds the two talked (0 unless it answered).' }),
}, { $id: 'CallDial' });

/** The object of call.dial.completed (the CallDial schema), also what a dial's action_url receives. */
export function dialOf(call: CallRow, index: number, to: string, result: Extract<MediaResult, { kind: 'bridge' }>) {
  return {
    object: 'call_dial' as const,
    call_id: call.id,
    index,
    to,
    outcome: result.outcome,
    talk_seconds: result.talkSeconds,
  };
}

export const dial = defineVerb({
  name: 'dial',
  schema: DialVerb,
  resultSchema: CallDialSchema,
  urls: (body) => (body.action_url !== undefined ? [{ path: 'action_url', url: body.action_url }] : []),
  op: (body, call) => ({
    kind: 'bridge',
    to: body.to,
    // The dialled party sees the call's own `from`: the caller of an inbound call, our number on an outbound one.
    callerId: body.caller_id ?? call.from_number,
    ringTimeoutSeconds: body.timeout ?? 30,
    timeLimitSeconds: body.time_limit ?? FLOW_LIMITS.dialTimeLimitSeconds,
  }),
  logResult: (body, result) => (result.kind === 'bridge' ? { to: body.to, outcome: result.outcome, talk_seconds: result.talkSeconds } : plainResult(result)),
  postsResult: true,
  async finished(flow, { trx, call, state, clock }, body, result) {
    if (result.kind !== 'bridge') return;
    const object = dialOf(call, state.pc, body.to, result);
    await flow.emit(trx, call, 'call.dial.completed', object, clock);
    return { actionUrl: body.action_url, result: object };
  },
});

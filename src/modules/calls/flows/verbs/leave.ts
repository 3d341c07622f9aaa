// `leave`: a caller waiting in a queue leaves it, and its flow goes on after the `enqueue`
// (whose action_url is told `leave`). It means something only inside a wait flow (an
// enqueue's `wait_flow`, a queue's, or a `wait_url`'s answer), which the queues module runs;
// reached in an ordinary flow there is no queue to leave, so it is logged failed and the flow
// goes on, as TwiML ignores a <Leave> outside a wait URL.
import { Type } from 'typebox';
import { closeEntry } from '../state.ts';
import { defineVerb } from './verb.ts';

export const LeaveVerb = Type.Object({}, { additionalProperties: false, description: 'Inside a wait flow only: leave the queue; the flow goes on after the enqueue verb.' });

export const leave = defineVerb({
  name: 'leave',
  schema: LeaveVerb,
  async run(flow, { trx, call, state, log, clock, now }) {
    closeEntry(log, now, { reason: 'failed', detail: 'leave only runs inside an enqueue wait flow; this call is not waiting in a queue here.' });
    await flow.advance(trx, call, { ...state, pc: state.pc + 1 }, log, clock);
  },
});

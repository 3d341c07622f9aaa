// `hangup`: the flow ends the call. The smallest verb: a schema and the steps it runs.
import { Type } from 'typebox';
import { closeEntry, saveFlow } from '../state.ts';
import { defineVerb } from './verb.ts';

export const HangupVerb = Type.Object({}, { additionalProperties: false, description: 'End the call.' });

export const hangup = defineVerb({
  name: 'hangup',
  schema: HangupVerb,
  async run(flow, { trx, call, state, log, clock, now }) {
    closeEntry(log, now, {});
    const saved = await saveFlow(trx, call, { ...state, op: null, pc: state.pc + 1, ended: state.failed ? 'apology' : 'hangup_verb' }, log);
    await flow.calls.endFromFlow(trx, saved, clock);
  },
});

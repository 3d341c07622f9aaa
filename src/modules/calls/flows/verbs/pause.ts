// `pause`: silence for a while; also a gather's prompt.
import { Type } from 'typebox';
import { FLOW_LIMITS } from './common.ts';
import { defineVerb } from './verb.ts';

export const PauseVerb = Type.Object({
  seconds: Type.Number({ exclusiveMinimum: 0, maximum: FLOW_LIMITS.pauseSeconds, description: 'Seconds of silence.' }),
}, { additionalProperties: false, description: 'Wait in silence.' });

export const pause = defineVerb({
  name: 'pause',
  schema: PauseVerb,
  op: (body) => ({ kind: 'silence', seconds: body.seconds }),
});

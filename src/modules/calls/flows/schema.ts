// The flow language: a call flow is a JSON array of verbs, each an object with exactly one
// key naming the verb (`{"say": {...}}`), like Vonage's NCCO or Twilio's TwiML in JSON. The
// schema is published as the `Flow` component of the OpenAPI document; validate.ts checks a
// document against it and names the JSON path of each error (`flow[2].say.loop`). Each verb's
// own schema lives in its file under verbs/ (listed in verbs/registry.ts).
import { Type } from 'typebox';
import { FLOW_LIMITS } from './verbs/common.ts';
import { VERBS, VERB_NAMES, type Verb, type VerbName } from './verbs/registry.ts';

export { FLOW_LIMITS, VERB_NAMES, type Verb, type VerbName };

/** Every verb's body schema, by name. */
export const VERB_SCHEMAS = Object.fromEntries(VERBS.map((v) => [v.name, v.schema])) as { [D in (typeof VERBS)[number] as D['name']]: D['schema'] };

export const FlowSchema = Type.Array(
  Type.Union(VERBS.map((v) => Type.Object({ [v.name]: v.schema }, { additionalProperties: false, title: v.name }))),
  {
    $id: 'Flow',
    minItems: 1,
    maxItems: FLOW_LIMITS.verbs,
    description: 'A call flow: verbs run in order; each is an object with one key naming the verb. See docs/voice-flows.md.',
  },
);

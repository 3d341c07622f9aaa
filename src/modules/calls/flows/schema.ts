// The flow language: a call flow is a JSON array of verbs, each an object with exactly one
// key naming the verb (`{"say": {...}}`), like Vonage's NCCO or Twilio's TwiML in JSON. The
// schema is published as the `Flow` component of the OpenAPI document; validate.ts checks a
// document against it and names the JSON path of each error (`flow[2].say.loop`).
import { Type, type Static } from 'typebox';

/** Bounds of one flow document, and of the webhooks a call may chain. */
export const FLOW_LIMITS = {
  /** Flow webhooks answered in a row without a verb that plays, gathers or dials finishing between. */
  hops: 10,
  verbs: 100,
  /** Serialised size of one document. */
  bytes: 64 * 1024,
  sayChars: 4000,
  loop: 10,
  pauseSeconds: 600,
  /** Prompts nested in one gather. */
  prompts: 10,
  gatherTimeoutSeconds: 60,
  numDigits: 64,
  hints: 50,
  /** dial: seconds the dialled number may ring, and seconds the bridge may last. */
  dialRingSeconds: 120,
  dialTimeLimitSeconds: 14_400,
  /** record: the longest recording one verb makes. */
  recordSeconds: 3600,
} as const;

const Loop = Type.Integer({ minimum: 1, maximum: FLOW_LIMITS.loop, default: 1, description: 'How many times to repeat it.' });

export const SayVerb = Type.Object({
  text: Type.String({ minLength: 1, maxLength: FLOW_LIMITS.sayChars, description: 'What to speak (text-to-speech).' }),
  voice: Type.Optional(Type.String({ maxLength: 64, description: 'A voice name; the default voice when unknown.' })),
  language: Type.Optional(Type.String({ maxLength: 35, pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$', description: 'BCP 47, e.g. en-US.' })),
  loop: Type.Optional(Loop),
}, { additionalProperties: false, description: 'Speak text to the other party.' });

export const PauseVerb = Type.Object({
  seconds: Type.Number({ exclusiveMinimum: 0, maximum: FLOW_LIMITS.pauseSeconds, description: 'Seconds of silence.' }),
}, { additionalProperties: false, description: 'Wait in silence.' });

/** A URL Switchboard POSTs to (signed like every webhook) for the next flow. */
const FlowUrl = (description: string) => Type.String({ format: 'uri', maxLength: 2048, description, examples: ['https://example.com/voice/menu'] });

export const RedirectVerb = Type.Object({
  url: FlowUrl('Answers the flow that replaces this one (a signed POST).'),
}, { additionalProperties: false, description: 'Continue with the flow another URL answers.' });

export const PlayVerb = Type.Object({
  url: Type.String({ format: 'uri', maxLength: 2048, description: 'A 16-bit PCM WAV (any rate, at most 10 MiB), fetched with a GET under the webhook URL policy and cached by URL.', examples: ['https://example.com/audio/welcome.wav'] }),
  loop: Type.Optional(Loop),
}, { additionalProperties: false, description: 'Play an audio file.' });

/** What a gather may play while it listens. */
const Prompt = Type.Union([
  Type.Object({ say: SayVerb }, { additionalProperties: false, title: 'say' }),
  Type.Object({ play: PlayVerb }, { additionalProperties: false, title: 'play' }),
  Type.Object({ pause: PauseVerb }, { additionalProperties: false, title: 'pause' }),
]);

export const GatherVerb = Type.Object({
  input: Type.Optional(Type.Array(Type.Enum(['dtmf', 'speech']), {
    minItems: 1, maxItems: 2, uniqueItems: true, default: ['dtmf'], description: 'What to listen for: keypresses, speech, or both.',
  })),
  num_digits: Type.Optional(Type.Integer({ minimum: 1, maximum: FLOW_LIMITS.numDigits, description: 'Stop after this many digits.' })),
  finish_on_key: Type.Optional(Type.String({ pattern: '^[0-9*#]?$', default: '#', description: 'A key that ends the input (not part of the digits); "" for none.' })),
  timeout: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: FLOW_LIMITS.gatherTimeoutSeconds, default: 5, description: 'Seconds to wait for the first input after the prompts, and between digits.' })),
  speech_timeout: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 10, default: 2, description: 'Seconds of silence that end an utterance.' })),
  hints: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: FLOW_LIMITS.hints, default: [], description: 'Words and phrases likely to be said (speech recogniser hints).' })),
  barge_in: Type.Optional(Type.Boolean({ default: true, description: 'Input stops the prompts at once.' })),
  prompts: Type.Optional(Type.Array(Prompt, { maxItems: FLOW_LIMITS.prompts, default: [], description: 'Played while listening, in order.' })),
  action_url: Type.Optional(FlowUrl('Receives the result (a signed POST); its answer is the flow that runs next. Without it the flow goes on.')),
}, { additionalProperties: false, description: 'Collect keypresses and/or speech.' });

const Phone = (description: string) => Type.String({ pattern: '^\\+[1-9][0-9]{6,14}$', description: `${description} E.164, e.g. +14155550100.`, examples: ['+14155550100'] });

export const DialVerb = Type.Object({
  to: Phone('The number to call and connect the caller to.'),
  caller_id: Type.Optional(Phone('The number the dialled party sees; default the call\'s `from`.')),
  timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: FLOW_LIMITS.dialRingSeconds, default: 30, description: 'Seconds to let the number ring (then no_answer).' })),
  time_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: FLOW_LIMITS.dialTimeLimitSeconds, default: FLOW_LIMITS.dialTimeLimitSeconds, description: 'Seconds the two may talk before the bridge is cut (the call goes on with the next verb).' })),
  action_url: Type.Optional(FlowUrl('Receives the outcome (a signed POST, `reason: "dial"`); its answer is the flow that runs next. Without it the flow goes on.')),
}, { additionalProperties: false, description: 'Call a number and bridge the caller to it; busy and no answer are outcomes, not a dropped call.' });

export const TransferVerb = Type.Object({
  to: Phone('Where to hand the call over to (a blind transfer, as POST /v1/calls/{id}/transfer).'),
  timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: FLOW_LIMITS.dialRingSeconds, default: 30, description: 'Seconds to let the target ring.' })),
}, { additionalProperties: false, description: 'Blind-transfer the other party; when it connects the flow is done, when it fails the flow goes on.' });

export const RecordVerb = Type.Object({
  max_length: Type.Optional(Type.Integer({ minimum: 1, maximum: FLOW_LIMITS.recordSeconds, default: FLOW_LIMITS.recordSeconds, description: 'Seconds at most.' })),
  silence_timeout: Type.Optional(Type.Number({ minimum: 0, maximum: 60, default: 5, description: 'Seconds of silence that end it; 0: silence never does.' })),
  finish_on_key: Type.Optional(Type.String({ pattern: '^[0-9*#]*$', maxLength: 12, default: '1234567890*#', description: 'Any of these keys ends it (not recorded); "" for none.' })),
  beep: Type.Optional(Type.Boolean({ default: true, description: 'A half-second beep first.' })),
  transcribe: Type.Optional(Type.Boolean({ default: false, description: 'Give the recording a transcript of what was said.' })),
}, { additionalProperties: false, description: 'Record the other party (a message): a normal recording resource, with its events.' });

export const AgentVerb = Type.Object({
  agent_id: Type.String({ pattern: '^agent_[0-9a-z]+$', maxLength: 64, description: 'The AI agent (GET /v1/ai/agents) that takes the call over.', examples: ['agent_01jd8x0v6kf5b9w3t2q1r0p9n8'] }),
}, { additionalProperties: false, description: 'Hand the call to an AI agent: it greets the caller and holds the conversation; the rest of the flow does not run.' });

export const HangupVerb = Type.Object({}, { additionalProperties: false, description: 'End the call.' });

/** Every verb's body schema, by name. */
export const VERB_SCHEMAS = {
  say: SayVerb,
  play: PlayVerb,
  pause: PauseVerb,
  gather: GatherVerb,
  redirect: RedirectVerb,
  record: RecordVerb,
  dial: DialVerb,
  transfer: TransferVerb,
  agent: AgentVerb,
  hangup: HangupVerb,
} as const;

export type VerbName = keyof typeof VERB_SCHEMAS;
export const VERB_NAMES = Object.keys(VERB_SCHEMAS) as VerbName[];

export type Verb =
  | { say: Static<typeof SayVerb> }
  | { play: Static<typeof PlayVerb> }
  | { pause: Static<typeof PauseVerb> }
  | { gather: Static<typeof GatherVerb> }
  | { redirect: Static<typeof RedirectVerb> }
  | { record: Static<typeof RecordVerb> }
  | { dial: Static<typeof DialVerb> }
  | { transfer: Static<typeof TransferVerb> }
  | { agent: Static<typeof AgentVerb> }
  | { hangup: Static<typeof HangupVerb> };

export const FlowSchema = Type.Array(
  Type.Union(VERB_NAMES.map((name) => Type.Object({ [name]: VERB_SCHEMAS[name] }, { additionalProperties: false, title: name }))),
  {
    $id: 'Flow',
    minItems: 1,
    maxItems: FLOW_LIMITS.verbs,
    description: 'A call flow: verbs run in order; each is an object with one key naming the verb. See docs/voice-flows.md.',
  },
);

// `say`: speak text to the other party (text-to-speech); also a gather's prompt.
import { Type } from 'typebox';
import { FLOW_LIMITS, Loop } from './common.ts';
import { defineVerb } from './verb.ts';

export const SayVerb = Type.Object({
  text: Type.String({ minLength: 1, maxLength: FLOW_LIMITS.sayChars, description: 'What to speak (text-to-speech).' }),
  voice: Type.Optional(Type.String({ maxLength: 64, description: 'A voice name; the default voice when unknown.' })),
  language: Type.Optional(Type.String({ maxLength: 35, pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$', description: 'BCP 47, e.g. en-US.' })),
  loop: Type.Optional(Loop),
}, { additionalProperties: false, description: 'Speak text to the other party.' });

export const say = defineVerb({
  name: 'say',
  schema: SayVerb,
  op: (body) => ({ kind: 'speak', text: body.text, voice: body.voice, language: body.language, loop: body.loop ?? 1 }),
});

// `play`: an audio file from a URL (fetched and cached first, flow-audio.ts); also a gather's
// prompt. A play whose audio cannot be fetched is skipped, its log entry saying why.
import { Type } from 'typebox';
import { Loop } from './common.ts';
import { defineVerb } from './verb.ts';

export const PlayVerb = Type.Object({
  url: Type.String({ format: 'uri', maxLength: 2048, description: 'A 16-bit PCM WAV (any rate, at most 10 MiB), fetched with a GET under the webhook URL policy and cached by URL.', examples: ['https://example.com/audio/welcome.wav'] }),
  loop: Type.Optional(Loop),
}, { additionalProperties: false, description: 'Play an audio file.' });

export const play = defineVerb({
  name: 'play',
  schema: PlayVerb,
  urls: (body) => [{ path: 'url', url: body.url }],
  audio: (body) => [body.url],
  withoutAudio: 'skip',
  op(body, _call, audio) {
    const file = audio.get(body.url);
    if (!file) throw new Error(`play ${body.url} was not fetched before it ran`);
    return { kind: 'play', url: body.url, path: file.path, seconds: file.seconds, loop: body.loop ?? 1 };
  },
});

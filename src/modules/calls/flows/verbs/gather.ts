// `gather`: collect keypresses and/or speech while prompts (say, play, pause) play. Its result
// is call.gather.completed and, with an action_url, the flow request that decides what next.
// A prompt whose audio could not be fetched is left out: the gather still listens.
import { Type, type Static } from 'typebox';
import type { MediaResult, PromptOp } from '../../../../telephony/media-ops.ts';
import type { CallRow } from '../../tables.ts';
import type { CachedAudio } from '../cached-audio.ts';
import { FLOW_LIMITS, FlowUrl } from './common.ts';
import { PauseVerb, pause } from './pause.ts';
import { PlayVerb, play } from './play.ts';
import { SayVerb, say } from './say.ts';
import { defineVerb, plainResult } from './verb.ts';

/** What a gather may play while it listens (and a conference's wait_flow). */
export const Prompt = Type.Union([
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

export type Prompt = Static<typeof Prompt>;

export function promptUrl(prompt: Prompt): string | null {
  return 'play' in prompt ? prompt.play.url : null;
}

export function promptOp(prompt: Prompt, call: CallRow, audio: ReadonlyMap<string, CachedAudio>): PromptOp {
  if ('play' in prompt) return play.op!(prompt.play, call, audio) as PromptOp;
  if ('say' in prompt) return say.op!(prompt.say, call, audio) as PromptOp;
  return pause.op!(prompt.pause, call, audio) as PromptOp;
}

/** data.object of call.gather.completed. */
export const CallGatherSchema = Type.Object({
  object: Type.Literal('call_gather'),
  call_id: Type.String(),
  index: Type.Integer({ description: 'Position of the gather verb in the flow.' }),
  digits: Type.String({ description: 'Keys pressed, without the finish key; "" when none.' }),
  speech: Type.Union([Type.String(), Type.Null()], { description: 'The words said, when speech was gathered (the sandbox hears the exact text).' }),
  confidence: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], { description: 'Recogniser confidence for speech (1 in the sandbox).' }),
  reason: Type.Union(['finish_key', 'num_digits', 'timeout', 'speech', 'interrupted', 'hangup'].map((r) => Type.Literal(r)), {
    description: 'What ended it: the finish key, num_digits reached, timeout (with or without digits), an utterance, a new flow, or the hang-up.',
  }),
}, { $id: 'CallGather' });

/** The object of call.gather.completed (the CallGather schema), also what an action_url receives. */
export function gatherOf(call: CallRow, index: number, result: Extract<MediaResult, { kind: 'collect' }>) {
  return {
    object: 'call_gather' as const,
    call_id: call.id,
    index,
    digits: result.digits,
    speech: result.speech,
    confidence: result.confidence,
    reason: result.reason,
  };
}

export const gather = defineVerb({
  name: 'gather',
  schema: GatherVerb,
  resultSchema: CallGatherSchema,
  urls(body) {
    const found = body.action_url !== undefined ? [{ path: 'action_url', url: body.action_url }] : [];
    (body.prompts ?? []).forEach((p, j) => {
      const url = promptUrl(p);
      if (url !== null) found.push({ path: `prompts[${j}].play.url`, url });
    });
    return found;
  },
  audio: (body) => (body.prompts ?? []).flatMap((p) => promptUrl(p) ?? []),
  withoutAudio: 'run',
  unheard: (body, media) => (media.hearsSpeech === false && body.input?.includes('speech') ? [{
    path: 'input',
    message: 'listens for speech, but this server has no speech-to-text endpoint for live calls (speech.stt in the carriers file); gather dtmf only',
    code: 'not_allowed',
  }] : []),
  op(body, call, audio) {
    const input = body.input ?? ['dtmf'];
    return {
      kind: 'collect',
      prompts: (body.prompts ?? []).filter((p) => { const url = promptUrl(p); return url === null || audio.has(url); }).map((p) => promptOp(p, call, audio)),
      bargeIn: body.barge_in ?? true,
      dtmf: input.includes('dtmf'),
      speech: input.includes('speech'),
      numDigits: body.num_digits,
      finishOnKey: body.finish_on_key ?? '#',
      timeoutSeconds: body.timeout ?? 5,
      speechTimeoutSeconds: body.speech_timeout ?? 2,
      hints: body.hints ?? [],
    };
  },
  logResult(_body, result) {
    if (result.kind !== 'collect') return plainResult(result);
    // The utterance's times are for the AI receptionist's transcript, not the flow log.
    const { kind: _kind, utterance: _utterance, ...rest } = result;
    return rest;
  },
  postsResult: true,
  async finished(flow, { trx, call, state, clock }, body, result) {
    if (result.kind !== 'collect') return;
    const object = gatherOf(call, state.pc, result);
    await flow.emit(trx, call, 'call.gather.completed', object, clock);
    return { actionUrl: body.action_url, result: object };
  },
});

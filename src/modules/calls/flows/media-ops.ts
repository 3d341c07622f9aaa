// How verbs become media operations, and how operation results become what the flow log,
// events and action_urls show. Pure functions: the interpreter does the ordering.
import type { MediaOp, MediaResult, PromptOp } from '../../../carriers/media-port.ts';
import type { CallRow } from '../tables.ts';
import { FLOW_LIMITS, type Verb } from './schema.ts';
import { verbName } from './state.ts';
import type { CachedAudio } from './flow-audio.ts';

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

/** A finished operation as its flow log entry shows it. */
export function logResultOf(result: MediaResult, verb: Verb | undefined, recordingId: string | null): Record<string, unknown> {
  if (result.kind === 'record') return { recording_id: recordingId, reason: result.reason, duration_seconds: result.durationSeconds };
  if (result.kind === 'bridge') return { to: verb && 'dial' in verb ? verb.dial.to : null, outcome: result.outcome, talk_seconds: result.talkSeconds };
  if (result.kind === 'collect') {
    // The utterance's times are for the AI receptionist's transcript, not the flow log.
    const { kind: _kind, utterance: _utterance, ...rest } = result;
    return rest;
  }
  const { kind: _kind, ...rest } = result;
  return rest;
}

/**
 * The operation a verb runs. `audio` holds the cached files of its play URLs (flow-audio.ts);
 * a gather's play prompt whose audio could not be fetched is left out (the gather still listens).
 */
export function mediaOpOf(verb: Verb, call: CallRow, audio: ReadonlyMap<string, CachedAudio>): MediaOp {
  if ('gather' in verb) {
    const g = verb.gather;
    const input = g.input ?? ['dtmf'];
    return {
      kind: 'collect',
      prompts: (g.prompts ?? []).filter((p) => !('play' in p) || audio.has((p as { play: { url: string } }).play.url)).map((p) => promptOf(p as Verb, audio)),
      bargeIn: g.barge_in ?? true,
      dtmf: input.includes('dtmf'),
      speech: input.includes('speech'),
      numDigits: g.num_digits,
      finishOnKey: g.finish_on_key ?? '#',
      timeoutSeconds: g.timeout ?? 5,
      speechTimeoutSeconds: g.speech_timeout ?? 2,
      hints: g.hints ?? [],
    };
  }
  if ('record' in verb) {
    const r = verb.record;
    return {
      kind: 'record',
      // The recording is created just before the operation runs (the interpreter fills these in).
      recordingId: '',
      format: { channels: 1, sampleRate: 8000 },
      maxSeconds: r.max_length ?? FLOW_LIMITS.recordSeconds,
      silenceTimeoutSeconds: r.silence_timeout ?? 5,
      finishOnKey: r.finish_on_key ?? '1234567890*#',
      beep: r.beep ?? true,
      transcribe: r.transcribe ?? false,
    };
  }
  if ('dial' in verb) {
    const d = verb.dial;
    return {
      kind: 'bridge',
      to: d.to,
      // The dialled party sees the call's own `from`: the caller of an inbound call, our number on an outbound one.
      callerId: d.caller_id ?? call.from_number,
      ringTimeoutSeconds: d.timeout ?? 30,
      timeLimitSeconds: d.time_limit ?? FLOW_LIMITS.dialTimeLimitSeconds,
    };
  }
  return promptOf(verb, audio);
}

function promptOf(verb: Verb, audio: ReadonlyMap<string, CachedAudio>): PromptOp {
  if ('play' in verb) {
    const file = audio.get(verb.play.url);
    if (!file) throw new Error(`play ${verb.play.url} was not fetched before it ran`);
    return { kind: 'play', url: verb.play.url, path: file.path, seconds: file.seconds, loop: verb.play.loop ?? 1 };
  }
  if ('say' in verb) return { kind: 'speak', text: verb.say.text, voice: verb.say.voice, language: verb.say.language, loop: verb.say.loop ?? 1 };
  if ('pause' in verb) return { kind: 'silence', seconds: verb.pause.seconds };
  throw new Error(`verb ${verbName(verb)} has no media operation`);
}

// What a waiting caller hears: its wait flow (say, play, pause, leave), one verb at a time as media
// operations of its own on the caller's call, looped until it leaves the queue. The operations'
// ids start with WAIT_OP_PREFIX, so the flow interpreter hands their ends to the queues module
// (its queueWait port, src/modules/wiring.ts) while the caller's flow waits on its enqueue verb. A `say` may name the
// caller's place: {{queue.position}}, {{queue.size}}, {{queue.wait_seconds}},
// {{queue.estimated_wait_seconds}}, filled in as each pass reaches it. A `play`'s file is
// fetched (URL policy, cached by URL) as the flows' play verb fetches it, before its step runs.
import type { MediaOp } from '../../telephony/media-ops.ts';
import type { WaitVerb } from '../calls/flows/verbs/enqueue.ts';
import type { CachedAudio } from '../calls/flows/cached-audio.ts';

export const WAIT_OP_PREFIX = 'queue:';

/** Heard when neither the enqueue verb nor its queue says what to play. */
export const DEFAULT_WAIT_FLOW: WaitVerb[] = [
  { say: { text: 'Please hold. Your call will be answered by the next available person.' } },
  { pause: { seconds: 15 } },
];

/** The three kinds of operation a stay runs on calls: a wait step, the caller's bridge, the taking call's side of it. */
export type StayOp = { memberId: string; part: 'wait'; step: number } | { memberId: string; part: 'bridge' } | { memberId: string; part: 'agent' };

export function waitOpId(memberId: string, pass: number, step: number): string {
  return `${WAIT_OP_PREFIX}${memberId}:w${pass}.${step}`;
}

export function bridgeOpId(memberId: string): string {
  return `${WAIT_OP_PREFIX}${memberId}:b`;
}

export function agentOpId(memberId: string): string {
  return `${WAIT_OP_PREFIX}${memberId}:a`;
}

export function parseStayOp(opId: string): StayOp | null {
  const m = /^queue:([a-z]+_[0-9a-z]+):(?:w(\d+)\.(\d+)|(b)|(a))$/.exec(opId);
  if (!m) return null;
  if (m[4]) return { memberId: m[1]!, part: 'bridge' };
  if (m[5]) return { memberId: m[1]!, part: 'agent' };
  return { memberId: m[1]!, part: 'wait', step: Number(m[3]) };
}

/** Where the caller stands, for the placeholders of its wait flow (and a wait_url's request). */
export interface PlaceFacts {
  position: number;
  size: number;
  waitSeconds: number;
  estimatedWaitSeconds: number;
}

export function fillPlaceholders(text: string, facts: PlaceFacts): string {
  const values: Record<string, number> = {
    position: facts.position, size: facts.size, wait_seconds: facts.waitSeconds, estimated_wait_seconds: facts.estimatedWaitSeconds,
  };
  return text.replace(/\{\{\s*queue\.([a-z_]+)\s*\}\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

/**
 * What a play whose file could not be fetched is heard as: a pause, so a wait flow of nothing
 * but such plays still takes time to loop (and asks for the file again next pass).
 */
export const UNFETCHED_PLAY_SECONDS = 5;

/** A verb a wait_url may answer: what a wait flow may hold. */
export function isWaitVerb(verb: object): verb is WaitVerb {
  return 'say' in verb || 'play' in verb || 'pause' in verb || 'leave' in verb;
}

/** The media operation of a wait verb (a play's with its fetched file, null if it could not be fetched), or `leave`. */
export function waitOp(verb: WaitVerb, facts: PlaceFacts, audio: CachedAudio | null): MediaOp | 'leave' {
  if ('leave' in verb) return 'leave';
  if ('pause' in verb) return { kind: 'silence', seconds: verb.pause.seconds };
  if ('play' in verb) {
    return audio
      ? { kind: 'play', url: verb.play.url, path: audio.path, seconds: audio.seconds, loop: verb.play.loop ?? 1 }
      : { kind: 'silence', seconds: UNFETCHED_PLAY_SECONDS };
  }
  return { kind: 'speak', text: fillPlaceholders(verb.say.text, facts), voice: verb.say.voice, language: verb.say.language, loop: verb.say.loop ?? 1 };
}

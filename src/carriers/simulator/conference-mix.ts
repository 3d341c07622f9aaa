// What each participant of a sandbox conference hears, and what its recording holds, from the
// conference's timeline: the seats as they were from each change on (epochs), the words each
// participant said and the announcements, in conference seconds. The rule of who hears whom is
// the kernel's (telephony/conference.ts `hears`); this file applies it word by word and adds
// the tones: the hold tone (or the participant's wait audio) while the conference waits or the
// participant is held, and a beep when a participant with `beep` joins or leaves. Pure
// functions: conference-media.ts stores the timeline and renders it.
import { hears, type ConferenceSeat, type ConferenceStatus } from '../../telephony/conference.ts';
import type { PromptOp } from '../../telephony/media-ops.ts';
import { speakerOn, type CallChannel, type TranscriptSegment } from '../../telephony/transcript.ts';
import { addSound, opSeconds, promptSound, type CallSound, type PlayedAudio } from './flow-sound.ts';
import { BEEP_SECONDS, HOLD_TONE_SECONDS, type ToneFiles } from './tones.ts';

export interface MixEpoch {
  /** Conference seconds from which these seats hold. */
  at: number;
  status: ConferenceStatus;
  seats: ConferenceSeat[];
}

export interface SimConferenceState {
  /** The conference's second 0, on the account's clock (ISO). */
  startedAt: string;
  epochs: MixEpoch[];
  /** What each participant said, in conference seconds. */
  said: Array<{ callId: string; segment: TranscriptSegment }>;
  /** Announcements (POST /v1/conferences/{id}/announce), heard by every participant not on hold. */
  announced: TranscriptSegment[];
  /** Audio announcements (`play`), heard like spoken ones; absent in timelines from before they existed. */
  announcedPlays?: PlayedAudio[];
  /** Each participant's wait audio (its conference verb's wait_flow; null: the hold tone). */
  waits: Record<string, PromptOp[] | null>;
  /** The conference recording: one span in conference seconds. */
  captures: Record<string, { format: { channels: 1 | 2; sampleRate: 8000 | 16000 }; start: number; end: number | null; generation: number }>;
}

const round3 = (s: number) => Math.round(s * 1000) / 1000;

function epochAt(epochs: readonly MixEpoch[], t: number): MixEpoch | undefined {
  let found: MixEpoch | undefined;
  for (const epoch of epochs) {
    if (epoch.at <= t + 1e-9) found = epoch;
    else break;
  }
  return found;
}

const seatOf = (epoch: MixEpoch, callId: string) => epoch.seats.find((s) => s.callId === callId);

/**
 * What `listener` (a call id, or null for the room: the conference recording) heard until
 * `until`, in conference seconds, on `channel` of its recording.
 */
export function heardBy(state: SimConferenceState, listener: string | null, until: number, channel: CallChannel, tones: ToneFiles): CallSound {
  const segments: TranscriptSegment[] = [];
  // A word is heard when, at its start, the conference is in progress and the rule lets it through.
  const audible = (speaker: string | null) => (t: number) => {
    const epoch = epochAt(state.epochs, t);
    if (!epoch || epoch.status !== 'in_progress') return false;
    const me = listener === null ? null : seatOf(epoch, listener);
    if (me === undefined) return false;
    if (speaker === null) return !me?.hold;
    const them = seatOf(epoch, speaker);
    return them !== undefined && hears(me, them);
  };
  for (const { callId, segment } of state.said) segments.push(...keepWords(segment, audible(callId), channel));
  for (const segment of state.announced) segments.push(...keepWords(segment, audible(null), channel));
  // An announced file is heard whole by whoever hears the room when it starts.
  const plays = (state.announcedPlays ?? []).filter((play) => play.start < until && audible(null)(play.start)).map((play) => ({ ...play, channel }));
  let sound: CallSound = { segments, plays };
  state.epochs.forEach((epoch, i) => {
    const end = Math.min(state.epochs[i + 1]?.at ?? until, until);
    const me = listener === null ? null : seatOf(epoch, listener);
    if (me === undefined || epoch.status === 'completed') return;
    if (me !== null && end > epoch.at && (epoch.status === 'waiting' || me.hold)) {
      const wait = epoch.status === 'waiting' ? state.waits[me.callId] ?? null : null;
      sound = addSound(sound, waitSound(wait, epoch.at, end, channel, tones));
    }
    const before = state.epochs[i - 1];
    if (!before || epoch.status !== 'in_progress' || me?.hold) return;
    // Who came or went at this change: their beep, heard by the others (and the room).
    const moved = [...epoch.seats.filter((s) => !seatOf(before, s.callId)), ...before.seats.filter((s) => !seatOf(epoch, s.callId))];
    if (moved.some((s) => s.beep && s.callId !== listener)) {
      sound = addSound(sound, { plays: [{ channel, path: tones.beep, fileSeconds: BEEP_SECONDS, start: epoch.at, end: round3(epoch.at + BEEP_SECONDS), offset: 0 }] });
    }
  });
  return sound;
}

/** The words of `segment` that `heard` lets through, as segments on `channel`. */
function keepWords(segment: TranscriptSegment, heard: (t: number) => boolean, channel: CallChannel): TranscriptSegment[] {
  const out: TranscriptSegment[] = [];
  let run: TranscriptSegment['words'] = [];
  const flush = () => {
    if (run.length === 0) return;
    out.push({ channel, speaker: speakerOn(channel), start: run[0]!.start, end: run.at(-1)!.end, text: run.map((w) => w.text).join(' '), words: run });
    run = [];
  };
  for (const word of segment.words) {
    if (heard(word.start)) run.push(word);
    else flush();
  }
  flush();
  return out;
}

/** The hold tone, or the wait prompts looped, from `start` to `end`. */
function waitSound(wait: PromptOp[] | null, start: number, end: number, channel: CallChannel, tones: ToneFiles): CallSound {
  const cycle = wait ? round3(wait.reduce((sum, p) => sum + opSeconds(p), 0)) : 0;
  if (!wait || cycle <= 0) {
    return { segments: [], plays: [{ channel, path: tones.hold, fileSeconds: HOLD_TONE_SECONDS, start, end, offset: 0 }] };
  }
  let sound: CallSound = { segments: [], plays: [] };
  for (let at = start; at < end; at = round3(at + cycle)) sound = addSound(sound, promptSound(wait, at, channel));
  // The last pass is cut where the wait ends.
  return {
    segments: sound.segments.flatMap((s) => keepWords(s, (t) => t < end, channel)).map((s) => ({ ...s, words: s.words.map((w) => ({ ...w, end: Math.min(w.end, end) })) })),
    plays: sound.plays.filter((p) => p.start < end).map((p) => ({ ...p, end: Math.min(p.end, end) })),
  };
}

/** `sound` moved by `shift` seconds, keeping what falls in [from, to). */
export function shiftSound(sound: CallSound, shift: number, from: number, to: number): CallSound {
  const segments = sound.segments.flatMap((s) => {
    const words = s.words.filter((w) => w.start >= from && w.start < to).map((w) => ({ text: w.text, start: round3(w.start + shift), end: round3(Math.min(w.end, to) + shift) }));
    return words.length === 0 ? [] : [{ ...s, start: words[0]!.start, end: words.at(-1)!.end, text: words.map((w) => w.text).join(' '), words }];
  });
  const plays = sound.plays.flatMap((p) => {
    const start = Math.max(p.start, from);
    const end = Math.min(p.end, to);
    return end <= start ? [] : [{ ...p, start: round3(start + shift), end: round3(end + shift), offset: round3(p.offset + start - p.start) }];
  });
  return { segments, plays };
}

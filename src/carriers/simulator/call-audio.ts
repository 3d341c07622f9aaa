// What a simulated call sounds like: each leg (the called party, then whoever it was
// transferred to) speaks its scripted dialogue from the moment it was connected. A
// recording captures some spans of that timeline; its transcript is the words heard in
// those spans (clipped at span edges) moved to recording time, and its audio is
// synthesized from exactly that transcript, slice by slice, so words and sound line up by
// construction and a recording of any length is produced in bounded memory.
import type { TranscriptSegment, TranscriptWord } from '../../telephony/transcript.ts';
import type { RecordingFormat } from '../../telephony/media-ops.ts';
import { simulatedDialogue, type DialogueKind } from './conversation-script.ts';
import { synthesizeFrames, timeDialogue } from './speech.ts';
import { SPEECH_START_SECONDS } from './magic-numbers.ts';

export interface SimulatedLeg {
  /** Talk seconds at which this party was connected. */
  at: number;
  party: string;
  dialogue: DialogueKind;
}

const round3 = (s: number) => Math.round(s * 1000) / 1000;

/**
 * The whole call's speech in talk seconds: each leg speaks from the moment it was connected
 * (its dialogue is already timed from there), and its words stop where the next leg starts.
 * The legs stay on the call's one timeline: nothing is moved here.
 */
export function callTimeline(callId: string, legs: SimulatedLeg[]): TranscriptSegment[] {
  return legs.flatMap((leg, i) => {
    const until = legs[i + 1]?.at ?? Infinity;
    const segments = timeDialogue(simulatedDialogue(leg.dialogue, `${callId}:${i}`), { startAt: leg.at + SPEECH_START_SECONDS });
    return clip(segments, leg.at, until, 0);
  });
}

/** Words overlapping [from, to), clipped to it, then moved by `shift` seconds. */
function clip(segments: TranscriptSegment[], from: number, to: number, shift: number): TranscriptSegment[] {
  const out: TranscriptSegment[] = [];
  for (const segment of segments) {
    const words: TranscriptWord[] = segment.words
      .filter((w) => w.end > from && w.start < to)
      .map((w) => ({
        text: w.text,
        start: round3(Math.max(w.start, from) + shift),
        end: round3(Math.min(w.end, to) + shift),
      }))
      .filter((w) => w.end > w.start);
    if (words.length === 0) continue;
    out.push({
      channel: segment.channel,
      speaker: segment.speaker,
      start: words[0]!.start,
      end: words.at(-1)!.end,
      text: words.map((w) => w.text).join(' '),
      words,
    });
  }
  return out;
}

/** The transcript of `spans` of the call, in recording seconds, and the recording's length. */
export function recordingTranscript(
  callId: string, legs: SimulatedLeg[], spans: ReadonlyArray<{ start: number; end: number | null }>,
): { transcript: TranscriptSegment[]; durationSeconds: number } {
  const timeline = callTimeline(callId, legs);
  const transcript: TranscriptSegment[] = [];
  let offset = 0;
  for (const span of spans) {
    const end = span.end ?? span.start;
    // This span's first instant lands where the spans before it end in the recording.
    transcript.push(...clip(timeline, span.start, end, offset - span.start));
    offset = round3(offset + Math.max(0, end - span.start));
  }
  return { transcript, durationSeconds: offset };
}

/**
 * Frames [fromFrame, fromFrame + count) of the recording's audio, synthesised from its
 * transcript (so words and sound line up by construction). Only the segments that overlap
 * the slice are synthesised, so slicing a long recording costs the same per frame.
 */
export function recordingFrames(
  transcript: readonly TranscriptSegment[], format: RecordingFormat, seed: string, fromFrame: number, count: number,
): Int16Array[] {
  const from = fromFrame / format.sampleRate;
  const to = (fromFrame + count) / format.sampleRate;
  const overlapping = transcript.filter((s) => s.end > from && s.start < to);
  return synthesizeFrames(overlapping, { ...format, seed }, fromFrame, count);
}

// The transcript of a live recording, from the speech-to-text endpoint: each party's side of
// the call (the call's own file keeps them apart: far end on channel 0, us on 1) is sent in
// windows of at most five minutes (bounded memory, and under the endpoints' upload limits),
// windows without voice are skipped, and the words' timestamps, shifted to where their window
// sits in the recording, become segments: a party's run of words without a pause of a second
// or more. Redaction works on these segments like on the sandbox's.
import type { FileHandle } from 'node:fs/promises';
import type { SpeechToText } from '../speech/speech-to-text.ts';
import type { Speaker, TranscriptSegment, TranscriptWord } from '../../telephony/transcript.ts';
import { CALL_FILE_RATE, readCallChannel } from '../../media/call-file.ts';

const WINDOW_SECONDS = 300;
/** A pause this long between two words starts a new segment. */
const SEGMENT_GAP_SECONDS = 1;
/** A 20 ms frame louder than this (RMS, about -36 dBFS, as voice activity) means the window has voice. */
const VOICED_RMS = 520;

export interface TranscribedSide {
  /** Channel of the call's file: 0 far end, 1 near end (us). */
  fileChannel: 0 | 1;
  /** Channel of the recording it lands on, and who that party is. */
  channel: 0 | 1;
  speaker: Speaker;
}

/**
 * Words said in `spans` (talk seconds of the call's file) on each side, timed from the
 * recording's first frame (the spans laid end to end, as the recording is).
 */
export async function transcribeSpans(file: FileHandle, stt: SpeechToText, spans: { start: number; end: number }[], sides: TranscribedSide[]): Promise<TranscriptSegment[]> {
  const segments: TranscriptSegment[] = [];
  for (const side of sides) {
    const words: TranscriptWord[] = [];
    let offset = 0;
    for (const span of spans) {
      for (let from = span.start; from < span.end; from += WINDOW_SECONDS) {
        const to = Math.min(span.end, from + WINDOW_SECONDS);
        const pcm = await readSide(file, from, to, side.fileChannel);
        if (hasVoice(pcm)) {
          const heard = await stt.transcribe(pcm);
          const shift = offset + (from - span.start);
          for (const w of heard.words) words.push({ text: w.text, start: round(shift + w.start), end: round(shift + w.end) });
        }
      }
      offset += span.end - span.start;
    }
    segments.push(...segmentsOf(words, side));
  }
  return segments.sort((a, b) => a.start - b.start || a.channel - b.channel);
}

function segmentsOf(words: TranscriptWord[], side: TranscribedSide): TranscriptSegment[] {
  const out: TranscriptSegment[] = [];
  let run: TranscriptWord[] = [];
  const flush = () => {
    if (run.length === 0) return;
    out.push({ channel: side.channel, speaker: side.speaker, start: run[0]!.start, end: run.at(-1)!.end, text: run.map((w) => w.text).join(' '), words: run });
    run = [];
  };
  for (const word of words) {
    if (run.length > 0 && word.start - run.at(-1)!.end >= SEGMENT_GAP_SECONDS) flush();
    run.push(word);
  }
  flush();
  return out;
}

function readSide(file: FileHandle, from: number, to: number, channel: 0 | 1): Promise<Int16Array> {
  const first = Math.round(from * CALL_FILE_RATE);
  return readCallChannel(file, first, Math.round(to * CALL_FILE_RATE) - first, channel);
}

function hasVoice(pcm: Int16Array): boolean {
  for (let at = 0; at + 160 <= pcm.length; at += 160) {
    let sum = 0;
    for (let i = at; i < at + 160; i++) sum += (pcm[i] as number) ** 2;
    if (Math.sqrt(sum / 160) > VOICED_RMS) return true;
  }
  return false;
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

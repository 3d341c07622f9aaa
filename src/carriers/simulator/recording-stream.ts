// Writes a sandbox recording's audio into its sink: synthesised from its transcript (so words
// and sound line up by construction) plus the files it played, in one-second-aligned slices
// that yield to the event loop, at most RENDER_CHUNK_SECONDS per call so no job holds its
// lease for long. Used for calls' recordings (media.ts) and conferences' (conference-media.ts).
import { readFile } from 'node:fs/promises';
import type { RecordingSinks } from '../media-port.ts';
import type { RecordingFormat } from '../../telephony/media-ops.ts';
import type { TranscriptSegment } from '../../telephony/transcript.ts';
import { LINE_RATE } from '../../media/call-file.ts';
import { toLineRate } from '../../media/resample.ts';
import { readPcm16Wav } from '../../media/wav.ts';
import { recordingFrames } from './call-audio.ts';
import { mixPlays, type PlayedAudio } from './flow-sound.ts';

/** Audio produced per render job (then the next job continues the file). */
export const RENDER_CHUNK_SECONDS = 600;
/** Audio synthesised between two yields to the event loop. */
const SLICE_SECONDS = 2;

export interface RecordingAudio {
  accountId: string;
  recordingId: string;
  format: RecordingFormat;
  transcript: TranscriptSegment[];
  plays: readonly PlayedAudio[];
  durationSeconds: number;
  /** False: the recording gets no transcript. */
  transcribe: boolean;
}

/**
 * Writes up to RENDER_CHUNK_SECONDS of `audio` from `fromFrame`, then closes the sink (null:
 * done) or suspends it (the frame the next job continues from). A failure on the last attempt
 * aborts the file.
 */
export async function streamRecording(sinks: RecordingSinks, audio: RecordingAudio, fromFrame: number, lastAttempt: boolean): Promise<number | null> {
  const { format } = audio;
  const files = new PlayedFiles(format.sampleRate);
  const total = Math.round(audio.durationSeconds * format.sampleRate);
  const sink = await sinks.open(audio.accountId, audio.recordingId, format, fromFrame);
  try {
    let frame = sink.frameCount;
    const until = Math.min(total, frame + RENDER_CHUNK_SECONDS * format.sampleRate);
    const slice = SLICE_SECONDS * format.sampleRate;
    while (frame < until) {
      const count = Math.min(slice - (frame % slice), until - frame);
      const frames = recordingFrames(audio.transcript, format, audio.recordingId, frame, count);
      mixPlays(frames, await files.load(audio.plays), format.sampleRate, frame, (path) => files.pcm(path));
      await sink.write(frames);
      frame += count;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (frame >= total) {
      sink.words(audio.transcribe ? audio.transcript : []);
      await sink.close();
      return null;
    }
    await sink.suspend();
    return frame;
  } catch (err) {
    if (lastAttempt) await sink.abort(`producing the audio failed: ${(err as Error).message}`);
    else await sink.suspend().catch(() => {});
    throw err;
  }
}

/**
 * The WAV files a recording's plays need, read once per render job at the recording's rate.
 * A file gone from the cache (the data dir was cleared) plays as silence.
 */
class PlayedFiles {
  private readonly byPath = new Map<string, Int16Array>();

  constructor(private readonly sampleRate: number) {}

  /** Reads the files of `plays` not read yet; returns `plays`. */
  async load(plays: readonly PlayedAudio[]): Promise<readonly PlayedAudio[]> {
    for (const { path } of plays) {
      if (this.byPath.has(path)) continue;
      try {
        const { sampleRate, samples } = readPcm16Wav(await readFile(path));
        this.byPath.set(path, resample(samples, sampleRate, this.sampleRate));
      } catch {
        this.byPath.set(path, new Int16Array(0));
      }
    }
    return plays;
  }

  pcm(path: string): Int16Array {
    return this.byPath.get(path) ?? new Int16Array(0);
  }
}

function resample(samples: Int16Array, from: number, to: number): Int16Array {
  if (from === to) return samples;
  if (to === LINE_RATE) return toLineRate(samples, from);
  // Recordings are 8 kHz; any other rate takes the nearest sample.
  return Int16Array.from({ length: Math.floor((samples.length * to) / from) }, (_, i) => samples[Math.floor((i * from) / to)] ?? 0);
}

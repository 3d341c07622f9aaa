// The call's own file, as the media worker writes it for every live call (wav-stream.ts): a WAV
// of 8 kHz, 16-bit, two channels (the far end on 0, what we sent on 1) after the canonical
// header. Recordings are copied out of it while it grows and its channels are read back for
// speech-to-text.
import type { FileHandle } from 'node:fs/promises';
import { BYTES_PER_SAMPLE, WAV_HEADER_BYTES } from './wav.ts';

/** The phone line's sample rate: G.711 audio, prompts, recordings. */
export const LINE_RATE = 8000;
export const CALL_FILE_FORMAT = { sampleRate: LINE_RATE, channels: 2 } as const;
export const CALL_FILE_RATE = CALL_FILE_FORMAT.sampleRate;
/** Bytes of one frame (a sample of each channel). */
export const CALL_FILE_FRAME_BYTES = CALL_FILE_FORMAT.channels * BYTES_PER_SAMPLE;

/** Whole frames on disk in a call file of `bytes` bytes. */
export function callFileFrames(bytes: number): number {
  return Math.max(0, Math.floor((bytes - WAV_HEADER_BYTES) / CALL_FILE_FRAME_BYTES));
}

/** Both channels of `frames` frames from frame `first` (fewer when the file ends sooner); `chunk` is reused when big enough. */
export async function readCallFrames(file: FileHandle, first: number, frames: number, chunk?: Buffer): Promise<{ far: Int16Array; near: Int16Array }> {
  const want = Math.max(0, frames) * CALL_FILE_FRAME_BYTES;
  const bytes = chunk && chunk.length >= want ? chunk : Buffer.alloc(want);
  const { bytesRead } = await file.read(bytes, 0, want, WAV_HEADER_BYTES + first * CALL_FILE_FRAME_BYTES);
  const got = Math.floor(bytesRead / CALL_FILE_FRAME_BYTES);
  const far = new Int16Array(got);
  const near = new Int16Array(got);
  for (let i = 0; i < got; i++) {
    far[i] = bytes.readInt16LE(i * CALL_FILE_FRAME_BYTES);
    near[i] = bytes.readInt16LE(i * CALL_FILE_FRAME_BYTES + BYTES_PER_SAMPLE);
  }
  return { far, near };
}

/** `frames` frames from frame `first` of one channel (fewer when the file ends sooner). */
export async function readCallChannel(file: FileHandle, first: number, frames: number, channel: 0 | 1): Promise<Int16Array> {
  const { far, near } = await readCallFrames(file, first, frames);
  return channel === 0 ? far : near;
}

// The call's own recording file, as the media worker writes it for every live call: a WAV of
// 8 kHz, 16-bit, two channels (the far end on 0, what we sent on 1) after a 44-byte header.
// Recordings are copied out of it and its channels are read back for speech-to-text.
import type { FileHandle } from 'node:fs/promises';

export const CALL_FILE_RATE = 8000;
export const CALL_FILE_HEADER_BYTES = 44;
export const CALL_FILE_CHANNELS = 2;
/** Bytes of one frame (a sample of each channel). */
export const CALL_FILE_FRAME_BYTES = CALL_FILE_CHANNELS * 2;

/** `frames` frames from frame `first` of one channel (fewer when the file ends sooner). */
export async function readCallChannel(file: FileHandle, first: number, frames: number, channel: 0 | 1): Promise<Int16Array> {
  const bytes = Buffer.alloc(Math.max(0, frames) * CALL_FILE_FRAME_BYTES);
  const { bytesRead } = await file.read(bytes, 0, bytes.length, CALL_FILE_HEADER_BYTES + first * CALL_FILE_FRAME_BYTES);
  const got = Math.floor(bytesRead / CALL_FILE_FRAME_BYTES);
  const pcm = new Int16Array(got);
  for (let i = 0; i < got; i++) pcm[i] = bytes.readInt16LE(i * CALL_FILE_FRAME_BYTES + channel * 2);
  return pcm;
}

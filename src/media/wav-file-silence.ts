// Zeroes time ranges of a WAV file in place (every channel), for redaction: only the bytes
// of the ranges are touched, so a recording of any length is redacted in bounded memory.
// Files written by WavFileWriter (and encodeWav) have the canonical 44-byte header; anything
// else is refused rather than guessed at. Sample bounds match silenceRanges in pii.ts.
import { open } from 'node:fs/promises';
import { WAV_HEADER_BYTES, BYTES_PER_SAMPLE, readWavHeader } from './wav.ts';

const ZEROS = Buffer.alloc(64 * 1024);

export async function silenceWavFile(path: string, ranges: ReadonlyArray<{ start: number; end: number }>): Promise<void> {
  const file = await open(path, 'r+');
  try {
    const head = Buffer.alloc(WAV_HEADER_BYTES);
    await file.read(head, 0, WAV_HEADER_BYTES, 0);
    const { channels, sampleRate, frames } = readWavHeader(head);
    const blockAlign = channels * BYTES_PER_SAMPLE;
    for (const range of ranges) {
      // The epsilon absorbs float noise so ms-precise ranges map to exact sample boundaries.
      const from = Math.max(0, Math.floor(range.start * sampleRate + 1e-6));
      const to = Math.min(frames, Math.ceil(range.end * sampleRate - 1e-6));
      let position = WAV_HEADER_BYTES + from * blockAlign;
      const end = WAV_HEADER_BYTES + Math.max(from, to) * blockAlign;
      while (position < end) {
        const n = Math.min(ZEROS.length, end - position);
        await file.write(ZEROS, 0, n, position);
        position += n;
      }
    }
    await file.sync();
  } finally {
    await file.close();
  }
}

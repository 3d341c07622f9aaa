// The audio of `media` frames in each stream format, both ways. The call's own audio is
// 8 kHz PCM (the line rate); µ-law is G.711 as on the wire, L16 is 16-bit signed little-endian
// (what speech models read; RFC 3551's L16 is big-endian, docs/media-streams.md says so).
// A 16 kHz stream is upsampled with a proper interpolating filter (media/upsample.ts) and the
// app's 16 kHz audio comes down through the line's anti-aliasing low-pass (media/resample.ts).
import { decodeG711, encodeG711 } from '../rtp/g711.ts';
import { toLineRate } from '../../media/resample.ts';
import { Upsampler } from '../../media/upsample.ts';
import type { StreamFormat } from '../../telephony/media-streams.ts';

/** Encodes one track's line audio, frame after frame (a 16 kHz track keeps its filter's state). */
export class TrackEncoder {
  private readonly upsampler: Upsampler | null;

  constructor(private readonly format: StreamFormat) {
    this.upsampler = format === 'l16_16000' ? new Upsampler() : null;
  }

  /** Base64 of `line` (8 kHz PCM) in the stream's format. */
  encode(line: Int16Array): string {
    if (this.format === 'mulaw_8000') return Buffer.from(encodeG711('PCMU', line)).toString('base64');
    const pcm = this.upsampler ? this.upsampler.push(line) : line;
    return littleEndian(pcm).toString('base64');
  }
}

/** The app's base64 audio as 8 kHz line PCM. An odd trailing byte of L16 is dropped. */
export function decodeAppAudio(format: StreamFormat, payload: string): Int16Array {
  const bytes = Buffer.from(payload, 'base64');
  if (format === 'mulaw_8000') return decodeG711('PCMU', bytes);
  const pcm = new Int16Array(bytes.length >> 1);
  for (let i = 0; i < pcm.length; i++) pcm[i] = bytes.readInt16LE(2 * i);
  return format === 'l16_16000' ? toLineRate(pcm, 16000) : pcm;
}

/** Line samples per 20 ms frame. */
export const LINE_FRAME_SAMPLES = 160;

function littleEndian(pcm: Int16Array): Buffer {
  const out = Buffer.allocUnsafe(pcm.length * 2);
  for (let i = 0; i < pcm.length; i++) out.writeInt16LE(pcm[i] as number, 2 * i);
  return out;
}

// Audio as the phone line wants it: 16-bit mono at 8 kHz. Speech engines and uploaded
// prompts come at other rates (eSpeak NG speaks at 22 050 Hz), so they are read from any
// PCM16 WAV and resampled with a windowed-sinc low-pass below 4 kHz, which keeps what a
// G.711 line can carry and avoids the aliasing a plain decimation would fold into speech.

export const LINE_RATE = 8000;

/** The first channel of a 16-bit PCM WAV of any rate (or a mono mix of its channels). */
export function readPcm16Wav(buf: Uint8Array): { sampleRate: number; samples: Int16Array } {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const tag = (at: number) => String.fromCharCode(buf[at]!, buf[at + 1]!, buf[at + 2]!, buf[at + 3]!);
  if (buf.length < 12 || tag(0) !== 'RIFF' || tag(8) !== 'WAVE') throw new Error('not a RIFF/WAVE file');
  let channels = 0;
  let sampleRate = 0;
  for (let at = 12; at + 8 <= buf.length;) {
    const id = tag(at);
    // Streaming writers (eSpeak NG among them) leave the data size at its maximum: clamp to the file.
    const size = Math.min(view.getUint32(at + 4, true), buf.length - at - 8);
    const body = at + 8;
    if (id === 'fmt ') {
      if (view.getUint16(body, true) !== 1 || view.getUint16(body + 14, true) !== 16) throw new Error('only 16-bit PCM WAV is supported');
      channels = view.getUint16(body + 2, true);
      sampleRate = view.getUint32(body + 4, true);
    } else if (id === 'data') {
      if (!channels) throw new Error('WAV data before its format');
      const frames = Math.floor(size / (2 * channels));
      const samples = new Int16Array(frames);
      for (let i = 0; i < frames; i++) {
        let sum = 0;
        for (let c = 0; c < channels; c++) sum += view.getInt16(body + (i * channels + c) * 2, true);
        samples[i] = Math.round(sum / channels);
      }
      return { sampleRate, samples };
    }
    at = body + size + (size % 2);
  }
  throw new Error('WAV has no data chunk');
}

const HALF_TAPS = 12;

/** Resamples to 8 kHz: Hann-windowed sinc, cut off at 3.6 kHz (below the source's own Nyquist when it is slower). */
export function toLineRate(samples: Int16Array, sampleRate: number): Int16Array {
  if (sampleRate === LINE_RATE) return samples;
  const step = sampleRate / LINE_RATE;
  // Cut-off in cycles per input sample: below the line's 4 kHz Nyquist, and below the source's own.
  const fc = Math.min(3600, sampleRate * 0.45) / sampleRate;
  const span = Math.ceil(HALF_TAPS * Math.max(1, step));
  const out = new Int16Array(Math.floor(samples.length / step));
  for (let n = 0; n < out.length; n++) {
    const centre = n * step;
    const first = Math.ceil(centre - span);
    let acc = 0;
    let weight = 0;
    for (let k = first; k <= centre + span; k++) {
      const x = k - centre;
      const window = 0.5 + 0.5 * Math.cos((Math.PI * x) / (span + 1));
      const sinc = x === 0 ? 2 * fc : Math.sin(2 * Math.PI * fc * x) / (Math.PI * x);
      const tap = window * sinc;
      weight += tap;
      if (k >= 0 && k < samples.length) acc += (samples[k] as number) * tap;
    }
    out[n] = Math.max(-32768, Math.min(32767, Math.round(acc / weight)));
  }
  return out;
}

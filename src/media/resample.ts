// Audio as the phone line wants it: 16-bit mono at 8 kHz. Speech engines and uploaded
// prompts come at other rates (eSpeak NG speaks at 22 050 Hz), so they are read from any
// PCM16 WAV (readPcm16Wav) and resampled with a windowed-sinc low-pass below 4 kHz, which
// keeps what a G.711 line can carry and avoids the aliasing a plain decimation would fold
// into speech.

import { LINE_RATE } from './call-file.ts';

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

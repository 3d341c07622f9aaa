// 8 kHz line audio to 16 kHz for a stream that asks for it, as a stream: frame after frame,
// keeping the taps' history across frames so there is no click at each 20 ms boundary. Each
// new sample between two line samples is a Hann-windowed sinc interpolation (a half-band
// low-pass), which is what a proper upsampler does instead of repeating samples (which
// mirrors the speech into 4 to 8 kHz). It lags HALF_TAPS line samples (1.5 ms).

const HALF_TAPS = 12;
/** The interpolating filter's taps at the half-sample offsets -11.5 .. +11.5. */
const TAPS = Float64Array.from({ length: 2 * HALF_TAPS }, (_, i) => {
  const x = i - HALF_TAPS + 0.5;
  const window = 0.5 + 0.5 * Math.cos((Math.PI * x) / (HALF_TAPS + 0.5));
  return (window * Math.sin(Math.PI * x)) / (Math.PI * x);
});

export class Upsampler {
  /** The last 2 * HALF_TAPS line samples seen, oldest first. */
  private readonly history = new Float64Array(2 * HALF_TAPS);

  /** 16 kHz samples for `line` (twice as many), delayed by HALF_TAPS line samples. */
  push(line: Int16Array): Int16Array {
    const out = new Int16Array(line.length * 2);
    const h = this.history;
    for (let n = 0; n < line.length; n++) {
      h.copyWithin(0, 1);
      h[h.length - 1] = line[n] as number;
      // The centre of the window sits between h[HALF_TAPS - 1] and h[HALF_TAPS].
      let acc = 0;
      for (let k = 0; k < TAPS.length; k++) acc += (h[k] as number) * (TAPS[k] as number);
      out[2 * n] = h[HALF_TAPS - 1] as number;
      out[2 * n + 1] = Math.max(-32768, Math.min(32767, Math.round(acc)));
    }
    return out;
  }
}

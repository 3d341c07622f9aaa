// Compares a recorded channel with the audio that was sent: finds the delay between them
// (a recording starts before the far end speaks, and a jitter buffer adds its depth), then
// computes the normalised correlation over the reference at that delay.

/** Normalised cross-correlation of `a` and `b` over `length` samples (1 = identical shape). */
function correlationAt(reference: Int16Array, recorded: Int16Array, lag: number, from: number, length: number): number {
  let dot = 0;
  let energyA = 0;
  let energyB = 0;
  for (let i = from; i < from + length; i++) {
    const a = reference[i] ?? 0;
    const b = i + lag >= 0 ? recorded[i + lag] ?? 0 : 0;
    dot += a * b;
    energyA += a * a;
    energyB += b * b;
  }
  return energyA === 0 || energyB === 0 ? 0 : dot / Math.sqrt(energyA * energyB);
}

/** The best alignment of `reference` inside `recorded` and the correlation at that alignment. */
export function matchAudio(reference: Int16Array, recorded: Int16Array, maxLag = 16000): { lag: number; correlation: number } {
  // Find the lag on a short, loud window (cheap), then score the whole reference there.
  const window = 800;
  let loudest = 0;
  let loudestEnergy = -1;
  for (let start = 0; start + window <= reference.length; start += window) {
    let energy = 0;
    for (let i = start; i < start + window; i++) energy += (reference[i] as number) ** 2;
    if (energy > loudestEnergy) {
      loudestEnergy = energy;
      loudest = start;
    }
  }
  // A negative lag means the recording started after the reference did (its start is lost,
  // and the score over the whole reference says so).
  const candidates: Array<{ lag: number; correlation: number }> = [];
  for (let lag = -Math.min(maxLag, loudest); lag <= maxLag && loudest + lag + window <= recorded.length; lag++) {
    candidates.push({ lag, correlation: correlationAt(reference, recorded, lag, loudest, window) });
  }
  // A window can match more than one place (speech or tones that repeat, "10:00 ... 7:00"):
  // the lags where it matches best (each peak once) are scored over the whole reference, and
  // the best of those wins.
  const peaks = candidates.filter((c, i) => c.correlation >= (candidates[i - 1]?.correlation ?? -1) && c.correlation >= (candidates[i + 1]?.correlation ?? -1));
  peaks.sort((a, b) => b.correlation - a.correlation);
  let best = { lag: 0, correlation: -1 };
  for (const { lag } of peaks.slice(0, MAX_CANDIDATES)) {
    const correlation = correlationAt(reference, recorded, lag, 0, reference.length);
    if (correlation > best.correlation) best = { lag, correlation };
  }
  return best.correlation === -1 ? { lag: 0, correlation: correlationAt(reference, recorded, 0, 0, reference.length) } : best;
}

/** Peaks of the window's match that are scored whole (bounds the cost on long references). */
const MAX_CANDIDATES = 24;

/** Share of the signal's energy in `from`..`from + length` that lies at `frequency` (Goertzel; 0..1 for a pure tone at it). */
export function toneShare(samples: Int16Array, frequency: number, from: number, length: number, sampleRate = 8000): number {
  const coefficient = 2 * Math.cos((2 * Math.PI * frequency) / sampleRate);
  let previous = 0;
  let beforePrevious = 0;
  let energy = 0;
  for (let i = from; i < from + length; i++) {
    const x = samples[i] ?? 0;
    const current = x + coefficient * previous - beforePrevious;
    beforePrevious = previous;
    previous = current;
    energy += x * x;
  }
  const power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious;
  // A sine of amplitude A over N samples has Goertzel power (A N / 2)^2 and energy A^2 N / 2.
  return energy === 0 ? 0 : (2 * power) / (length * energy);
}

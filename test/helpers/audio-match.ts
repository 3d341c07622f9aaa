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
  let best = { lag: 0, correlation: -1 };
  // A negative lag means the recording started after the reference did (its start is lost,
  // and the score over the whole reference says so).
  for (let lag = -Math.min(maxLag, loudest); lag <= maxLag && loudest + lag + window <= recorded.length; lag++) {
    const correlation = correlationAt(reference, recorded, lag, loudest, window);
    if (correlation > best.correlation) best = { lag, correlation };
  }
  return { lag: best.lag, correlation: correlationAt(reference, recorded, best.lag, 0, reference.length) };
}

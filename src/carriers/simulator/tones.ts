// The sandbox's built-in conference sounds, as WAV files in the data dir so a recording mixes
// them like any played file (flow-sound.ts mixPlays): the hold tone a waiting or held
// participant hears, and the beep of a participant joining or leaving. Written once, on first
// use; their content is fixed, so two processes writing them (each file renamed into place
// whole) race harmlessly.
import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { encodeWav } from '../../media/wav.ts';

const RATE = 8000;
/** A 2 s cycle: 1 s of a 440 Hz tone at a quarter of full scale, then 1 s of silence. */
export const HOLD_TONE_SECONDS = 2;
export const BEEP_SECONDS = 0.25;
/** Peak of both tones: above any simulated voice (under 8000), so a test can tell them apart. */
export const TONE_PEAK = 10_000;

function tone(hz: number, seconds: number, cycleSeconds: number): Buffer {
  const samples = Int16Array.from({ length: Math.round(cycleSeconds * RATE) }, (_, i) => (i < seconds * RATE ? Math.round(TONE_PEAK * Math.sin(2 * Math.PI * hz * i / RATE)) : 0));
  return encodeWav({ sampleRate: RATE, channels: 1, samples: [samples] });
}

export interface ToneFiles {
  hold: string;
  beep: string;
}

/** One write per data dir and process: renders running side by side share it. */
const written = new Map<string, Promise<ToneFiles>>();

export function toneFiles(dataDir: string): Promise<ToneFiles> {
  let files = written.get(dataDir);
  if (!files) {
    files = writeToneFiles(dataDir);
    written.set(dataDir, files);
    files.catch(() => written.delete(dataDir));
  }
  return files;
}

async function writeToneFiles(dataDir: string): Promise<ToneFiles> {
  const dir = join(dataDir, 'simulator');
  const files = { hold: join(dir, 'hold-tone.wav'), beep: join(dir, 'beep.wav') };
  if (await stat(files.beep).then(() => true, () => false)) return files;
  await mkdir(dir, { recursive: true });
  // Each file appears whole (renamed into place), the beep last: it is what says both exist.
  for (const [path, wav] of [[files.hold, tone(440, 1, HOLD_TONE_SECONDS)], [files.beep, tone(1000, BEEP_SECONDS, BEEP_SECONDS)]] as const) {
    const partial = `${path}.${process.pid}.${randomUUID()}.partial`;
    await writeFile(partial, wav);
    await rename(partial, path);
  }
  return files;
}

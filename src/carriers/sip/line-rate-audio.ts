// A fetched WAV (a flow's `play`, an announcement) as the samples a live leg sends: 16-bit
// PCM at the line rate, whatever rate the file has.
import { readFile } from 'node:fs/promises';
import { toLineRate } from '../../media/resample.ts';
import { readPcm16Wav } from '../../media/wav.ts';

export async function lineRateAudio(path: string): Promise<Int16Array> {
  const { sampleRate, samples } = readPcm16Wav(await readFile(path));
  return toLineRate(samples, sampleRate);
}

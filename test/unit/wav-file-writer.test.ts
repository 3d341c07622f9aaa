// Issue 11.4: recordings are written in chunks (bounded memory) and, in the sandbox, synthesised slice by
// slice: the file must be the same WAV however it was sliced, suspended or resumed. The memory and
// event-loop figures for a 12-hour recording come from `npm run bench:recording-memory`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WavFileWriter } from '../../src/media/wav-file-writer.ts';
import { silenceWavFile } from '../../src/media/wav-file-silence.ts';
import { decodeWav, encodeWav } from '../../src/media/wav.ts';
import { synthesizeAudio, synthesizeFrames, timeDialogue } from '../../src/carriers/simulator/speech.ts';
import { simulatedDialogue } from '../../src/carriers/simulator/conversation-script.ts';

const SEGMENTS = timeDialogue(simulatedDialogue('default', 'call'), { startAt: 0.5 });
const FORMAT = { sampleRate: 8000, channels: 2 } as const;

test('audio synthesised in uneven slices equals the audio synthesised at once', () => {
  const whole = synthesizeAudio(SEGMENTS, { ...FORMAT, durationSeconds: 6, seed: 'rec' });
  const parts: Int16Array[][] = [];
  for (const [from, count] of [[0, 1234], [1234, 8000], [9234, 20000], [29234, 18766]] as const) {
    parts.push(synthesizeFrames(SEGMENTS, { ...FORMAT, seed: 'rec' }, from, count));
  }
  for (const c of [0, 1]) {
    const joined = Int16Array.from(parts.flatMap((p) => [...p[c]!]));
    assert.deepEqual(joined, whole[c]);
  }
});

test('a file written in chunks, suspended and resumed at a frame, is the WAV encodeWav makes; nothing is visible until finished', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wav-writer-'));
  try {
    const target = join(dir, 'rec.wav');
    const audio = synthesizeAudio(SEGMENTS, { ...FORMAT, durationSeconds: 3, seed: 'w' });
    const slice = (from: number, to: number) => audio.map((ch) => ch.subarray(from, to));
    const first = await WavFileWriter.open(target, FORMAT);
    await first.write(slice(0, 5000));
    await first.write(slice(5000, 12000));
    await first.release();
    assert.equal(existsSync(target), false, 'a partial file is never at the final path');
    // A crash after frame 12000 was written but before the next job recorded it: resume at 9000.
    const second = await WavFileWriter.open(target, FORMAT, 9000);
    assert.equal(second.frameCount, 9000);
    await second.write(slice(9000, 24000));
    const size = await second.finish();
    const bytes = readFileSync(target);
    assert.equal(size, bytes.length);
    assert.deepEqual(bytes, encodeWav({ ...FORMAT, samples: audio }));

    await silenceWavFile(target, [{ start: 1, end: 1.5 }]);
    const silenced = decodeWav(readFileSync(target));
    for (const ch of silenced.samples) {
      assert.ok(ch.subarray(8000, 12000).every((s) => s === 0));
      assert.ok(ch[7999] !== 0 && ch[12000] !== 0, 'only the range is silenced');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

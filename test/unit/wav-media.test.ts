// The one WAV reader and writer of src/media in the roles the old copies had: a prompt from a
// streaming writer (data size left at its maximum) and at any rate, the canonical header read
// back for redaction, and a live call's file readable while the media clock writes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeWav, encodeWav, readPcm16Wav, readWavHeader, wavHeader, WAV_HEADER_BYTES } from '../../src/media/wav.ts';
import { WavStreamWriter } from '../../src/media/wav-stream.ts';
import { callFileFrames, readCallFrames, CALL_FILE_FORMAT } from '../../src/media/call-file.ts';

test('a prompt is read at any rate, mixed to mono, even with the data size a streaming writer leaves', () => {
  const stereo = encodeWav({ sampleRate: 16000, channels: 2, samples: [Int16Array.from([100, 200, -7]), Int16Array.from([300, 0, -9])] });
  stereo.writeUInt32LE(22050, 24); // as eSpeak NG speaks
  stereo.writeUInt32LE(0xffffffff, 40); // never patched
  assert.deepEqual(readPcm16Wav(stereo), { sampleRate: 22050, samples: Int16Array.from([200, 100, -8]) });
  assert.throws(() => decodeWav(stereo), /unsupported sample rate 22050|truncated/);
});

test('the canonical header says the format and length of what we wrote, and nothing else passes for one', () => {
  assert.deepEqual(readWavHeader(wavHeader({ sampleRate: 8000, channels: 2 }, 1234)), { sampleRate: 8000, channels: 2, frames: 1234 });
  const odd = Buffer.concat([Buffer.from('RIFF\0\0\0\0WAVEJUNK\0\0\0\0'), wavHeader({ sampleRate: 8000, channels: 1 }, 0).subarray(12)]);
  assert.throws(() => readWavHeader(odd), /not a canonical 44-byte header/);
});

test('a call file is readable while it grows and is a whole WAV when closed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'callfile-'));
  try {
    const path = join(dir, 'call.wav');
    const writer = await WavStreamWriter.create(path, 160);
    const far = Int16Array.from({ length: 480 }, (_, i) => i);
    const near = Int16Array.from({ length: 480 }, (_, i) => -i);
    writer.write(far, near);
    // Three chunks of 160 frames were handed to the disk; the file is there under its own name meanwhile.
    for (let i = 0; i < 100 && callFileFrames(readFileSync(path).length) < 320; i++) await new Promise((r) => setTimeout(r, 10));
    const file = await open(path, 'r');
    try {
      const got = await readCallFrames(file, 10, 5);
      assert.deepEqual([Array.from(got.far), Array.from(got.near)], [[10, 11, 12, 13, 14], [-10, -11, -12, -13, -14]]);
    } finally {
      await file.close();
    }
    assert.deepEqual(await writer.close(), { path, frames: 480, droppedFrames: 0 });
    const wav = decodeWav(readFileSync(path));
    assert.deepEqual({ sampleRate: wav.sampleRate, channels: wav.channels }, CALL_FILE_FORMAT);
    assert.deepEqual(wav.samples, [far, near]);
    assert.equal(readFileSync(path).length, WAV_HEADER_BYTES + 480 * 4);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a flush puts a part-filled chunk on disk at once: the frames it returns are readable without waiting for the chunk to fill', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'callfile-'));
  try {
    const path = join(dir, 'call.wav');
    const writer = await WavStreamWriter.create(path, 4000);
    const far = Int16Array.from({ length: 300 }, (_, i) => i + 1);
    writer.write(far, new Int16Array(300));
    const flushed = writer.flush();
    assert.equal(flushed, 300);
    for (let i = 0; i < 100 && callFileFrames(readFileSync(path).length) < flushed; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(callFileFrames(readFileSync(path).length), 300, 'the part-filled chunk is in the file, not held for the other 3,700 frames');
    // The next frames go on after it, in order.
    writer.write(Int16Array.from([7, 8]), Int16Array.from([9, 10]));
    assert.equal(writer.flush(), 302);
    assert.deepEqual(await writer.close(), { path, frames: 302, droppedFrames: 0 });
    const wav = decodeWav(readFileSync(path));
    assert.deepEqual(Array.from(wav.samples[0]!.subarray(298)), [299, 300, 7, 8]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

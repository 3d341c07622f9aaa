import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeWav, encodeWav } from '../../src/media/wav.ts';

const ramp = (length: number, scale: number) => Int16Array.from({ length }, (_, i) => ((i * scale) % 65536) - 32768);

test('mono 8 kHz round-trips with a canonical 44-byte PCM header', () => {
  const samples = [Int16Array.from([0, 1, -1, 32767, -32768, 1234])];
  const wav = encodeWav({ sampleRate: 8000, channels: 1, samples });

  assert.equal(wav.length, 44 + 12);
  assert.equal(wav.toString('ascii', 0, 4), 'RIFF');
  assert.equal(wav.readUInt32LE(4), wav.length - 8);
  assert.equal(wav.toString('ascii', 8, 16), 'WAVEfmt ');
  assert.equal(wav.readUInt32LE(16), 16);
  assert.equal(wav.readUInt16LE(20), 1, 'PCM');
  assert.equal(wav.readUInt16LE(22), 1, 'channels');
  assert.equal(wav.readUInt32LE(24), 8000, 'sample rate');
  assert.equal(wav.readUInt32LE(28), 16000, 'byte rate');
  assert.equal(wav.readUInt16LE(32), 2, 'block align');
  assert.equal(wav.readUInt16LE(34), 16, 'bits per sample');
  assert.equal(wav.toString('ascii', 36, 40), 'data');
  assert.equal(wav.readUInt32LE(40), 12);
  assert.equal(wav.readInt16LE(44 + 3 * 2), 32767, 'little-endian samples');

  assert.deepEqual(decodeWav(wav), { sampleRate: 8000, channels: 1, samples });
});

test('stereo 16 kHz is interleaved left/right and round-trips', () => {
  const samples = [ramp(1000, 7), ramp(1000, 13)];
  const wav = encodeWav({ sampleRate: 16000, channels: 2, samples });

  assert.equal(wav.readUInt32LE(28), 64000, 'byte rate');
  assert.equal(wav.readUInt16LE(32), 4, 'block align');
  assert.equal(wav.readInt16LE(44), samples[0]![0]);
  assert.equal(wav.readInt16LE(46), samples[1]![0]);
  assert.equal(wav.readInt16LE(48), samples[0]![1]);
  assert.deepEqual(decodeWav(wav), { sampleRate: 16000, channels: 2, samples });
});

test('an empty recording is still a valid file', () => {
  const wav = encodeWav({ sampleRate: 8000, channels: 2, samples: [new Int16Array(0), new Int16Array(0)] });
  assert.equal(wav.length, 44);
  assert.deepEqual(decodeWav(wav).samples, [new Int16Array(0), new Int16Array(0)]);
});

/** Rebuilds a WAV from chunks, to test files other writers produce. */
function riff(...chunks: [id: string, body: Buffer][]): Buffer {
  const parts = chunks.map(([id, body]) => {
    const header = Buffer.alloc(8);
    header.write(id, 0, 'ascii');
    header.writeUInt32LE(body.length, 4);
    return Buffer.concat([header, body, Buffer.alloc(body.length % 2)]);
  });
  const body = Buffer.concat([Buffer.from('WAVE'), ...parts]);
  const header = Buffer.alloc(8);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(body.length, 4);
  return Buffer.concat([header, body]);
}

const reference = encodeWav({ sampleRate: 8000, channels: 1, samples: [Int16Array.from([5, -5, 300])] });
const fmtBody = () => Buffer.from(reference.subarray(20, 36));
const dataBody = () => Buffer.from(reference.subarray(44));

test('decode skips unknown chunks, including odd-sized ones with a pad byte', () => {
  const extensibleFmt = Buffer.concat([fmtBody(), Buffer.from([0, 0])]); // cbSize = 0, 18-byte fmt
  const wav = riff(['LIST', Buffer.from('INFOabc')], ['fmt ', extensibleFmt], ['fact', Buffer.alloc(4)], ['data', dataBody()]);
  assert.deepEqual(decodeWav(wav), decodeWav(reference));
});

test('decode rejects bad input with a clear error', () => {
  const withFmt = (mutate: (fmt: Buffer) => void) => {
    const fmt = fmtBody();
    mutate(fmt);
    return riff(['fmt ', fmt], ['data', dataBody()]);
  };
  const cases: [string, Buffer, RegExp][] = [
    ['too short', Buffer.from('RIFF'), /not a RIFF\/WAVE file/],
    ['not RIFF', Buffer.from('RIFX0000WAVEfmt '), /not a RIFF\/WAVE file/],
    ['not WAVE', Buffer.from('RIFF0000AVI LIST'), /not a RIFF\/WAVE file/],
    ['no fmt', riff(['data', dataBody()]), /'data' chunk appears before the 'fmt ' chunk/],
    ['no data', riff(['fmt ', fmtBody()]), /no 'data' chunk/],
    ['no chunks', riff(), /no 'fmt ' chunk/],
    ['truncated data', reference.subarray(0, reference.length - 1), /'data' chunk is truncated/],
    ['short fmt', riff(['fmt ', fmtBody().subarray(0, 14)], ['data', dataBody()]), /'fmt ' chunk too short/],
    ['A-law', withFmt((f) => f.writeUInt16LE(6, 0)), /audio format 6 is not PCM/],
    ['8-bit', withFmt((f) => f.writeUInt16LE(8, 14)), /8-bit samples/],
    ['44.1 kHz', withFmt((f) => f.writeUInt32LE(44100, 4)), /unsupported sample rate 44100/],
    ['6 channels', withFmt((f) => f.writeUInt16LE(6, 2)), /unsupported channel count 6/],
    ['bad byte rate', withFmt((f) => f.writeUInt32LE(1, 8)), /inconsistent block align/],
    ['partial frame', riff(['fmt ', fmtBody()], ['data', Buffer.alloc(3)]), /not a whole number of 2-byte frames/],
  ];
  for (const [name, input, message] of cases) {
    assert.throws(() => decodeWav(input), message, name);
  }
});

test('encode rejects unsupported formats and ragged channels', () => {
  const one = new Int16Array(4);
  assert.throws(() => encodeWav({ sampleRate: 44100 as 8000, channels: 1, samples: [one] }), /unsupported sample rate/);
  assert.throws(() => encodeWav({ sampleRate: 8000, channels: 2, samples: [one] }), /2 channel\(s\) declared but 1/);
  assert.throws(
    () => encodeWav({ sampleRate: 8000, channels: 2, samples: [one, new Int16Array(3)] }),
    /same number of samples/,
  );
});

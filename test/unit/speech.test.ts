import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SIMULATED_PII, simulatedDialogue } from '../../src/carriers/simulator/conversation-script.ts';
import { synthesizeAudio, timeDialogue, type TranscriptSegment } from '../../src/carriers/simulator/speech.ts';

test('default dialogue is a short exchange that fits in about 5 seconds', () => {
  const lines = simulatedDialogue('default', 'CA1');
  assert.ok(lines.length >= 2 && lines.length <= 4);
  assert.deepEqual(lines[0], { channel: 1, speaker: 'callee', text: 'Hello?' });
  for (const line of lines) assert.equal(line.channel, line.speaker === 'caller' ? 0 : 1);
  const segments = timeDialogue(lines, { startAt: 0 });
  assert.ok(segments.at(-1)!.end <= 5, `ends at ${segments.at(-1)!.end}`);
});

test('dialogue is deterministic per seed and the seed only varies harmless words', () => {
  assert.deepEqual(simulatedDialogue('pii', 'seed-1'), simulatedDialogue('pii', 'seed-1'));
  const variants = new Set(['a', 'b', 'c', 'd', 'e', 'f'].map((seed) => JSON.stringify(simulatedDialogue('default', seed))));
  assert.ok(variants.size > 1, 'different seeds give different wording');

  for (const seed of ['a', 'b', 'c']) {
    const spoken = simulatedDialogue('pii', seed)
      .filter((line) => line.speaker === 'caller')
      .map((line) => line.text)
      .join(' ');
    for (const value of Object.values(SIMULATED_PII)) assert.ok(spoken.includes(value), `${value} read out by the caller`);
  }
});

test('timeDialogue gives every whitespace token an equal slot, with gaps between lines', () => {
  const segments = timeDialogue(
    [
      { channel: 1, speaker: 'callee', text: 'Hello?' },
      { channel: 0, speaker: 'caller', text: "Hi, it's  Sam." },
    ],
    { startAt: 1 },
  );
  assert.deepEqual(segments, [
    { channel: 1, speaker: 'callee', start: 1, end: 1.333, text: 'Hello?', words: [{ text: 'Hello?', start: 1, end: 1.333 }] },
    {
      channel: 0,
      speaker: 'caller',
      start: 1.733,
      end: 2.733,
      text: "Hi, it's  Sam.",
      words: [
        { text: 'Hi,', start: 1.733, end: 2.067 },
        { text: "it's", start: 2.067, end: 2.4 },
        { text: 'Sam.', start: 2.4, end: 2.733 },
      ],
    },
  ]);

  const custom = timeDialogue([{ channel: 0, speaker: 'caller', text: 'one two' }], { startAt: 0, wordsPerSecond: 2, gapSeconds: 1 });
  assert.deepEqual(custom[0]!.words.map((w) => [w.start, w.end]), [[0, 0.5], [0.5, 1]]);
  assert.throws(() => timeDialogue([], { startAt: 0, wordsPerSecond: 0 }), RangeError);
});

test('timings keep 3 decimals and words tile each segment exactly', () => {
  const segments = timeDialogue(simulatedDialogue('pii', 'x'), { startAt: 0.25 });
  for (const segment of segments) {
    assert.equal(segment.start, segment.words[0]!.start);
    assert.equal(segment.end, segment.words.at(-1)!.end);
    segment.words.forEach((word, i) => {
      for (const t of [word.start, word.end]) assert.equal(t, Math.round(t * 1000) / 1000);
      if (i > 0) assert.equal(word.start, segment.words[i - 1]!.end);
    });
  }
});

const SEGMENTS: TranscriptSegment[] = timeDialogue(simulatedDialogue('default', 'call'), { startAt: 0.5 });
const DURATION = 4.5;

/** Sample index range of [start, end) seconds. */
const span = (rate: number, start: number, end: number) => [Math.round(start * rate), Math.round(end * rate)] as const;
const peak = (samples: Int16Array, from = 0, to = samples.length) =>
  samples.subarray(from, to).reduce((max, s) => Math.max(max, Math.abs(s)), 0);

test('stereo audio puts each speaker on its own channel, voiced only inside word times', () => {
  const rate = 8000;
  const audio = synthesizeAudio(SEGMENTS, { sampleRate: rate, channels: 2, durationSeconds: DURATION, seed: 'call' });
  assert.equal(audio.length, 2);
  for (const channel of audio) assert.equal(channel.length, DURATION * rate);

  const voiced = audio.map(() => new Uint8Array(DURATION * rate));
  for (const segment of SEGMENTS) {
    for (const word of segment.words) {
      const [from, to] = span(rate, word.start, word.end);
      voiced[segment.channel]!.fill(1, from, to);
      const own = peak(audio[segment.channel]!, from, to);
      assert.ok(own > 4000 && own <= 9000, `"${word.text}" peaks at ${own}`);
      assert.ok(peak(audio[1 - segment.channel]!, from, to) <= 40, 'the other party is quiet meanwhile');
    }
  }
  audio.forEach((channel, c) =>
    channel.forEach((sample, i) => {
      if (!voiced[c]![i]) assert.ok(sample !== 0 && Math.abs(sample) <= 40, `comfort noise at ${c}:${i} is ${sample}`);
    }),
  );
});

test('mono audio mixes both speakers; comfort noise is never digital silence', () => {
  const rate = 16000;
  const [mono, ...rest] = synthesizeAudio(SEGMENTS, { sampleRate: rate, channels: 1, durationSeconds: DURATION, seed: 'call' });
  assert.equal(rest.length, 0);
  for (const word of SEGMENTS.flatMap((s) => s.words)) {
    assert.ok(peak(mono!, ...span(rate, word.start, word.end)) > 4000, word.text);
  }
  const window = 0.02 * rate;
  for (let from = 0; from + window <= mono!.length; from += window / 4) {
    assert.ok(peak(mono!, from, from + window) > 0, `20 ms window at sample ${from} is not all zero`);
  }
});

test('audio is deterministic for a seed and the noise changes with it', () => {
  const options = { sampleRate: 8000, channels: 2, durationSeconds: 1, seed: 's1' } as const;
  assert.deepEqual(synthesizeAudio(SEGMENTS, options), synthesizeAudio(SEGMENTS, options));
  assert.notDeepEqual(synthesizeAudio(SEGMENTS, options), synthesizeAudio(SEGMENTS, { ...options, seed: 's2' }));
});

test('words past the end of the recording are cut off', () => {
  const [mono] = synthesizeAudio(SEGMENTS, { sampleRate: 8000, channels: 1, durationSeconds: 0.6, seed: 'x' });
  assert.equal(mono!.length, 4800);
  assert.ok(peak(mono!, 4000) > 4000, 'the first word starts at 0.5 s');
});

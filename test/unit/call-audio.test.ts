// The simulator's call timeline across transfers, and recordings cut from it: the cases the
// HTTP test (test/voice/recording-transfer.test.ts) cannot cheaply reach, such as a second
// transfer and a recording paused across one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callTimeline, recordingTranscript, type SimulatedLeg } from '../../src/carriers/simulator/call-audio.ts';
import type { TranscriptSegment } from '../../src/carriers/simulator/speech.ts';

const legs: SimulatedLeg[] = [
  { at: 0, party: '+14155550142', dialogue: 'default' },
  { at: 2.5, party: '+14155550143', dialogue: 'default' },
  { at: 4, party: '+14155550144', dialogue: 'pii' },
];

function assertInOrder(segments: TranscriptSegment[]): void {
  for (let i = 1; i < segments.length; i++) {
    assert.ok(segments[i]!.start >= segments[i - 1]!.end, `"${segments[i]!.text}" at ${segments[i]!.start} overlaps "${segments[i - 1]!.text}" ending ${segments[i - 1]!.end}`);
  }
  for (const s of segments) {
    assert.equal(s.start, s.words[0]!.start);
    assert.equal(s.end, s.words.at(-1)!.end);
  }
}

test('every leg speaks from half a second after it was connected, until the next leg is', () => {
  const timeline = callTimeline('call_x', legs);
  assertInOrder(timeline);
  for (const [i, leg] of legs.entries()) {
    const until = legs[i + 1]?.at ?? Infinity;
    const own = timeline.filter((s) => s.start >= leg.at && s.start < until);
    assert.ok(own.length > 0, `leg ${i} is heard`);
    assert.equal(own[0]!.start, leg.at + 0.5, `leg ${i} starts speaking at ${leg.at + 0.5}`);
    assert.ok(own.every((s) => s.end <= until), `leg ${i} is cut off when the next one connects`);
  }
});

test('a recording cut into spans across transfers is the timeline moved to recording time', () => {
  const spans = [{ start: 1, end: 3 }, { start: 3.75, end: 9 }];
  const { transcript, durationSeconds } = recordingTranscript('call_x', legs, spans);
  assert.equal(durationSeconds, 2 + 5.25);
  assertInOrder(transcript);
  const timeline = callTimeline('call_x', legs);
  // Every word heard is a word of the call, moved by its span's place in the recording.
  for (const segment of transcript) {
    for (const word of segment.words) {
      const inFirst = word.start < 2;
      const shift = inFirst ? 1 : 3.75 - 2;
      const callWord = timeline.flatMap((s) => s.words).find((w) => w.text === word.text && w.end > word.start + shift && w.start <= word.start + shift + 1e-9);
      assert.ok(callWord, `"${word.text}" at ${word.start} in the recording is said at ${word.start + shift} on the call`);
    }
  }
  // The third party, connected at 4 s (0.25 s into the second span), speaks 0.75 s into that span.
  const third = transcript.find((s) => s.start >= 2 + 0.25);
  assert.equal(third?.start, 2 + 0.75);
});

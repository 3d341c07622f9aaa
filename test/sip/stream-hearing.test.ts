// What a live media stream hears of the far end (rtp/stream-hearing.ts): frames go the moment
// their audio has arrived in order, not on the next tick behind the call's jitter buffer; a
// lost packet holds the stream back at most three ticks, then is silence and what came after
// it goes at once; reordering within that is undone; a far end that sends nothing still
// gives a frame of silence per tick.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StreamHearing } from '../../src/carriers/rtp/stream-hearing.ts';

const SSRC = 0x1234;
const T0 = 4_000_000_000; // wraps: timestamps are unsigned 32-bit
const frameOf = (n: number) => new Int16Array(160).fill(n);

function listen() {
  const heard: number[] = [];
  const hearing = new StreamHearing((pcm) => heard.push(pcm[0] === pcm[159] ? pcm[0]! : -1));
  const push = (n: number) => hearing.push(SSRC, (T0 + 160 * n) >>> 0, frameOf(n + 1));
  return { heard, hearing, push };
}

test('in-order audio goes as it arrives, without waiting for a tick', () => {
  const { heard, hearing, push } = listen();
  push(0);
  push(1);
  assert.deepEqual(heard, [1, 2]);
  hearing.tick();
  push(2);
  assert.deepEqual(heard, [1, 2, 3]);
});

test('a packet out of order is put back in place; a lost one is silence after three ticks, then the rest goes at once', () => {
  const { heard, hearing, push } = listen();
  push(0);
  hearing.tick();
  push(2);
  push(1);
  hearing.tick();
  hearing.tick();
  assert.deepEqual(heard, [1, 2, 3], 'reordered');
  push(4); // 3 is lost
  for (let i = 0; i < 3; i++) hearing.tick();
  assert.deepEqual(heard, [1, 2, 3], 'waits for the lost frame while within three ticks');
  hearing.tick();
  assert.deepEqual(heard, [1, 2, 3, 0, 5], 'given up: silence, then the frame after it');
  push(3);
  assert.deepEqual(heard, [1, 2, 3, 0, 5], 'the late packet is dropped');
});

test('a far end that sends nothing: a frame of silence each tick, three behind', () => {
  const { heard, hearing } = listen();
  for (let i = 0; i < 10; i++) hearing.tick();
  assert.deepEqual(heard, [0, 0, 0, 0, 0, 0, 0]);
});

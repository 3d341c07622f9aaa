// What a live media stream hears of the far end (rtp/stream-hearing.ts): frames go the moment
// their audio has arrived in order, not on the next tick behind the call's jitter buffer; a
// lost packet holds the stream back at most three frames past the far end's pace, then is
// silence and what came after it goes at once; reordering within that is undone; a far end
// that sends nothing still gives a frame of silence per tick. Lateness is measured against the
// far end's pace, so a far end that starts after the stream (always: it speaks once answered)
// keeps the whole window for its jitter, and a stalled media worker's catch-up loses nothing
// that had reached its socket; the pace follows a far end whose clock runs slow. Time is the
// test's own clock: nothing here depends on timing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StreamHearing } from '../../src/carriers/rtp/stream-hearing.ts';

const SSRC = 0x1234;
const T0 = 4_000_000_000; // wraps: timestamps are unsigned 32-bit
const frameOf = (n: number) => new Int16Array(160).fill(n);

/** A stream's hearing on a clock the test moves: `ticks(n)` is n periods of 20 ms, each ending in a tick. */
function listen() {
  const heard: number[] = [];
  let ms = 0;
  const hearing = new StreamHearing((pcm) => heard.push(pcm[0] === pcm[159] ? pcm[0]! : -1), () => ms);
  const push = (n: number) => hearing.push(SSRC, (T0 + 160 * n) >>> 0, frameOf(n + 1));
  const ticks = (n: number) => {
    for (let i = 0; i < n; i++) {
      ms += 20;
      hearing.tick();
    }
  };
  /** Time passes with no tick: the media worker is stalled. */
  const stall = (stallMs: number) => { ms += stallMs; };
  return { heard, hearing, push, ticks, stall };
}

/** Frames 1..n of the far end's audio (listen's push(k) sends frame k + 1). */
const frames = (n: number) => Array.from({ length: n }, (_, k) => k + 1);

test('in-order audio goes as it arrives, without waiting for a tick', () => {
  const { heard, hearing, push } = listen();
  push(0);
  push(1);
  assert.deepEqual(heard, [1, 2]);
  hearing.tick();
  push(2);
  assert.deepEqual(heard, [1, 2, 3]);
});

test('a packet out of order is put back in place; a lost one is silence three frames past its pace, then the rest goes at once', () => {
  const { heard, push, ticks } = listen();
  // Packet n keeps the far end's pace when it comes after n ticks.
  push(0);
  ticks(2);
  push(2);
  push(1);
  assert.deepEqual(heard, [1, 2, 3], 'reordered');
  ticks(2);
  push(4); // 3 is lost: it was due after 3 ticks
  ticks(2);
  assert.deepEqual(heard, [1, 2, 3], 'waits for the lost frame while within three frames of its pace');
  ticks(1);
  assert.deepEqual(heard, [1, 2, 3, 0, 5], 'given up: silence, then the frame after it');
  push(3);
  assert.deepEqual(heard, [1, 2, 3, 0, 5], 'the late packet is dropped');
});

test('a far end that sends nothing: a frame of silence each tick, three behind', () => {
  const { heard, ticks } = listen();
  ticks(10);
  assert.deepEqual(heard, [0, 0, 0, 0, 0, 0, 0]);
});

test('a far end that starts after the stream keeps the whole window for its jitter', () => {
  const { heard, push, ticks } = listen();
  ticks(10); // the stream began at the answer; the far end speaks later
  const silence = heard.length;
  push(0);
  // Every later packet comes two frames behind the first one's pace: within the window.
  ticks(2);
  for (let n = 1; n < 20; n++) {
    ticks(1);
    push(n);
  }
  assert.deepEqual(heard.slice(silence), frames(20), 'every frame heard, none given up');
});

test('30 ms packets (a frame and a half each), up to two frames late, lose nothing', () => {
  const heard: Int16Array[] = [];
  let ms = 0;
  const hearing = new StreamHearing((pcm) => heard.push(pcm.slice()), () => ms);
  const audio = Int16Array.from({ length: 240 * 30 }, (_, i) => (i % 1000) + 1);
  // A packet due every 30 ms from 100 ms on (after the stream began); every third comes 40 ms
  // late, every fifth 20 ms. A tick every 20 ms.
  const arrivals = Array.from({ length: 30 }, (_, k) => 100 + 30 * k + (k % 3 === 2 ? 40 : k % 5 === 4 ? 20 : 0));
  for (ms = 10; ms <= 1100; ms += 10) {
    arrivals.forEach((at, k) => {
      if (at === ms) hearing.push(SSRC, (T0 + 240 * k) >>> 0, audio.subarray(240 * k, 240 * k + 240));
    });
    if (ms % 20 === 0) hearing.tick();
  }
  const samples = new Int16Array(heard.length * 160);
  heard.forEach((frame, i) => samples.set(frame, i * 160));
  const start = samples.findIndex((s) => s !== 0);
  assert.deepEqual(samples.subarray(start, start + audio.length), audio, 'the far end\'s audio whole, in order');
});

test('a stalled media worker: the packets that waited in its socket are read, then the missed ticks played, and none is given up', () => {
  const { heard, hearing, push, ticks, stall } = listen();
  ticks(10);
  const silence = heard.length;
  for (let n = 0; n < 5; n++) {
    push(n);
    ticks(1);
  }
  // The worker stalls for 200 ms while the far end goes on: ten packets wait in the socket.
  // Then rtp/ticker.ts lets the loop read them before it plays the ten ticks it missed, at once.
  stall(200);
  for (let n = 5; n < 15; n++) push(n);
  for (let i = 0; i < 10; i++) hearing.tick();
  // The far end keeps its pace after the stall.
  for (let n = 15; n < 20; n++) {
    ticks(1);
    push(n);
  }
  assert.deepEqual(heard.slice(silence), frames(20));
});

test('a far end whose clock runs 0.5% slow for two minutes: its pace is followed, no frame is given up', () => {
  const heard: number[] = [];
  let ms = 0;
  const hearing = new StreamHearing((pcm) => heard.push(pcm[0] === pcm[159] ? pcm[0]! : -1), () => ms);
  // Packet n (20 ms of its audio) comes at 100 + n x 20.1 ms of our clock, a tick every 20 ms:
  // it falls a frame behind our clock every 4 s, the whole 60 ms window after 12 s.
  const N = 6000;
  let next = 0;
  for (let tick = 1; next < N; tick++) {
    while (next < N && 100 + next * 20.1 <= tick * 20) {
      ms = 100 + next * 20.1;
      hearing.push(SSRC, (T0 + 160 * next) >>> 0, frameOf(next + 1));
      next++;
    }
    ms = tick * 20;
    hearing.tick();
  }
  const start = heard.findIndex((frame) => frame !== 0);
  assert.deepEqual(heard.slice(start), frames(N), 'every frame heard, in order, none as silence');
});

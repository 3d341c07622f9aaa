// Issue 25, conference mixing in the RTP engine's workers, over real UDP on 127.0.0.1: three
// legs spread over two media workers (the conference bus is shared memory), two in µ-law and one in A-law, each fed a tone of its own pitch by a peer
// socket at the real 20 ms pace. Each peer's received audio holds the other two's tones and
// not its own (measured per pitch with a Goertzel filter); once B is muted nobody hears it
// (but it still hears the others); once C stops sending it adds silence; a held leg hears the
// hold tone. test/sip/live-conference.test.ts drives the same mixing through live calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { setTimeout as sleep } from 'node:timers/promises';
import { MediaEngine } from '../../src/carriers/rtp/engine.ts';
import { decodeG711, encodeG711, type G711Codec } from '../../src/carriers/rtp/g711.ts';
import { parseRtp, serializeRtp } from '../../src/carriers/rtp/packet.ts';

const RATE = 8000;
const AMPLITUDE = 6000;

interface Peer {
  socket: Socket;
  port: number;
  codec: G711Codec;
  hz: number;
  /** Decoded frames with their arrival, ms since the test's start. */
  received: Array<{ at: number; pcm: Int16Array }>;
}

let t0 = 0;

async function peer(codec: G711Codec, hz: number): Promise<Peer> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const received: Peer['received'] = [];
  socket.on('message', (datagram) => {
    const rtp = parseRtp(datagram);
    if (rtp && rtp.payloadType === (codec === 'PCMU' ? 0 : 8)) received.push({ at: performance.now() - t0, pcm: decodeG711(codec, rtp.payload) });
  });
  return { socket, port: (socket.address() as { port: number }).port, codec, hz, received };
}

/** Sends the peer's tone to `toPort` every 20 ms until `untilMs` (since the start). */
async function talk(p: Peer, toPort: number, untilMs: number): Promise<void> {
  for (let k = 0; performance.now() - t0 < untilMs; k++) {
    const pcm = Int16Array.from({ length: 160 }, (_, i) => Math.round(AMPLITUDE * Math.sin((2 * Math.PI * p.hz * (k * 160 + i)) / RATE)));
    const payload = encodeG711(p.codec, pcm);
    p.socket.send(serializeRtp({ payloadType: p.codec === 'PCMU' ? 0 : 8, marker: k === 0, sequence: k & 0xffff, timestamp: 1000 + k * 160, ssrc: p.hz, payload }), toPort, '127.0.0.1');
    await sleep(t0 + (k + 1) * 20 - performance.now());
  }
}

/** The amplitude of `hz` in what `p` received between `fromMs` and `toMs` (Goertzel). */
function level(p: Peer, hz: number, fromMs: number, toMs: number): number {
  const frames = p.received.filter((f) => f.at >= fromMs && f.at < toMs);
  const samples = new Int16Array(frames.length * 160);
  frames.forEach((f, i) => samples.set(f.pcm, i * 160));
  assert.ok(samples.length >= RATE / 4, `enough audio reached ${p.hz} Hz's peer between ${fromMs} and ${toMs} ms: ${samples.length} samples`);
  const w = (2 * Math.PI * hz) / RATE;
  let s1 = 0;
  let s2 = 0;
  for (const x of samples) {
    const s0 = x + 2 * Math.cos(w) * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  return (2 * Math.sqrt(Math.max(0, s1 * s1 + s2 * s2 - 2 * Math.cos(w) * s1 * s2))) / samples.length;
}

const HEARD = AMPLITUDE / 3;
/** Milliseconds of talk before the first window. */
const W = 1000;
const ABSENT = AMPLITUDE / 20;

test('a conference mixes its legs in the worker: each hears the others, never itself; muted not heard; a silent leg adds silence; held hears the hold tone', async () => {
  const engine = new MediaEngine({ host: '127.0.0.1', range: { min: 45200, max: 45398 }, workers: 2 });
  const a = await peer('PCMU', 500);
  const b = await peer('PCMA', 800);
  const c = await peer('PCMU', 1300);
  try {
    // Placed on the least loaded worker each: a and c share one, b is on the other.
    const ports = { a: await engine.open('a'), b: await engine.open('b'), c: await engine.open('c') };
    for (const [id, p] of [['a', a], ['b', b], ['c', c]] as const) {
      await engine.setRemote(id, { address: '127.0.0.1', port: p.port, codec: p.codec, payloadType: p.codec === 'PCMU' ? 0 : 8, dtmfPayloadType: null });
    }
    const hearing = (hears: string[] | null) => ({ bus: 'room', capacity: 3, hears });
    await engine.mix('a', hearing(['b', 'c']));
    await engine.mix('b', hearing(['a', 'c']));
    await engine.mix('c', hearing(['a', 'b']));
    t0 = performance.now();
    const talking = [talk(a, ports.a, W + 4000), talk(b, ports.b, W + 4000), talk(c, ports.c, W + 2000)];
    // After a warm-up W (two workers' first ticks on a loaded machine): 0-1 s everyone; 1-2 s B
    // muted; 2-3 s C silent too (its sender stopped); 3-4 s B held.
    await sleep(t0 + W + 1000 - performance.now());
    await engine.mix('a', hearing(['c']));
    await engine.mix('c', hearing(['a']));
    await sleep(t0 + W + 3000 - performance.now());
    await engine.mix('b', hearing(null));
    await Promise.all(talking);
    await sleep(200);

    // The windows leave 300 ms after each change for the jitter buffers to settle.
    const first = [W + 300, W + 950] as const;
    for (const [listener, hears, own] of [[a, [b, c], a], [b, [a, c], b], [c, [a, b], c]] as const) {
      for (const other of hears) assert.ok(level(listener, other.hz, ...first) > HEARD, `${listener.hz} Hz's leg hears ${other.hz} Hz: ${level(listener, other.hz, ...first)}`);
      assert.ok(level(listener, own.hz, ...first) < ABSENT, `${listener.hz} Hz's leg does not hear itself: ${level(listener, own.hz, ...first)}`);
    }
    const muted = [W + 1300, W + 1950] as const;
    assert.ok(level(a, b.hz, ...muted) < ABSENT && level(c, b.hz, ...muted) < ABSENT, 'muted B is heard by nobody');
    assert.ok(level(a, c.hz, ...muted) > HEARD && level(c, a.hz, ...muted) > HEARD, 'A and C still hear each other');
    assert.ok(level(b, a.hz, ...muted) > HEARD && level(b, c.hz, ...muted) > HEARD, 'muted B still hears both');
    const silent = [W + 2300, W + 2950] as const;
    assert.ok(level(a, c.hz, ...silent) < ABSENT, 'C stopped sending: A hears silence from it');
    assert.ok(level(b, a.hz, ...silent) > HEARD && level(b, c.hz, ...silent) < ABSENT, 'B hears A, and nothing of C');
    const held = [W + 3300, W + 3950] as const;
    assert.ok(level(b, 440, ...held) > HEARD / 2, `held B hears the hold tone: ${level(b, 440, ...held)}`);
    assert.ok(level(b, a.hz, ...held) < ABSENT, 'and not A any more');
  } finally {
    await engine.shutdown();
    for (const p of [a, b, c]) p.socket.close();
  }
});

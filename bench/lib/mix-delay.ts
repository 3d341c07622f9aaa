// The delay a conference mix adds, measured: a peer streams silence to one leg at the real
// 20 ms pace with a loud frame (a click) every half second, and the peers of other legs time
// when the click comes back out to them. Three routes on a two-worker engine: through a
// conference to a leg on the other worker (the bus between workers), to a leg on the same
// worker, and through a plain two-party bridge (the reference every call already has). Each
// includes the jitter buffer and the tick it waits for, so the difference between the
// conference routes and the bridge is what the mix adds.
import { createSocket, type Socket } from 'node:dgram';
import { MediaEngine } from '../../src/carriers/rtp/engine.ts';
import { decodeG711, encodeG711 } from '../../src/carriers/rtp/g711.ts';
import { parseRtp, serializeRtp } from '../../src/carriers/rtp/packet.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface MixDelays {
  crossWorker: number[];
  sameWorker: number[];
  bridge: number[];
}

async function socket(): Promise<Socket> {
  const s = createSocket('udp4');
  await new Promise<void>((resolve) => s.bind(0, '127.0.0.1', resolve));
  return s;
}

const port = (s: Socket) => (s.address() as { port: number }).port;

/** Times each click's arrival at `listener` after it was sent (ms), into `into`. */
export function timeClicks(listener: Socket, sentAt: () => number | null, into: number[]): void {
  let matched: number | null = null;
  listener.on('message', (datagram) => {
    const rtp = parseRtp(datagram);
    const sent = sentAt();
    if (!rtp || sent === null || matched === sent) return;
    const pcm = decodeG711('PCMU', rtp.payload);
    if (pcm.some((x) => Math.abs(x) > 4000)) {
      matched = sent;
      into.push(performance.now() - sent);
    }
  });
}

/** A silent 20 ms µ-law frame, and a loud one (1 kHz): the click a listener times. */
export const quiet = encodeG711('PCMU', new Int16Array(160));
export const click = encodeG711('PCMU', Int16Array.from({ length: 160 }, (_, i) => Math.round(12000 * Math.sin((2 * Math.PI * 1000 * i) / 8000))));

export async function measureMixDelay(range: { min: number; max: number }, seconds: number): Promise<MixDelays> {
  const engine = new MediaEngine({ host: '127.0.0.1', range, workers: 2 });
  const peers = { a: await socket(), b: await socket(), c: await socket(), d: await socket(), e: await socket() };
  const result: MixDelays = { crossWorker: [], sameWorker: [], bridge: [] };
  try {
    // Placement alternates over the two workers: a and c on one, b on the other; e beside d.
    const ports: Record<string, number> = {};
    for (const id of ['a', 'b', 'c', 'd'] as const) ports[id] = await engine.open(id);
    ports.e = await engine.open('e', { alongside: 'd' });
    for (const [id, peer] of Object.entries(peers)) {
      await engine.setRemote(id, { address: '127.0.0.1', port: port(peer), codec: 'PCMU', payloadType: 0, dtmfPayloadType: null });
    }
    const room = (hears: string[]) => ({ bus: 'delay', capacity: 3, hears });
    await engine.mix('a', room(['b', 'c']));
    await engine.mix('b', room(['a', 'c']));
    await engine.mix('c', room(['a', 'b']));
    await engine.bridge('d', 'e');
    let clickAt: number | null = null;
    timeClicks(peers.b, () => clickAt, result.crossWorker);
    timeClicks(peers.c, () => clickAt, result.sameWorker);
    timeClicks(peers.e, () => clickAt, result.bridge);
    const t0 = performance.now();
    for (let k = 0; k < seconds * 50; k++) {
      const loud = k % 25 === 10;
      const datagram = serializeRtp({ payloadType: 0, marker: k === 0, sequence: k, timestamp: k * 160, ssrc: 7, payload: loud ? click : quiet });
      if (loud) clickAt = performance.now();
      peers.a.send(datagram, ports.a!, '127.0.0.1');
      peers.d.send(datagram, ports.d!, '127.0.0.1');
      await sleep(t0 + (k + 1) * 20 - performance.now());
    }
    await sleep(300);
  } finally {
    await engine.shutdown();
    for (const peer of Object.values(peers)) peer.close();
  }
  return result;
}

export function describeDelays(label: string, ms: number[]): string {
  const sorted = [...ms].sort((x, y) => x - y);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return `${label}: median ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms (${sorted.length} clicks)`;
}

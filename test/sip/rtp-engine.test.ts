// The media worker end to end over real UDP on 127.0.0.1: SIPp's own RTP captures are
// replayed at their recorded pace into a leg, which latches to the real source, records,
// detects DTMF and bridges (transcoding A-law to µ-law) to a second leg; legs spread over
// several media worker threads, each carrying its own legs' packets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MediaEngine } from '../../src/carriers/rtp/engine.ts';
import { decodeG711, encodeG711 } from '../../src/carriers/rtp/g711.ts';
import { parseRtp, serializeRtp } from '../../src/carriers/rtp/packet.ts';
import { DtmfDetector } from '../../src/carriers/rtp/dtmf.ts';
import { decodeWav } from '../../src/media/wav.ts';
import { readRtpPcap, type CapturedRtp } from '../helpers/pcap.ts';
import { matchAudio } from '../helpers/audio-match.ts';
import { startUdpShim } from '../helpers/udp-shim.ts';

const SPEECH = readRtpPcap('/usr/share/sip-tester/g711a.pcap').slice(0, 150);
const speechPcm = () => concat(SPEECH.map((p) => decodeG711('PCMA', p.payload)));

function concat(parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

interface Peer {
  socket: Socket;
  port: number;
  received: { payloadType: number; timestamp: number; payload: Uint8Array }[];
}

async function peer(): Promise<Peer> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const received: Peer['received'] = [];
  socket.on('message', (datagram) => {
    const rtp = parseRtp(datagram);
    if (rtp) received.push({ payloadType: rtp.payloadType, timestamp: rtp.timestamp, payload: Uint8Array.from(rtp.payload) });
  });
  return { socket, port: (socket.address() as { port: number }).port, received };
}

/** Sends captured packets at the pace they were captured, as the original sender did. */
async function replay(from: Socket, packets: CapturedRtp[], toPort: number): Promise<void> {
  const start = performance.now();
  for (const packet of packets) {
    const wait = start + packet.atMs - performance.now();
    if (wait > 0) await sleep(wait);
    from.send(packet.datagram, toPort, '127.0.0.1');
  }
}

const tone = (samples: number, hz: number) => Int16Array.from({ length: samples }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * hz * i) / 8000)));

test('a leg latches to the real source, records both directions, detects DTMF and bridges with transcoding', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rtp-engine-'));
  const engine = new MediaEngine({ host: '127.0.0.1', range: { min: 41000, max: 41998 } });
  const caller = await peer();
  const callee = await peer();
  try {
    const portA = await engine.open('a');
    // b will be bridged to a, so it lives on a's media worker.
    const portB = await engine.open('b', { alongside: 'a' });
    assert.ok(portA % 2 === 0 && portA >= 41000 && portA <= 41998);
    const latched = new Promise((resolve) => engine.events.once('latched:a', resolve));
    const digits: string[] = [];
    engine.events.on('digit:a', (event: { digit: string }) => digits.push(event.digit));

    // The caller's SDP names a port it does not send from (as behind NAT): we must latch.
    await engine.setRemote('a', { address: '127.0.0.1', port: caller.port + 1, codec: 'PCMA', payloadType: 8, dtmfPayloadType: 101 });
    await engine.setRemote('b', { address: '127.0.0.1', port: callee.port, codec: 'PCMU', payloadType: 0, dtmfPayloadType: 101 });
    await engine.bridge('a', 'b');
    await engine.startRecording('a', join(dir, 'a.wav'));

    // The callee talks back: a 440 Hz tone in µ-law, 3 s, while the caller's speech plays.
    const calleeTone = tone(8000 * 3, 440);
    const calleeSend = (async () => {
      const start = performance.now();
      for (let k = 0; k * 160 < calleeTone.length; k++) {
        const payload = encodeG711('PCMU', calleeTone.subarray(k * 160, k * 160 + 160));
        callee.socket.send(serializeRtp({ payloadType: 0, marker: k === 0, sequence: k, timestamp: 5000 + k * 160, ssrc: 77, payload }), portB, '127.0.0.1');
        await sleep(start + (k + 1) * 20 - performance.now());
      }
    })();
    await replay(caller.socket, SPEECH, portA);
    await calleeSend;
    await replay(caller.socket, readRtpPcap('/usr/share/sip-tester/dtmf_2833_5.pcap'), portA);
    await sleep(200);
    assert.deepEqual(await latched, { type: 'latched', id: 'a', address: '127.0.0.1', port: caller.port });

    const recording = await engine.stopRecording('a');
    assert.ok(recording && recording.droppedFrames === 0);
    const wav = decodeWav(readFileSync(join(dir, 'a.wav')));
    assert.equal(wav.channels, 2);
    const heard = matchAudio(speechPcm(), wav.samples[0]!);
    assert.ok(heard.correlation > 0.99, `recorded caller channel correlation ${heard.correlation}`);
    const said = matchAudio(decodeG711('PCMU', encodeG711('PCMU', calleeTone)), wav.samples[1]!);
    assert.ok(said.correlation > 0.99, `recorded callee channel correlation ${said.correlation}`);
    assert.deepEqual(digits, ['5']);

    // The callee heard the caller's A-law speech as µ-law, and the relayed digit.
    const calleeAudio = concat(callee.received.filter((p) => p.payloadType === 0).map((p) => decodeG711('PCMU', p.payload)));
    const relayed = matchAudio(speechPcm(), calleeAudio, 40000);
    assert.ok(relayed.correlation > 0.99, `bridged audio correlation ${relayed.correlation}`);
    const detector = new DtmfDetector();
    assert.deepEqual(callee.received.filter((p) => p.payloadType === 101).map((p) => detector.accept(p.timestamp, p.payload)).filter(Boolean), ['5']);

    // Prompts and DTMF out, to the latched address.
    await engine.bridge('a', null);
    // Silence the leg sent while this thread was busy scoring the recording above is still
    // queued on the caller's socket and lands after this count: on a loaded machine that is
    // seconds of it, so the prompt is searched for over 5 s.
    const before = caller.received.length;
    const prompt = tone(1600, 1000);
    assert.deepEqual(await engine.play('a', prompt), { interrupted: false });
    await engine.sendDigits('a', '19#');
    await sleep(1000);
    const sent = caller.received.slice(before);
    const promptHeard = matchAudio(decodeG711('PCMA', encodeG711('PCMA', prompt)), concat(sent.filter((p) => p.payloadType === 8).map((p) => decodeG711('PCMA', p.payload))), 40000);
    assert.ok(promptHeard.correlation > 0.99, `prompt correlation ${promptHeard.correlation}`);
    const outDetector = new DtmfDetector();
    assert.deepEqual(sent.filter((p) => p.payloadType === 101).map((p) => outDetector.accept(p.timestamp, p.payload)).filter(Boolean), ['1', '9', '#']);

    const stats = await engine.close('a');
    assert.equal(stats?.latchedTo, `127.0.0.1:${caller.port}`);
    assert.equal(stats?.packetsLost, 0);
    assert.equal(stats?.digits, 1);
    const engineStats = await engine.stats();
    assert.equal(engineStats.sessions, 1);
    assert.ok(engineStats.ticker.ticks > 200);
  } finally {
    await engine.shutdown();
    caller.socket.close();
    callee.socket.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('through a lossy, reordering, jittery link the recording degrades gracefully and DTMF still arrives', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rtp-shim-'));
  const engine = new MediaEngine({ host: '127.0.0.1', range: { min: 42000, max: 42998 } });
  const caller = await peer();
  try {
    const port = await engine.open('lossy');
    const shim = await startUdpShim({ address: '127.0.0.1', port }, { loss: 0.05, reorder: 0.1, jitterMs: 30, seed: 1234 });
    const digits: string[] = [];
    engine.events.on('digit:lossy', (event: { digit: string }) => digits.push(event.digit));
    await engine.setRemote('lossy', { address: '127.0.0.1', port: shim.port, codec: 'PCMA', payloadType: 8, dtmfPayloadType: 101 });
    await engine.startRecording('lossy', join(dir, 'lossy.wav'));
    await replay(caller.socket, SPEECH, shim.port);
    for (const key of ['7', 'star']) await replay(caller.socket, readRtpPcap(`/usr/share/sip-tester/dtmf_2833_${key}.pcap`), shim.port);
    await sleep(300);
    await engine.stopRecording('lossy');
    const stats = await engine.close('lossy');
    await shim.close();

    assert.ok(shim.stats.dropped > 0 && shim.stats.reordered > 0, JSON.stringify(shim.stats));
    assert.deepEqual(digits, ['7', '*']);
    assert.ok(stats!.packetsLost > 0, 'losses are counted');
    const wav = decodeWav(readFileSync(join(dir, 'lossy.wav')));
    const heard = matchAudio(speechPcm(), wav.samples[0]!);
    // 5 % of frames missing: most of the speech is still there, exactly where it belongs.
    assert.ok(heard.correlation > 0.85, `correlation through the lossy link ${heard.correlation}`);
  } finally {
    await engine.shutdown();
    caller.socket.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('legs spread over the media workers, each of which carries its legs\' RTP; a bridge stays within one worker', async () => {
  const engine = new MediaEngine({ host: '127.0.0.1', range: { min: 40000, max: 40998 }, workers: 2 });
  const far = await peer();
  try {
    // Two legs on an idle two-worker engine land one per worker.
    const sources = new Set<number>();
    far.socket.on('message', (_datagram, from) => sources.add(from.port));
    const portX = await engine.open('x');
    const portY = await engine.open('y');
    await assert.rejects(engine.bridge('x', 'y'), /different workers/);
    const alongside = await engine.open('x2', { alongside: 'x' });
    await engine.bridge('x', 'x2');
    await engine.bridge('x', null);

    // Both workers send their legs' 20 ms frames: every leg's port is heard from.
    for (const id of ['x', 'y', 'x2']) await engine.setRemote(id, { address: '127.0.0.1', port: far.port, codec: 'PCMU', payloadType: 0, dtmfPayloadType: null });
    for (let i = 0; i < 100 && (far.received.length < 60 || sources.size < 3); i++) await sleep(50);
    assert.deepEqual([...sources].sort(), [portX, portY, alongside].sort());
    const stats = await engine.stats();
    assert.equal(stats.workers, 2);
    assert.equal(stats.sessions, 3);
    assert.ok(far.received.length >= 60, `packets from three legs: ${far.received.length}`);
    assert.ok(stats.packetsSent >= 60);
    for (const id of ['x', 'y', 'x2']) await engine.close(id);
    assert.equal((await engine.stats()).sessions, 0);
    await assert.rejects(engine.setRemote('y', { address: '127.0.0.1', port: far.port, codec: 'PCMU', payloadType: 0, dtmfPayloadType: null }), /no media session y/);
  } finally {
    await engine.shutdown();
    far.socket.close();
  }
});

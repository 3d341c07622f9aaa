// The RTP building blocks on their own: G.711 against SoX's encoder (an implementation
// nobody here wrote), RTP headers, RFC 4733 payloads, the jitter buffer and the WAV stream.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeG711, encodeG711, silenceByte } from '../../src/carriers/rtp/g711.ts';
import { parseRtp, serializeRtp } from '../../src/carriers/rtp/packet.ts';
import { DtmfDetector, parseTelephoneEvent, telephoneEventPackets } from '../../src/carriers/rtp/dtmf.ts';
import { JitterBuffer } from '../../src/carriers/rtp/jitter-buffer.ts';
import { WavStreamWriter } from '../../src/media/wav-stream.ts';
import { decodeWav } from '../../src/media/wav.ts';
import { readRtpPcap } from '../helpers/pcap.ts';

const hasSox = (() => {
  try {
    execFileSync('sox', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!hasSox && process.env.CI) throw new Error('sox is required on CI');
if (!hasSox) console.error('!!! sox is not installed: skipping the G.711 comparison against SoX');

test('G.711 µ-law and A-law decode every code exactly as SoX does and encode every 16-bit sample to SoX\'s code or its neighbour at a step boundary', { skip: !hasSox }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'g711-'));
  try {
    const pcm = Int16Array.from({ length: 65536 }, (_, i) => i - 32768);
    const raw = join(dir, 'all.s16');
    require_write(raw, Buffer.from(pcm.buffer));
    for (const [codec, type] of [['PCMU', 'u-law'], ['PCMA', 'a-law']] as const) {
      const encoded = join(dir, `all.${codec}`);
      execFileSync('sox', ['-D', '-t', 'raw', '-r', '8000', '-e', 'signed', '-b', '16', '-c', '1', '-L', raw, '-t', 'raw', '-e', type, '-b', '8', encoded]);
      const soxBytes = new Uint8Array(readFileSync(encoded));
      const ours = encodeG711(codec, pcm);
      // SoX rounds to the nearest quantisation step where G.711's reference truncates, so
      // the two may pick the neighbouring code exactly at a step boundary, nowhere else.
      const levels = [...new Set(decodeG711(codec, Uint8Array.from({ length: 256 }, (_, i) => i)))].sort((a, b) => a - b);
      const level = (code: number) => levels.indexOf(decodeG711(codec, Uint8Array.of(code))[0] as number);
      let mismatches = 0;
      for (let i = 0; i < ours.length; i++) {
        if (ours[i] === soxBytes[i]) continue;
        mismatches++;
        assert.equal(Math.abs(level(ours[i] as number) - level(soxBytes[i] as number)), 1, `${codec}: sample ${i - 32768} coded ${ours[i]} by us, ${soxBytes[i]} by SoX`);
      }
      assert.ok(mismatches < ours.length / 50, `${codec}: ${mismatches} boundary samples differ from SoX`);

      const codes = Uint8Array.from({ length: 256 }, (_, i) => i);
      const codesFile = join(dir, `codes.${codec}`);
      const decodedFile = join(dir, `codes.${codec}.s16`);
      require_write(codesFile, Buffer.from(codes));
      execFileSync('sox', ['-D', '-t', 'raw', '-r', '8000', '-e', type, '-b', '8', '-c', '1', codesFile, '-t', 'raw', '-e', 'signed', '-b', '16', '-L', decodedFile]);
      const soxPcm = new Int16Array(new Uint8Array(readFileSync(decodedFile)).buffer);
      assert.deepEqual(Array.from(decodeG711(codec, codes)), Array.from(soxPcm), `${codec}: decoder differs from SoX`);
    }
    assert.equal(silenceByte('PCMU'), 0xff);
    assert.equal(silenceByte('PCMA'), 0xd5);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function require_write(path: string, data: Buffer): void {
  execFileSync('tee', [path], { input: data, stdio: ['pipe', 'ignore', 'inherit'] });
}

test('RTP headers round-trip; CSRCs, extensions, padding are skipped; RTCP and junk are not RTP', () => {
  const packet = { payloadType: 8, marker: true, sequence: 65535, timestamp: 0xfffffff0, ssrc: 0xdeadbeef, payload: Uint8Array.of(1, 2, 3) };
  const wire = serializeRtp(packet);
  assert.deepEqual({ ...parseRtp(wire)!, payload: Array.from(parseRtp(wire)!.payload) }, { ...packet, payload: [1, 2, 3] });

  // V=2, P=1, X=1, CC=1: 12 + 4 (CSRC) + 4 + 4 (one extension word) + payload 2 + padding 2.
  const fancy = Buffer.from([0xb1, 0x00, 0, 1, 0, 0, 0, 160, 0, 0, 0, 9, 0, 0, 0, 7, 0xbe, 0xde, 0, 1, 9, 9, 9, 9, 0xaa, 0xbb, 0, 2]);
  assert.deepEqual(Array.from(parseRtp(fancy)!.payload), [0xaa, 0xbb]);
  assert.equal(parseRtp(Buffer.from([0x80, 200, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0])), undefined, 'RTCP sender report');
  assert.equal(parseRtp(Buffer.from('hello world!')), undefined);
  assert.equal(parseRtp(Buffer.from([0x80, 0])), undefined);
});

test('RFC 4733: SIPp\'s DTMF captures decode to their digits, once each despite the repeated end packets', () => {
  const names: Record<string, string> = { star: '*', pound: '#' };
  for (const key of ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'star', 'pound']) {
    const packets = readRtpPcap(`/usr/share/sip-tester/dtmf_2833_${key}.pcap`);
    const detector = new DtmfDetector();
    const digits = packets.map((p) => detector.accept(p.timestamp, p.payload)).filter((d) => d !== undefined);
    assert.deepEqual(digits, [names[key] ?? key], `dtmf_2833_${key}.pcap`);
    assert.ok(packets.some((p) => parseTelephoneEvent(p.payload)?.end), 'the capture has end packets');
  }
  const ours = telephoneEventPackets('#', 100);
  assert.equal(ours.length, 5 + 3);
  assert.equal(ours[0]!.marker, true);
  assert.deepEqual(ours.map((p) => parseTelephoneEvent(p.payload)!.duration), [160, 320, 480, 640, 800, 800, 800, 800]);
  assert.deepEqual(ours.map((p) => parseTelephoneEvent(p.payload)!.end), [false, false, false, false, false, true, true, true]);
});

test('the jitter buffer undoes reordering, plays loss as silence, drops late packets and counts them', () => {
  const frame = (value: number) => new Int16Array(160).fill(value);
  const buffer = new JitterBuffer(320);
  const out = new Int16Array(160);
  // Frames 1..6 at timestamps 1000 + 160k; 3 arrives after 4, 5 never arrives.
  for (const k of [1, 2, 4, 3, 6]) buffer.push(42, 1000 + 160 * k, frame(k));
  const played = Array.from({ length: 8 }, () => buffer.pull(out)[0]);
  // Two frames of depth, then 1,2,3,4, silence for 5, 6.
  assert.deepEqual(played, [0, 0, 1, 2, 3, 4, 0, 6]);
  buffer.push(42, 1000 + 160 * 5, frame(5));
  assert.equal(buffer.stats.late, 1);
  assert.equal(buffer.stats.concealedSamples, 160);
  buffer.push(42, 1000 + 160 * 6, frame(6));
  assert.equal(buffer.stats.late, 2);

  // A new SSRC starts a new stream one depth after the current position.
  buffer.push(7, 99, frame(9));
  assert.deepEqual([buffer.pull(out)[0], buffer.pull(out)[0], buffer.pull(out)[0]], [0, 0, 9]);
});

test('the WAV stream writes a valid dual-channel file in bounded chunks and patches its sizes at the end', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wavstream-'));
  try {
    // 100-frame chunks: sixteen disk writes in flight at most.
    const writer = await WavStreamWriter.create(join(dir, 'call.wav'), 100, 16);
    const left = Int16Array.from({ length: 160 }, (_, i) => i);
    const right = Int16Array.from({ length: 160 }, (_, i) => -i);
    for (let k = 0; k < 10; k++) writer.write(left, right);
    const result = await writer.close();
    assert.deepEqual({ frames: result.frames, dropped: result.droppedFrames }, { frames: 1600, dropped: 0 });
    const wav = decodeWav(readFileSync(join(dir, 'call.wav')));
    assert.equal(wav.channels, 2);
    assert.equal(wav.samples[0]!.length, result.frames);
    assert.deepEqual(Array.from(wav.samples[0]!.subarray(0, 160)), Array.from(left));
    assert.deepEqual(Array.from(wav.samples[1]!.subarray(160, 320)), Array.from(right));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

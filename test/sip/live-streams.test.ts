// Issue 27, media streams on live calls: SIPp plays the trunk (or the caller), a `ws` server on
// 127.0.0.1 plays the customer's media stream server, and the stream runs in the RTP engine's
// media worker. The audio SIPp streams reaches the server (its decoded frames correlate with
// SIPp's capture); an echo app's audio reaches the caller (the call's recording holds it, in
// shape); SIPp's RFC 2833 captures arrive as `dtmf` frames; and a bidirectional stream verb on
// an inbound call holds the flow until the app sends `stop`, then the flow goes on. The events
// reach a real webhook receiver. Through HTTP on both databases.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { freeUdpPort, peerAvailable, runSipp } from '../helpers/sipp.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';
import { startStreamServer, type StreamConnection, type StreamServer } from '../helpers/stream-server.ts';
import { sippAudio } from '../helpers/pcap.ts';
import { matchAudio } from '../helpers/audio-match.ts';
import { waitForFlow } from '../voice/flow-helpers.ts';
import { decodeG711 } from '../../src/carriers/rtp/g711.ts';

const hasSipp = peerAvailable('sipp');
const FROM = '+14155550142';
const TO = '+14155550199';
/** The inbound number SIPp calls; its voice_flow is set by each test. */
const INBOUND = '+14155550145';

let lv: LiveVoice;
let trunkPort: number;
let server: StreamServer;
/** Three seconds of 20 ms frames: what the echo app sends back. */
const ECHO_FRAMES = 150;

before(async () => {
  if (!hasSipp) return;
  trunkPort = await freeUdpPort();
  lv = await startLiveVoice({
    rtp: [52000, 52998],
    trunks: [`{ name: sipp, host: 127.0.0.1, port: ${trunkPort}, inbound_sources: [127.0.0.1/32], codecs: [PCMA, PCMU] }`],
    numbers: { [FROM]: 'sipp', [INBOUND]: 'sipp' },
  });
  // The customer's server. The echo app collects the first three seconds it hears and sends them
  // back in one message (any length is queued and paced at 20 ms), then a mark.
  server = await startStreamServer((connection, frame) => {
    if (!connection.path.includes('echo') || frame.event !== 'media' || frame.media.track !== 'inbound') return;
    const heard = mediaOf(connection.frames, 'inbound');
    if (heard.length !== ECHO_FRAMES) return;
    const payload = Buffer.concat(heard.map((f) => Buffer.from(f.media.payload, 'base64'))).toString('base64');
    connection.send({ event: 'media', stream_id: frame.stream_id, media: { payload } });
    connection.send({ event: 'mark', stream_id: frame.stream_id, mark: { name: 'echoed' } });
  });
});

after(async () => {
  await server?.close();
  await lv?.close();
});

const live = () => lv.live();

async function place(body: Record<string, unknown>): Promise<string> {
  const res = await live().post('/v1/calls', { from: FROM, to: TO, ...body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id;
}

/** µ-law frames' audio at 8 kHz. */
const mulaw = (frames: any[]) => concat(frames.map((f) => decodeG711('PCMU', Buffer.from(f.media.payload, 'base64'))));

/** 16 kHz L16 (little-endian) frames' audio, back at 8 kHz: the upsampler keeps every line sample at the even places. */
function l16At8k(frames: any[]): Int16Array {
  const bytes = Buffer.concat(frames.map((f) => Buffer.from(f.media.payload, 'base64')));
  const out = new Int16Array(bytes.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = bytes.readInt16LE(4 * i);
  return out;
}

function concat(parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
}

const mediaOf = (frames: any[], track: string) => frames.filter((f) => f.event === 'media' && f.media.track === track);

async function numberId(phoneNumber: string): Promise<string> {
  const numbers = (await live().get('/v1/numbers?limit=100')).body.data as { id: string; phone_number: string }[];
  const found = numbers.find((n) => n.phone_number === phoneNumber);
  assert.ok(found, `${phoneNumber} is one of the account's live numbers`);
  return found.id;
}

async function callTo(number: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const calls = (await live().get(`/v1/calls?to=${encodeURIComponent(number)}`)).body.data as { id: string }[];
    if (calls[0]) return calls[0].id;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no call to ${number}`);
}

describe('media streams on live calls (SIPp)', { skip: !hasSipp }, () => {
  test('the audio SIPp streams reaches the server as 16 kHz L16 frames that correlate with its capture; signed handshake; every frame in order', async () => {
    const sipp = await runSipp({ scenario: 'uas-answer-play.xml', port: trunkPort });
    const count = server.connections.length;
    const callId = await place({ flow: [{ stream: { url: `${server.url}?live=fork`, track: 'both', format: 'l16_16000', parameters: { lang: 'en' } } }, { pause: { seconds: 30 } }] });
    const connection = await server.connection(count);
    // SIPp hangs up after 7.5 s: the call ends, so does the stream (stop, call_ended).
    const frames = await connection.waitFor((f) => f.some((x) => x.event === 'stop'), 'stop', 40_000);
    assert.equal((await sipp.done).code, 0);
    const streamId = String(connection.headers['webhook-id']);
    assert.match(streamId, /^stream_/);

    const secret = (await live().get('/v1/webhooks/default_secret')).body.secret;
    const headers = { 'webhook-id': streamId, 'webhook-timestamp': String(connection.headers['webhook-timestamp']), 'webhook-signature': String(connection.headers['webhook-signature']) };
    new Webhook(secret).verify(JSON.stringify({ stream_id: streamId, url: `${server.url}?live=fork` }), headers);

    assert.deepEqual(frames.slice(0, 2).map((f) => f.event), ['connected', 'start']);
    assert.deepEqual(frames[1].start.tracks, ['inbound', 'outbound']);
    assert.deepEqual(frames[1].start.media_format, { encoding: 'audio/l16', sample_rate: 16000, channels: 1 });
    assert.deepEqual(frames[1].start.custom_parameters, { lang: 'en' });
    assert.equal(frames[1].start.call_id, callId);
    assert.deepEqual(frames.slice(1).map((f) => f.sequence_number), frames.slice(1).map((_, i) => i + 1), 'sequence numbers count every frame from start');
    assert.deepEqual(frames.at(-1).stop.reason, 'call_ended');
    for (const track of ['inbound', 'outbound']) {
      const media = mediaOf(frames, track);
      assert.ok(media.length > 200, `${track}: ${media.length} frames`);
      assert.deepEqual(media.map((f) => [f.media.chunk, f.media.timestamp]), media.map((_, i) => [i + 1, i * 20]), `${track}: a frame per 20 ms`);
      assert.ok(media.every((f) => Buffer.from(f.media.payload, 'base64').length === 640), `${track}: 20 ms at 16 kHz, 16-bit`);
    }

    // SIPp's capture from 1 s to 6 s (the stream started just after the answer) is in the inbound track.
    const heard = l16At8k(mediaOf(frames, 'inbound'));
    const { correlation } = matchAudio(sippAudio().subarray(8000, 6 * 8000), heard);
    assert.ok(correlation > 0.95, `the stream's inbound audio vs SIPp's: correlation ${correlation}`);

    const started = await lv.receiver.waitForEvent('call.stream.started', streamId);
    const stopped = await lv.receiver.waitForEvent('call.stream.stopped', streamId);
    assert.equal(started.data.object.call_id, callId);
    assert.deepEqual([stopped.data.object.reason, stopped.data.object.dropped_frames], ['call_ended', 0]);
  });

  test('a bidirectional stream whose app echoes: the caller hears the echo (the recording holds it on our side), and the mark comes back once it has played', async () => {
    const sipp = await runSipp({ scenario: 'uas-answer-play.xml', port: trunkPort });
    const count = server.connections.length;
    const callId = await place({ record: true, flow: [{ pause: { seconds: 30 } }] });
    await lv.receiver.waitForEvent('call.answered', callId, 15_000);
    const res = await live().post(`/v1/calls/${callId}/streams`, { url: `${server.url}?echo=1`, bidirectional: true });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'connecting');
    const connection = await server.connection(count);
    const frames = await connection.waitFor((f) => f.some((x) => x.event === 'stop'), 'stop', 40_000);
    assert.equal((await sipp.done).code, 0);
    const marks = frames.filter((f) => f.event === 'mark');
    assert.deepEqual(marks.map((f) => f.mark), [{ name: 'echoed' }], 'the mark came back, once, not cleared');
    // The mark waits for the three seconds queued before it: the call sent that many more frames first.
    const echoSent = frames.indexOf(mediaOf(frames, 'inbound')[ECHO_FRAMES - 1]);
    const framesBetween = mediaOf(frames.slice(echoSent, frames.indexOf(marks[0])), 'inbound').length;
    assert.ok(framesBetween >= ECHO_FRAMES - 2, `${framesBetween} frames went by before the mark`);

    // What the app heard is SIPp's audio; what it sent back is on our side of the recording
    // (outbound call: channel 0), whole and in shape.
    const heard = mulaw(mediaOf(frames, 'inbound').slice(0, ECHO_FRAMES));
    const source = matchAudio(heard.subarray(8000), sippAudio(), 4 * 8000);
    assert.ok(source.correlation > 0.95, `the app heard SIPp: correlation ${source.correlation}`);
    const wav = await lv.recordingOf(callId);
    const { correlation, lag } = matchAudio(heard, wav.samples[0]!, wav.samples[0]!.length);
    assert.ok(correlation > 0.95, `our side of the recording vs the echo the app sent: correlation ${correlation} at lag ${lag}`);
    const stopped = await lv.receiver.waitForEvent('call.stream.stopped', res.body.id);
    assert.equal(stopped.data.object.reason, 'call_ended');
  });

  test('SIPp\'s RFC 2833 captures arrive as dtmf frames with how long each key was held', async () => {
    const number = await numberId(INBOUND);
    const flow = [{ stream: { url: `${server.url}?live=dtmf` } }, { pause: { seconds: 20 } }];
    assert.equal((await live().patch(`/v1/numbers/${number}`, { voice_flow: flow, voice_url: null })).status, 200);
    const count = server.connections.length;
    const sipp = await runSipp({ scenario: 'uac-stream-dtmf.xml', remote: `127.0.0.1:${lv.sipPort}`, args: ['-s', INBOUND] });
    const connection = await server.connection(count);
    const frames = await connection.waitFor((f) => f.some((x) => x.event === 'stop'), 'stop', 40_000);
    assert.equal((await sipp.done).code, 0);
    const dtmf = frames.filter((f) => f.event === 'dtmf').map((f) => f.dtmf);
    assert.deepEqual(dtmf.map((d) => d.digit), ['4', '2', '#']);
    assert.ok(dtmf.every((d) => d.track === 'inbound' && d.duration > 0), JSON.stringify(dtmf));
    assert.equal(frames.at(-1).stop.reason, 'call_ended');
  });

  test('a bidirectional stream verb on an inbound call holds the flow until the app sends stop, then the flow goes on', async () => {
    const number = await numberId(INBOUND);
    const flow = [
      { stream: { url: `${server.url}?live=hold`, bidirectional: true, format: 'l16_8000' } },
      { say: { text: 'Back in the flow. Goodbye.' } },
      { hangup: {} },
    ];
    assert.equal((await live().patch(`/v1/numbers/${number}`, { voice_flow: flow, voice_url: null })).status, 200);
    const count = server.connections.length;
    // uac-inbound.xml: SIPp calls and waits for our BYE.
    const sipp = await runSipp({ scenario: 'uac-inbound.xml', remote: `127.0.0.1:${lv.sipPort}`, args: ['-s', INBOUND] });
    const connection: StreamConnection = await server.connection(count);
    await connection.waitFor((f) => mediaOf(f, 'inbound').length >= 25, 'half a second of media');
    const callId = await callTo(INBOUND);
    const held = (await live().get(`/v1/calls/${callId}/flow`)).body;
    assert.equal(held.log.length, 1, 'the flow waits on the stream');
    assert.equal(held.log[0].ended_at, null);

    // The app says something (a 400 Hz tone, 0.4 s), marks its end, and stops once it has played.
    const tone = Buffer.alloc(3200 * 2);
    for (let i = 0; i < 3200; i++) tone.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 400 * i) / 8000)), 2 * i);
    connection.send({ event: 'media', media: { payload: tone.toString('base64') } });
    connection.send({ event: 'mark', mark: { name: 'said' } });
    await connection.waitFor((f) => f.some((x) => x.event === 'mark'), 'the mark');
    connection.send({ event: 'stop' });

    const streamId = String(connection.headers['webhook-id']);
    const stopped = await lv.receiver.waitForEvent('call.stream.stopped', streamId);
    assert.deepEqual([stopped.data.object.reason, stopped.data.object.dropped_frames], ['completed', 0]);
    assert.equal((await sipp.done).code, 0, 'the flow went on and hung up');
    const done = await waitForFlow(live(), callId, (f) => f.log.length === 3 && f.log[2].ended_at !== null, 30_000);
    assert.deepEqual(done.log.map((e: any) => e.verb), ['stream', 'say', 'hangup']);
    assert.deepEqual(done.log[0].result, { stream_id: streamId, status: 'stopped', reason: 'completed' });
    assert.equal(done.log[1].result.reason, 'finished');
    const types = lv.receiver.events().filter((e) => e.data.object.id === streamId).map((e) => e.type);
    assert.deepEqual(types, ['call.stream.started', 'call.stream.stopped']);
  });
});

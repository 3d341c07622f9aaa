// Issue 27, bidirectional media streams in the sandbox: the app talks back. An echo server
// sends the far end's speech straight back: the call's recording holds that echo on the
// flow's channel, whole, where it was played (after the far end's words reached the app). The
// app's mark comes back only once the audio queued before it has played on the test clock;
// its `stop` ends the stream (completed) and the flow goes on. A `clear` cuts the queued audio
// at once (the recording is quiet after it) and returns the waiting marks as cleared. Through
// HTTP on both databases, with a `ws` server on 127.0.0.1 as the customer's.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';
import { startStreamServer, type StreamConnection, type StreamServer } from '../helpers/stream-server.ts';
import { matchAudio } from '../helpers/audio-match.ts';
import { decodeWav, type PcmAudio } from '../../src/media/wav.ts';
import { MAGIC } from './voice-helpers.ts';
import { waitForFlow } from './flow-helpers.ts';

const sandbox = useSandboxAccount({ SWITCHBOARD_SIM_TIME_SCALE: '1' });
const api = sandbox.api;
let echo: StreamServer;

/** µ-law to linear (G.711), so the test reads payloads without our own codec. */
function ulaw(byte: number): number {
  const u = ~byte & 0xff;
  const t = (((u & 0x0f) << 3) + 0x84) << ((u & 0x70) >> 4);
  return u & 0x80 ? 0x84 - t : t - 0x84;
}
const decode = (frames: any[]) => Int16Array.from(frames.flatMap((f) => [...Buffer.from(f.media.payload, 'base64')].map(ulaw)));

before(async () => {
  // The echo app: the tests send back what it heard, in one message once the words are over.
  echo = await startStreamServer();
});
after(() => echo.close());

async function advance(seconds: number): Promise<void> {
  const res = await api().post('/v1/sandbox/clock/advance', { seconds });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

async function place(flow: unknown[]): Promise<string> {
  const res = await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, record: true, flow });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await advance(1.05);
  await sandbox.receiver.waitForEvent('call.answered', res.body.id);
  return res.body.id;
}

async function recordingOf(callId: string): Promise<PcmAudio> {
  const call = (await api().get(`/v1/calls/${callId}`)).body;
  await sandbox.receiver.waitForEvent('call.recording.ready', call.recordings[0]);
  const res = await fetch(`${sandbox.server.url}/v1/recordings/${call.recordings[0]}/media`, { headers: { authorization: `Bearer ${sandbox.account.keys.sandbox}` } });
  assert.equal(res.status, 200);
  return decodeWav(Buffer.from(await res.arrayBuffer()));
}

/** Waits until no media came for `quietMs`: the whole utterance has arrived. */
async function allMedia(connection: StreamConnection, quietMs = 400): Promise<any[]> {
  await connection.waitFor((f) => f.some((x) => x.event === 'media'), 'media');
  for (let seen = -1; seen !== connection.frames.length;) {
    seen = connection.frames.length;
    await new Promise((r) => setTimeout(r, quietMs));
  }
  return connection.frames.filter((f) => f.event === 'media');
}

const peak = (samples: Int16Array, from: number, to: number) => samples.subarray(Math.max(0, from), to).reduce((m, v) => Math.max(m, Math.abs(v)), 0);

describe('issue 27: bidirectional sandbox streams', () => {
  test('an echo is heard and recorded at its place, a mark comes back after playback, and stop lets the flow go on', async () => {
    const count = echo.connections.length;
    const callId = await place([
      { stream: { url: echo.url, bidirectional: true } },
      { say: { text: 'Back to the flow.' } },
      { hangup: {} },
    ]);
    const connection = await echo.connection(count);
    const streamId = connection.headers['webhook-id'];
    await sandbox.receiver.waitForEvent('call.stream.started', String(streamId));
    const spokeAt = Date.now();
    assert.equal((await api().post(`/v1/sandbox/calls/${callId}/say`, { text: 'my account number is four two' })).status, 200);
    const media = await allMedia(connection);
    const heard = decode(media);
    const payload = Buffer.concat(media.map((f) => Buffer.from(f.media.payload, 'base64'))).toString('base64');
    connection.send({ event: 'media', stream_id: streamId, media: { payload } });
    const seconds = heard.length / 8000;
    assert.ok(seconds > 1, `the far end's words reached the app (${seconds} s)`);

    // The mark waits for the echo queued before it to play out on the test clock.
    connection.send({ event: 'mark', mark: { name: 'echoed' } });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(connection.frames.filter((f) => f.event === 'mark').length, 0, 'no mark while the echo still plays');
    await advance(seconds);
    const [mark] = (await connection.waitFor((f) => f.some((x) => x.event === 'mark'), 'the mark')).filter((f) => f.event === 'mark');
    assert.deepEqual(mark.mark, { name: 'echoed' });

    // The app's stop: the stream ends (completed) and the flow goes on to its say and hang-up.
    connection.send({ event: 'stop' });
    const stopped = await sandbox.receiver.waitForEvent('call.stream.stopped', String(streamId));
    assert.deepEqual([stopped.data.object.reason, stopped.data.object.dropped_frames], ['completed', 0]);
    const flow = await waitForFlow(api(), callId, (f) => f.log.some((e: any) => e.index === 1));
    assert.deepEqual(flow.log[0].result, { stream_id: streamId, status: 'stopped', reason: 'completed' });
    await advance(3);
    await sandbox.receiver.waitForEvent('call.completed', callId);

    // The echo is on the flow's channel (0: an outbound call's flow is its caller), whole and in
    // shape, no earlier than the far end's words in the stream and no later than the test's real time allowed.
    const wav = await recordingOf(callId);
    // The clock runs in real time too, so on a busy machine the echo may sit well into the call: search it all.
    const { lag, correlation } = matchAudio(heard, wav.samples[0]!, wav.samples[0]!.length);
    const startedMs = media[0].media.timestamp;
    assert.ok(correlation > 0.95, `the echo correlates with what the app heard (${correlation.toFixed(3)})`);
    const lagMs = (lag / 8000) * 1000;
    const realMs = Date.now() - spokeAt;
    assert.ok(lagMs >= startedMs - 20 && lagMs <= startedMs + realMs, `the echo sits at ${lagMs} ms: after the words reached the app (${startedMs} ms), within the ${realMs} ms the test took`);
    assert.ok(peak(wav.samples[0]!, 0, lag - 800) < 100, 'the flow\'s channel is quiet before the echo');
  });

  test('clear cuts the queued audio at once and returns the waiting marks as cleared', async () => {
    const count = echo.connections.length;
    const callId = await place([{ stream: { url: echo.url, bidirectional: true, format: 'l16_8000' } }, { hangup: {} }]);
    const connection = await echo.connection(count);
    const streamId = String(connection.headers['webhook-id']);
    await sandbox.receiver.waitForEvent('call.stream.started', streamId);
    // Four seconds of a loud 400 Hz tone in one message, then a mark behind it.
    const tone = Buffer.alloc(8000 * 4 * 2);
    for (let i = 0; i < 8000 * 4; i++) tone.writeInt16LE(Math.round(12000 * Math.sin((2 * Math.PI * 400 * i) / 8000)), 2 * i);
    const sentAt = Date.now();
    connection.send({ event: 'media', media: { payload: tone.toString('base64') } });
    connection.send({ event: 'mark', mark: { name: 'after-tone' } });
    // The tone is queued at the talk time it is taken in (the clock runs in real time too); give
    // it that moment before the clock jumps a second, so the jump falls inside the tone.
    await new Promise((r) => setTimeout(r, 500));
    await advance(1);
    connection.send({ event: 'clear' });
    const [mark] = (await connection.waitFor((f) => f.some((x) => x.event === 'mark'), 'the cleared mark')).filter((f) => f.event === 'mark');
    assert.deepEqual(mark.mark, { name: 'after-tone', cleared: true });
    const clearedMs = Date.now() - sentAt;
    connection.send({ event: 'stop' });
    await sandbox.receiver.waitForEvent('call.completed', callId);

    // The tone plays from about when it was sent, for about 1 s (the advance) plus the real time
    // the clear took to arrive; never its whole 4 s.
    const wav = await recordingOf(callId);
    const loud = [...wav.samples[0]!.keys()].filter((i) => Math.abs(wav.samples[0]![i]!) > 10_000);
    assert.ok(loud.length > 0, 'the tone was heard');
    const playedMs = ((loud.at(-1)! - loud[0]!) / 8000) * 1000;
    assert.ok(playedMs >= 950 && playedMs <= 1000 + clearedMs + 50, `the tone stopped at the clear: ${playedMs} ms of it (1000 + up to ${clearedMs})`);
    assert.ok(playedMs < 3500, 'the rest of the 4 s was dropped');
  });
});

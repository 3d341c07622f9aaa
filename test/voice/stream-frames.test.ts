// Issue 27, media streams in the sandbox: a flow's unidirectional `stream` (track both) sends
// the customer's WebSocket server every frame kind in order: connected, start (with the ids,
// tracks, format and custom parameters), media of what the flow says (outbound) and what the
// far end says (inbound; the embedded text-to-speech speaks it), dtmf for a key it presses,
// and stop when the call ends. Sequence numbers count every frame from 1; media timestamps
// are the talk time since the stream started in 20 ms steps. The handshake's signature
// verifies with the `standardwebhooks` library against the account's default secret. The
// REST surface starts, lists and stops a stream, and the URL policy refuses what it refuses
// for webhooks. Through HTTP, on both databases; the test moves the account's test clock.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';
import { startStreamServer, type StreamServer } from '../helpers/stream-server.ts';
import { MAGIC } from './voice-helpers.ts';
import { waitForFlow, waitForRunning } from './flow-helpers.ts';

// Private targets are refused as on a production server (loopback stays allowed in the sandbox).
const sandbox = useSandboxAccount({ SWITCHBOARD_SIM_TIME_SCALE: '1', SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: 'false' });
const api = sandbox.api;
let server: StreamServer;

before(async () => {
  server = await startStreamServer();
});
after(() => server.close());

async function advance(seconds: number): Promise<void> {
  const res = await api().post('/v1/sandbox/clock/advance', { seconds });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

async function place(flow: unknown[]): Promise<string> {
  const res = await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, flow });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await advance(1.05);
  await sandbox.receiver.waitForEvent('call.answered', res.body.id);
  return res.body.id;
}

/** Media timestamps of one track are 20 ms apart inside an utterance. */
function assertPaced(media: any[], track: string): void {
  const frames = media.filter((f) => f.media.track === track);
  assert.ok(frames.length > 10, `${track} media frames came (${frames.length})`);
  frames.forEach((f, i) => {
    assert.equal(f.media.chunk, i + 1, `${track} chunk numbers count from 1`);
    assert.equal(f.media.timestamp % 20, 0, 'timestamps are on the 20 ms grid');
    assert.equal(Buffer.from(f.media.payload, 'base64').length, 160, 'a µ-law frame is 160 bytes (20 ms at 8 kHz)');
    if (i > 0) assert.equal(f.media.timestamp - frames[i - 1].media.timestamp, 20, 'inside one utterance the frames are 20 ms apart');
  });
}

describe('issue 27: sandbox media stream frames', () => {
  test('a flow stream sends connected, start, outbound and inbound media, dtmf and stop, numbered and timed, over a signed handshake', async () => {
    const count = server.connections.length;
    const placedAt = Date.now();
    const callId = await place([
      { stream: { url: `${server.url}?leg=a`, track: 'both', parameters: { customer: 'c42', lang: 'en' } } },
      { say: { text: 'Hello, how can I help?' } },
      { gather: { input: ['dtmf'], num_digits: 1, timeout: 30 } },
      { hangup: {} },
    ]);
    const connection = await server.connection(count);
    // The stream verb does not hold the call: the say runs at once.
    await waitForRunning(api(), callId, 2);
    const flow = await waitForFlow(api(), callId, (f) => f.log[0]?.ended_at !== null);
    const streamId = flow.log[0].result.stream_id;
    assert.match(streamId, /^stream_[0-9a-z]{26}$/);

    // The signature: id = the stream id, content = the URL; the standardwebhooks library verifies it.
    const secret = (await api().get('/v1/webhooks/default_secret')).body.secret;
    assert.equal(connection.headers['webhook-id'], streamId);
    const headers = {
      'webhook-id': String(connection.headers['webhook-id']),
      'webhook-timestamp': String(connection.headers['webhook-timestamp']),
      'webhook-signature': String(connection.headers['webhook-signature']),
    };
    const signed = (url: string) => JSON.stringify({ stream_id: headers['webhook-id'], url });
    new Webhook(secret).verify(signed(`${server.url}?leg=a`), headers);
    assert.throws(() => new Webhook(secret).verify(signed(`${server.url}?leg=b`), headers), 'signed over the exact URL');
    assert.equal(connection.path, '/media?leg=a');

    // The far end speaks 2 s into the call and presses 7 after that; the press ends the gather and the call.
    await sandbox.receiver.waitForEvent('call.stream.started', streamId);
    await advance(2);
    assert.equal((await api().post(`/v1/sandbox/calls/${callId}/say`, { text: 'I would like to pay my bill' })).status, 200);
    // The test clock runs on in real time between advances: the far end spoke 2 s plus at most this long after the stream started.
    const realMs = Date.now() - placedAt;
    await connection.waitFor((frames) => frames.some((f) => f.event === 'media' && f.media.track === 'inbound'), 'inbound media');
    assert.equal((await api().post(`/v1/sandbox/calls/${callId}/press`, { digits: '7' })).status, 200);
    await sandbox.receiver.waitForEvent('call.completed', callId);
    const frames = await connection.waitFor((all) => all.some((f) => f.event === 'stop'), 'stop');
    await connection.closed;

    const kinds = frames.map((f) => f.event);
    assert.deepEqual(kinds.slice(0, 2), ['connected', 'start']);
    assert.equal(kinds.at(-1), 'stop');
    assert.deepEqual(kinds.filter((k) => k !== 'media'), ['connected', 'start', 'dtmf', 'stop'], 'dtmf after the speech, stop last');
    assert.ok(kinds.indexOf('dtmf') > kinds.lastIndexOf('media'), 'the key came after the far end finished speaking');
    frames.slice(1).forEach((f, i) => {
      assert.equal(f.sequence_number, i + 1, 'sequence numbers count every frame from 1');
      assert.equal(f.stream_id, streamId);
    });
    assert.deepEqual(frames[0], { event: 'connected', protocol: 'Call', version: '1.0.0' });
    assert.deepEqual(frames[1].start, {
      stream_id: streamId, call_id: callId, account_id: sandbox.account.account.id, tracks: ['inbound', 'outbound'],
      format: 'mulaw_8000', media_format: { encoding: 'audio/x-mulaw', sample_rate: 8000, channels: 1 },
      bidirectional: false, custom_parameters: { customer: 'c42', lang: 'en' },
    });
    const media = frames.filter((f) => f.event === 'media');
    assertPaced(media, 'outbound');
    assertPaced(media, 'inbound');
    // The flow spoke from the stream's start; the far end 2 s later.
    assert.equal(media.find((f) => f.media.track === 'outbound').media.timestamp, 0);
    const saidAt = media.find((f) => f.media.track === 'inbound').media.timestamp;
    assert.ok(saidAt >= 2000 && saidAt <= 2000 + realMs + 20, `the far end spoke at ${saidAt} ms of the stream (2000 + up to ${realMs})`);
    assert.deepEqual(frames.find((f) => f.event === 'dtmf').dtmf, { track: 'inbound', digit: '7', duration: 100 });
    assert.deepEqual(frames.at(-1).stop, { call_id: callId, account_id: sandbox.account.account.id, reason: 'call_ended' });

    const stopped = await sandbox.receiver.waitForEvent('call.stream.stopped', streamId);
    assert.equal(stopped.data.object.reason, 'call_ended');
    assert.equal(stopped.data.object.dropped_frames, 0);
    const listed = await api().get(`/v1/calls/${callId}/streams`);
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.data.map((s: any) => [s.id, s.status, s.source, s.track, s.bidirectional]), [[streamId, 'stopped', 'flow', 'both', false]]);
  });

  test('POST /v1/calls/{id}/streams starts a stream, stop ends it with reason stopped, and the URL policy holds', async () => {
    const count = server.connections.length;
    const callId = await place([{ pause: { seconds: 60 } }]);
    for (const [url, status, code] of [
      ['http://127.0.0.1/media', 400, 'validation_failed'],
      ['ws://10.1.2.3/media', 422, 'webhook_url_not_allowed'],
      ['ws://user:pw@127.0.0.1/media', 422, 'webhook_url_not_allowed'],
    ] as const) {
      const refused = await api().post(`/v1/calls/${callId}/streams`, { url });
      assert.equal(refused.status, status, `${url}: ${JSON.stringify(refused.body)}`);
      assert.equal(refused.body.code, code);
    }
    const started = await api().post(`/v1/calls/${callId}/streams`, { url: server.url, format: 'l16_16000' });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    assert.equal(started.body.status, 'connecting');
    assert.equal(started.body.source, 'api');
    const connection = await server.connection(count);
    await sandbox.receiver.waitForEvent('call.stream.started', started.body.id);
    await connection.waitFor((f) => f.some((x) => x.event === 'start'), 'start');
    assert.deepEqual(connection.frames[1].start.media_format, { encoding: 'audio/l16', sample_rate: 16000, channels: 1 });
    // 16 kHz L16: a 20 ms frame is 320 samples, 640 bytes.
    assert.equal((await api().post(`/v1/sandbox/calls/${callId}/say`, { text: 'testing one two' })).status, 200);
    const [first] = (await connection.waitFor((f) => f.some((x) => x.event === 'media'), 'media')).filter((x) => x.event === 'media');
    assert.equal(Buffer.from(first.media.payload, 'base64').length, 640);

    const stop = await api().post(`/v1/calls/${callId}/streams/${started.body.id}/stop`);
    assert.equal(stop.status, 200, JSON.stringify(stop.body));
    assert.deepEqual([stop.body.status, stop.body.reason], ['stopped', 'stopped'], 'the answer says the stream is stopped');
    const stopped = await sandbox.receiver.waitForEvent('call.stream.stopped', started.body.id);
    assert.equal(stopped.data.object.reason, 'stopped');
    await connection.closed;
    assert.deepEqual(connection.frames.at(-1).stop.reason, 'stopped');
    const again = await api().post(`/v1/calls/${callId}/streams/${started.body.id}/stop`);
    assert.deepEqual([again.status, again.body.status], [200, 'stopped']);
    const missing = await api().post(`/v1/calls/${callId}/streams/stream_01jd8x0v6kf5b9w3t2q1r0p9n8/stop`);
    assert.equal(missing.status, 404);
    // The call went on untouched.
    assert.equal((await api().get(`/v1/calls/${callId}`)).body.status, 'in_progress');
    assert.equal((await api().post(`/v1/calls/${callId}/hangup`)).status, 200);
  });
});

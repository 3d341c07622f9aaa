// The play verb through HTTP on the sandbox: the WAV is fetched from a real server on
// 127.0.0.1 (once per URL: it is cached), its duration times the play on the test clock
// (loop included), it can be a gather's prompt, and a URL that does not give a playable WAV
// is skipped with its reason in the flow log, never a stuck call.
// issue 12: the play verb (fetched under the URL policy, cached, loop).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';
import { encodeWav } from '../../src/media/wav.ts';
import { MAGIC } from './voice-helpers.ts';
import { waitForFlowEvent } from './flow-helpers.ts';

let audio: Server;
let base: string;
const hits = new Map<string, number>();
const SCALE = 0.01;
const sandbox = useSandboxAccount({ SWITCHBOARD_SIM_TIME_SCALE: String(SCALE) });
const api = sandbox.api;

/** 3 s of a 440 Hz tone at 16 kHz: the play must last 3 simulated seconds per loop. */
const TONE = encodeWav({ sampleRate: 16000, channels: 1, samples: [Int16Array.from({ length: 48000 }, (_, i) => Math.round(8000 * Math.sin(2 * Math.PI * 440 * i / 16000)))] });

before(async () => {
  audio = createServer((req, res) => {
    hits.set(req.url!, (hits.get(req.url!) ?? 0) + 1);
    if (req.url!.startsWith('/tone')) res.writeHead(200, { 'content-type': 'audio/wav' }).end(TONE);
    else if (req.url === '/text') res.writeHead(200, { 'content-type': 'text/plain' }).end('not audio');
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => audio.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(audio.address() as AddressInfo).port}`;
});
after(async () => {
  audio.closeAllConnections();
  await new Promise<void>((r) => audio.close(() => r()));
});

async function place(flow: unknown[]): Promise<string> {
  const res = await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, flow });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id;
}

const simulated = (e: any) => (Date.parse(e.ended_at) - Date.parse(e.started_at)) / 1000 / SCALE;

describe('play', () => {
  test('the WAV is fetched once per URL, and plays for its duration times loop', async () => {
    const url = `${base}/tone-a.wav`;
    const first = await place([{ play: { url, loop: 2 } }, { hangup: {} }]);
    await sandbox.receiver.waitForEvent('call.completed', first);
    const second = await place([{ play: { url } }, { hangup: {} }]);
    await sandbox.receiver.waitForEvent('call.completed', second);
    assert.equal(hits.get('/tone-a.wav'), 1, 'the second call played the cached file');
    const [a, b] = await Promise.all([first, second].map(async (id) => (await api().get(`/v1/calls/${id}/flow`)).body.log));
    assert.deepEqual(a.map((e: any) => [e.verb, e.result]), [['play', { reason: 'finished' }], ['hangup', {}]]);
    assert.ok(simulated(a[0]) >= 6 - 0.1, `two loops of 3 s took ${simulated(a[0])} simulated s`);
    assert.ok(simulated(b[0]) >= 3 - 0.1, `one loop of 3 s took ${simulated(b[0])} simulated s`);
    const flow = (await api().get(`/v1/calls/${second}/flow`)).body;
    assert.deepEqual(flow.flow[0], { play: { url, loop: 1 } }, 'defaults are filled in');
  });

  test('a gather can play a prompt: a scripted caller presses when it has played', async () => {
    const number = (await api().get('/v1/numbers?limit=1')).body.data[0];
    const gather = { gather: { num_digits: 1, timeout: 30, prompts: [{ play: { url: `${base}/tone-b.wav`, loop: 2 } }] } };
    assert.equal((await api().patch(`/v1/numbers/${number.id}`, { voice_flow: [gather] })).status, 200);
    const res = await api().post('/v1/sandbox/inbound_calls', { from: '+14155550123', to: number.phone_number, caller_script: [{ press: '7' }] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const [event] = await waitForFlowEvent(sandbox.receiver, res.body.id, 'call.gather.completed');
    assert.deepEqual([event!.data.object.digits, event!.data.object.reason], ['7', 'num_digits']);
    const log = (await api().get(`/v1/calls/${res.body.id}/flow`)).body.log;
    assert.ok(simulated(log[0]) >= 6 - 0.1, `the prompt (2 x 3 s) played before the key: ${simulated(log[0])} simulated s`);
    assert.equal(hits.get('/tone-b.wav'), 1);
  });

  test('a URL that gives no playable WAV (404, not audio) is skipped, its reason logged; the flow goes on', async () => {
    const id = await place([{ play: { url: `${base}/missing.wav` } }, { play: { url: `${base}/text` } }, { say: { text: 'Still here.' } }]);
    await sandbox.receiver.waitForEvent('call.completed', id);
    const log = (await api().get(`/v1/calls/${id}/flow`)).body.log;
    assert.deepEqual(log.map((e: any) => [e.verb, e.result.reason]), [['play', 'failed'], ['play', 'failed'], ['say', 'finished']]);
    assert.match(log[0].result.detail, /answered 404/);
    assert.match(log[1].result.detail, /not a WAV/);
  });

  test('a play URL outside the URL policy is refused when the flow is given', async () => {
    const res = await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, flow: [{ play: { url: 'http://0.0.0.0:9/a.wav' } }] });
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.equal(res.body.errors[0].field, 'flow[0].play.url');
  });
});

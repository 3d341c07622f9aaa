// Issue 25, `play` in a queue's wait flow, in the sandbox through HTTP (both databases): the
// WAV is fetched from a real server on 127.0.0.1 under the URL policy and the waiting caller
// hears it (its recording holds the file, found by correlation); a file that cannot be fetched
// is heard as a pause, and the wait flow goes on.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';
import { matchAudio } from '../helpers/audio-match.ts';
import { decodeWav, encodeWav } from '../../src/media/wav.ts';
import { MAGIC } from './voice-helpers.ts';

const sandbox = useSandboxAccount();
const api = () => sandbox.api();

/** 1 s sweeping 400 Hz to 2400 Hz at 8 kHz: found in a recording at one place only. */
const CHIRP = Int16Array.from({ length: 8000 }, (_, i) => {
  const t = i / 8000;
  return Math.round(6000 * Math.sin(2 * Math.PI * (400 * t + 1000 * t * t)));
});

let audio: Server;
let base: string;

describe('issue 25: play in a queue\'s wait flow', () => {
  before(async () => {
    audio = createServer((req, res) => {
      if (req.url === '/chirp.wav') res.writeHead(200, { 'content-type': 'audio/wav' }).end(encodeWav({ sampleRate: 8000, channels: 1, samples: [CHIRP] }));
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => audio.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(audio.address() as AddressInfo).port}`;
  });
  after(async () => {
    audio.closeAllConnections();
    await new Promise<void>((r) => audio.close(() => r()));
  });

  async function waitThrough(queue: string, waitFlow: unknown[]): Promise<string> {
    const created = await api().post('/v1/queues', { name: queue, wait_flow: waitFlow });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const res = await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, record: true, flow: [{ enqueue: { queue } }, { hangup: {} }] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await sandbox.receiver.waitForEvent('call.completed', res.body.id, 30_000);
    const entry = (await api().get(`/v1/calls/${res.body.id}/flow`)).body.log.find((e: any) => e.verb === 'enqueue');
    assert.equal(entry.result.result, 'leave', 'the wait flow went on to its leave');
    return res.body.id;
  }

  async function heardBy(callId: string): Promise<Int16Array> {
    const recording = (await api().get(`/v1/recordings?call_id=${callId}`)).body.data[0];
    await sandbox.receiver.waitForEvent('call.recording.ready', recording.id, 20_000);
    const res = await fetch(`${sandbox.server.url}/v1/recordings/${recording.id}/media`, { headers: { authorization: `Bearer ${sandbox.account.keys.sandbox}` } });
    assert.equal(res.status, 200);
    // Outbound: what the flow sent the callee is channel 0.
    return decodeWav(Buffer.from(await res.arrayBuffer())).samples[0]!;
  }

  test('the waiting caller hears the played file', async () => {
    const callId = await waitThrough(`played-${Date.now()}`, [{ play: { url: `${base}/chirp.wav` } }, { leave: {} }]);
    const heard = await heardBy(callId);
    const match = matchAudio(CHIRP, heard, heard.length);
    assert.ok(match.correlation > 0.9, `the caller heard the file (correlation ${match.correlation.toFixed(3)})`);
  });

  test('a file that cannot be fetched is a pause, and the wait flow goes on', async () => {
    const callId = await waitThrough(`unplayed-${Date.now()}`, [{ play: { url: `${base}/missing.wav` } }, { leave: {} }]);
    const heard = await heardBy(callId);
    assert.ok(matchAudio(CHIRP, heard, heard.length).correlation < 0.3, 'nothing of the file was heard');
  });
});

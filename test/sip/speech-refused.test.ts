// Without a speech-to-text endpoint (no `speech.stt` in the carriers file), a live call cannot
// hear words: a flow whose gather listens for speech is refused at validation (400 naming the
// path), and one that arrives by webhook fails with call.flow.failed naming why, then the
// caller hears the apology and the call ends (SIPp as the trunk).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer, type CreatedAccount } from '../helpers/server.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { subscribedReceiver } from '../voice/voice-helpers.ts';
import { freeUdpPort, peerAvailable, runSipp } from '../helpers/sipp.ts';
import { startFlowServer, type FlowServer } from '../helpers/flow-server.ts';

const hasSipp = peerAvailable('sipp');
const FROM = '+14155550142';
const TO = '+14155550199';
const SPEECH_GATHER = { gather: { input: ['dtmf', 'speech'], num_digits: 1 } };

let t: TestServer;
let acct: CreatedAccount;
let receiver: WebhookReceiver;
let app: FlowServer;
let trunkPort: number;
let carriersFile: string;

function cli(...args: string[]): Promise<{ status: number | null; stderr: string }> {
  const env: Record<string, string | undefined> = { ...process.env, SWITCHBOARD_DATA_DIR: t.store.dataDir, SWITCHBOARD_CARRIERS_FILE: carriersFile };
  if (t.store.databaseUrl) env.DATABASE_URL = t.store.databaseUrl;
  else delete env.DATABASE_URL;
  const child = spawn(process.execPath, ['bin/switchboard.js', ...args], { env });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stderr })));
}

before(async () => {
  if (!hasSipp) return;
  trunkPort = await freeUdpPort();
  carriersFile = join(mkdtempSync(join(tmpdir(), 'sb-nostt-')), 'carriers.yaml');
  writeFileSync(carriersFile, [
    'sip:',
    `  listen: { host: 127.0.0.1, udp_port: ${await freeUdpPort()} }`,
    '  public_host: 127.0.0.1',
    '  rtp: { port_min: 48000, port_max: 48998 }',
    '  trunks:',
    `    - { name: sipp, host: 127.0.0.1, port: ${trunkPort}, codecs: [PCMU] }`,
    '',
  ].join('\n'));
  t = await startTestServer({ SWITCHBOARD_CARRIERS_FILE: carriersFile });
  acct = await t.createAccount('growth');
  const imported = await cli('numbers', 'import', '--account', acct.account.id, '--number', FROM, '--trunk', 'sipp', '--json');
  assert.equal(imported.status, 0, imported.stderr);
  receiver = await subscribedReceiver(t, acct.keys.live);
  app = await startFlowServer();
});

after(async () => {
  await receiver?.close();
  await app?.close();
  await t?.close();
});

const live = () => t.as(acct.keys.live);

describe('speech gather on a live server without speech-to-text', { skip: !hasSipp }, () => {
  test('an inline flow is refused with 400 naming the gather, and nothing is created', async () => {
    const res = await live().post('/v1/calls', { from: FROM, to: TO, flow: [{ say: { text: 'Hello.' } }, SPEECH_GATHER] });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.code, 'validation_failed');
    assert.deepEqual(res.body.errors.map((e: { field: string; code: string }) => [e.field, e.code]), [['flow[1].gather.input', 'not_allowed']]);
    assert.match(res.body.errors[0].message, /no speech-to-text endpoint .*speech\.stt/);
    assert.equal((await live().get('/v1/calls')).body.data.length, 0);
    // DTMF gathers are fine.
    const dtmfOnly = await live().post('/v1/calls', { from: FROM, to: TO, flow: [{ gather: { input: ['dtmf'], num_digits: 1 } }], timeout: 1 });
    assert.equal(dtmfOnly.status, 200, JSON.stringify(dtmfOnly.body));
  });

  test('a flow webhook answering a speech gather: call.flow.failed (invalid_flow, the field), the apology, and the call ends', async () => {
    app.routes.set('/answer', [SPEECH_GATHER]);
    const sipp = await runSipp({ scenario: 'uas-answer-echo.xml', port: trunkPort, args: ['-rtp_echo'] });
    const res = await live().post('/v1/calls', { from: FROM, to: TO, answer_url: `${app.url}/answer` });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const id = res.body.id as string;
    const completed = (e: { type: string; data: { object: { id?: string } } }) => e.type === 'call.completed' && e.data.object.id === id;
    await receiver.waitFor((evs) => evs.some(completed), 60_000);
    assert.equal((await sipp.done).code, 0);
    const failed = receiver.events().find((e) => e.type === 'call.flow.failed' && e.data.object.call_id === id);
    assert.ok(failed, 'call.flow.failed was sent');
    assert.equal(failed.data.object.cause, 'invalid_flow');
    assert.equal(failed.data.object.field, 'flow[0].gather.input');
    assert.match(failed.data.object.detail, /no speech-to-text endpoint/);
    assert.equal(failed.data.object.next, 'apology');
    const flow = await live().get(`/v1/calls/${id}/flow`);
    assert.deepEqual(flow.body.log.map((e: { verb: string }) => e.verb), ['say', 'hangup'], 'the apology was said; the gather never ran');
  });
});

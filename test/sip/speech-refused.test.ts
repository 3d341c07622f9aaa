// Without a speech-to-text endpoint (no `speech.stt` in the carriers file), a live call cannot
// hear words: a flow whose gather listens for speech is refused at validation (400 naming the
// path), inline or stored on a number (voice_flow), and one that arrives by webhook fails with call.flow.failed naming why, then the
// caller hears the apology and the call ends (SIPp as the trunk). Nor can an AI agent answer a
// live number: giving it one is refused (400 naming the field), and a call to a number that
// has one anyway (attached before the endpoint was removed) hears an apology, with
// call.flow.failed saying why (SIPp as the carrier calling in).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer, type CreatedAccount } from '../helpers/server.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
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
let sipPort: number;
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
  sipPort = await freeUdpPort();
  carriersFile = join(mkdtempSync(join(tmpdir(), 'sb-nostt-')), 'carriers.yaml');
  writeFileSync(carriersFile, [
    'sip:',
    `  listen: { host: 127.0.0.1, udp_port: ${sipPort} }`,
    '  public_host: 127.0.0.1',
    '  rtp: { port_min: 48000, port_max: 48998 }',
    '  trunks:',
    `    - { name: sipp, host: 127.0.0.1, port: ${trunkPort}, codecs: [PCMU], inbound_sources: [127.0.0.1/32] }`,
    '',
  ].join('\n'));
  t = await startTestServer({ SWITCHBOARD_CARRIERS_FILE: carriersFile });
  acct = await t.createAccount('growth');
  const imported = await cli('numbers', 'import', '--account', acct.account.id, '--number', FROM, '--trunk', 'sipp', '--json');
  assert.equal(imported.status, 0, imported.stderr);
  receiver = await subscribeAll(t, acct.keys.live);
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
    // DTMF gathers are fine. SIPp answers busy, so this call ends before a later test's SIPp
    // takes the trunk port (a call still ringing there would be answered by that one instead).
    const busy = await runSipp({ scenario: 'uas-busy.xml', port: trunkPort });
    const dtmfOnly = await live().post('/v1/calls', { from: FROM, to: TO, flow: [{ gather: { input: ['dtmf'], num_digits: 1 } }] });
    assert.equal(dtmfOnly.status, 200, JSON.stringify(dtmfOnly.body));
    assert.equal((await busy.done).code, 0);
    const ended = (e: { type: string; data: { object: { id?: string } } }) => e.type === 'call.completed' && e.data.object.id === dtmfOnly.body.id;
    await receiver.waitFor((evs) => evs.some(ended), 30_000);
  });

  test('issue 12: a stored voice_flow with a speech gather is refused when saved on a live number (400 naming the path); a DTMF one is stored', async () => {
    const number = (await live().get('/v1/numbers')).body.data.find((n: { phone_number: string }) => n.phone_number === FROM);
    const res = await live().patch(`/v1/numbers/${number.id}`, { voice_flow: [{ say: { text: 'Hello.' } }, SPEECH_GATHER] });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.code, 'validation_failed');
    assert.deepEqual(res.body.errors.map((e: { field: string; code: string }) => [e.field, e.code]), [['voice_flow[1].gather.input', 'not_allowed']]);
    assert.match(res.body.errors[0].message, /no speech-to-text endpoint .*speech\.stt/);
    assert.equal((await live().get(`/v1/numbers/${number.id}`)).body.voice_flow, null, 'nothing was stored');
    const dtmfOnly = await live().patch(`/v1/numbers/${number.id}`, { voice_flow: [{ gather: { input: ['dtmf'], num_digits: 1 } }] });
    assert.equal(dtmfOnly.status, 200, JSON.stringify(dtmfOnly.body));
    assert.equal(dtmfOnly.body.voice_flow[0].gather.input[0], 'dtmf');
    // The sandbox hears speech: the same flow is stored on a sandbox number.
    const sandbox = t.as(acct.keys.sandbox);
    const sandboxNumber = (await sandbox.get('/v1/numbers?limit=1')).body.data[0];
    const stored = await sandbox.patch(`/v1/numbers/${sandboxNumber.id}`, { voice_flow: [SPEECH_GATHER] });
    assert.equal(stored.status, 200, JSON.stringify(stored.body));
  });

  test('a flow webhook answering a speech gather: call.flow.failed (invalid_flow, the field), the apology, and the call ends', async () => {
    app.routes.set('/answer', [SPEECH_GATHER]);
    const sipp = await runSipp({ scenario: 'uas-answer-echo.xml', port: trunkPort, args: ['-rtp_echo'] });
    const res = await live().post('/v1/calls', { from: FROM, to: TO, answer_url: `${app.url}/answer` });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const id = res.body.id as string;
    const completed = (e: { type: string; data: { object: { id?: string } } }) => e.type === 'call.completed' && e.data.object.id === id;
    const flowFailed = (e: { type: string; data: { object: { call_id?: string } } }) => e.type === 'call.flow.failed' && e.data.object.call_id === id;
    // Deliveries are concurrent: call.flow.failed may arrive after call.completed.
    await receiver.waitFor((evs) => evs.some(completed) && evs.some(flowFailed), 60_000);
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

describe('issue 13: live recordings on a server without speech-to-text', { skip: !hasSipp }, () => {
  test('a recorded call has its audio but no transcript (no segments)', async () => {
    const sipp = await runSipp({ scenario: 'uas-answer-echo.xml', port: trunkPort, args: ['-rtp_echo'] });
    const res = await live().post('/v1/calls', { from: FROM, to: TO, record: true, flow: [{ say: { text: 'Your order has shipped.' } }] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const id = res.body.id as string;
    const ready = (e: { type: string; data: { object: { call_id?: string } } }) => e.type === 'call.recording.ready' && e.data.object.call_id === id;
    const event = (await receiver.waitFor((evs) => evs.some(ready), 60_000)).find(ready)!;
    assert.equal((await sipp.done).code, 0);
    assert.ok(event.data.object.duration_seconds > 0, 'the audio is there');
    assert.deepEqual(event.data.object.transcript, { segments: [] });
  });
});

describe('the AI receptionist on a live server without speech-to-text', { skip: !hasSipp }, () => {
  test('a live number cannot be given an agent (400 naming the field); a call to one that has an agent anyway hears an apology, with call.flow.failed', async () => {
    const number = (await live().get('/v1/numbers')).body.data.find((n: { phone_number: string }) => n.phone_number === FROM);
    const agent = await live().post('/v1/ai/agents', { name: 'Front desk' });
    assert.equal(agent.status, 200, JSON.stringify(agent.body));
    const refusals = [
      [await live().patch(`/v1/numbers/${number.id}`, { agent_id: agent.body.id }), 'agent_id'],
      [await live().post('/v1/ai/agents', { name: 'Second desk', number_ids: [number.id] }), 'number_ids[0]'],
      [await live().patch(`/v1/ai/agents/${agent.body.id}`, { number_ids: [number.id] }), 'number_ids[0]'],
    ] as const;
    for (const [res, field] of refusals) {
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.deepEqual(res.body.errors.map((e: { field: string; code: string }) => [e.field, e.code]), [[field, 'not_allowed']]);
      assert.match(res.body.errors[0].message, /speech-to-text endpoint \(speech\.stt/);
    }
    assert.equal((await live().get(`/v1/numbers/${number.id}`)).body.agent_id, null);
    assert.deepEqual((await live().get('/v1/ai/agents')).body.data.map((a: { id: string }) => a.id), [agent.body.id], 'the refused create wrote nothing');

    // Attached while the server had an endpoint (written directly: the API refuses it now). The
    // API keeps one voice handler per number, so the DTMF voice_flow stored above goes with it.
    await t.server.built.platform.database.db.updateTable('numbers').set({ agent_id: agent.body.id, voice_flow: null, voice_url: null })
      .where('id', '=', number.id).execute();
    const sipp = await runSipp({ scenario: 'uac-inbound.xml', remote: `127.0.0.1:${sipPort}`, args: ['-s', FROM] });
    assert.equal((await sipp.done).code, 0, 'the call was answered, and we hung up');
    const inbound = (await live().get('/v1/calls')).body.data.find((c: { direction: string }) => c.direction === 'inbound');
    const completed = (e: { type: string; data: { object: { id?: string } } }) => e.type === 'call.completed' && e.data.object.id === inbound.id;
    const flowFailed = (e: { type: string; data: { object: { call_id?: string } } }) => e.type === 'call.flow.failed' && e.data.object.call_id === inbound.id;
    await receiver.waitFor((evs) => evs.some(completed) && evs.some(flowFailed), 30_000);
    const failed = receiver.events().find((e) => e.type === 'call.flow.failed' && e.data.object.call_id === inbound.id);
    assert.ok(failed, 'call.flow.failed was sent');
    assert.equal(failed.data.object.cause, 'unsupported_verb');
    assert.equal(failed.data.object.field, 'flow[0].agent');
    assert.match(failed.data.object.detail, /no speech-to-text endpoint/);
    assert.equal(failed.data.object.next, 'apology');
    const flow = await live().get(`/v1/calls/${inbound.id}/flow`);
    assert.deepEqual(flow.body.log.map((e: { verb: string; result: { reason?: string } }) => [e.verb, e.result.reason ?? null]), [['agent', 'unsupported'], ['say', 'finished'], ['hangup', null]]);
    assert.match(flow.body.flow[0].say.text, /receptionist can't take calls right now/, 'the caller heard why');
    assert.deepEqual((await live().get('/v1/ai/conversations')).body.data, [], 'no conversation started');
  });
});

// Flows on live calls over a SIP trunk played by SIPp on 127.0.0.1, for what the flows
// engineer added: a gather for speech on a server without speech-to-text is refused at
// validation (test/sip/speech-refused.test.ts has the webhook case); and
// POST /v1/calls/{id}/flow replaces a long say on the live call (interrupted), then hangs up.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer, type CreatedAccount } from '../helpers/server.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { subscribedReceiver, waitForTypes } from '../voice/voice-helpers.ts';
import { waitForRunning } from '../voice/flow-helpers.ts';
import { freeUdpPort, peerAvailable, runSipp, type SippRun } from '../helpers/sipp.ts';

const hasSipp = peerAvailable('sipp');
const FROM = '+14155550143';
const TO = '+14155550199';

let t: TestServer;
let acct: CreatedAccount;
let receiver: WebhookReceiver;
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
  const sipPort = await freeUdpPort();
  carriersFile = join(mkdtempSync(join(tmpdir(), 'sb-sip-flow-')), 'carriers.yaml');
  writeFileSync(carriersFile, [
    'sip:',
    `  listen: { host: 127.0.0.1, udp_port: ${sipPort} }`,
    '  public_host: 127.0.0.1',
    '  rtp: { port_min: 46000, port_max: 46998 }',
    '  trunks:',
    `    - { name: sipp, host: 127.0.0.1, port: ${trunkPort}, codecs: [PCMU, PCMA] }`,
    '',
  ].join('\n'));
  t = await startTestServer({ SWITCHBOARD_CARRIERS_FILE: carriersFile });
  acct = await t.createAccount('growth');
  const imported = await cli('numbers', 'import', '--account', acct.account.id, '--number', FROM, '--trunk', 'sipp', '--json');
  assert.equal(imported.status, 0, imported.stderr);
  receiver = await subscribedReceiver(t, acct.keys.live);
});

after(async () => {
  await receiver?.close();
  await t?.close();
});

const live = () => t.as(acct.keys.live);

async function place(flow: unknown[]): Promise<string> {
  const res = await live().post('/v1/calls', { from: FROM, to: TO, flow });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id;
}

async function sippOk(sipp: SippRun) {
  const result = await sipp.done;
  assert.equal(result.code, 0, result.errors);
}

describe('flows on live calls: limits and live control (SIPp)', { skip: !hasSipp }, () => {
  test('a gather for speech, which this server (no speech.stt) cannot hear, is refused at validation naming it; nothing is created', async () => {
    const res = await live().post('/v1/calls', { from: FROM, to: TO, flow: [{ say: { text: 'One moment.' } }, { gather: { input: ['speech'] } }, { say: { text: 'never said' } }] });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.deepEqual(res.body.errors.map((e: { field: string; code: string }) => [e.field, e.code]), [['flow[1].gather.input', 'not_allowed']]);
    assert.match(res.body.errors[0].message, /no speech-to-text endpoint/);
  });

  test('POST /v1/calls/{id}/flow interrupts a long say on the live call; the new flow hangs up', async () => {
    const sipp = await runSipp({ scenario: 'uas-answer-echo.xml', port: trunkPort, args: ['-rtp_echo'] });
    const long = Array.from({ length: 40 }, (_, i) => `sentence number ${i} of a very long announcement.`).join(' ');
    const id = await place([{ say: { text: long } }]);
    await waitForRunning(live(), id, 0);
    const res = await live().post(`/v1/calls/${id}/flow`, { flow: [{ hangup: {} }] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await waitForTypes(receiver, id, ['call.queued', 'call.ringing', 'call.answered', 'call.completed'], 60_000);
    await sippOk(sipp);
    const log = (await live().get(`/v1/calls/${id}/flow`)).body.log;
    assert.deepEqual(log.map((e: any) => [e.verb, e.result]), [['say', { reason: 'interrupted' }], ['hangup', {}]]);
  });
});

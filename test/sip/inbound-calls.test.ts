// Inbound live calls over SIP, SIPp playing the carrier (and a PBX that authenticates by
// password): admitted INVITEs to an account's live numbers become inbound calls the account
// sees (webhooks, the API); anything else is refused with the SIP code that says why and
// never reaches an account.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { waitForTypes } from '../voice/voice-helpers.ts';
import { freeUdpPort, peerAvailable, runSipp, type SippRun } from '../helpers/sipp.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';

const hasSipp = peerAvailable('sipp');
const CARRIER_NUMBER = '+14155550142';
const PBX_NUMBER = '+14155550143';
const CALLER = '+15557770000';

let lv: LiveVoice;
let sipPort: number;

before(async () => {
  if (!hasSipp) return;
  process.env.PBX_INBOUND_PASSWORD = 'pbx-s3cret';
  lv = await startLiveVoice({
    rtp: [46000, 46998],
    trunks: [
      // The carrier sends from 127.0.0.1 only; the PBX may call from anywhere with its password.
      `{ name: carrier, host: 127.0.0.1, port: ${await freeUdpPort()}, inbound_sources: [127.0.0.1/32] }`,
      '{ name: pbx, host: 127.0.0.3, inbound_auth: { username: pbxuser, password: "env:PBX_INBOUND_PASSWORD" } }',
    ],
    numbers: { [CARRIER_NUMBER]: 'carrier', [PBX_NUMBER]: 'pbx' },
  });
  sipPort = lv.sipPort!;
});

after(async () => {
  await lv?.close();
});

const live = () => lv.live();

async function finalResponse(sipp: SippRun): Promise<string> {
  const result = await sipp.done;
  assert.equal(result.code, 0, result.errors);
  const file = join(sipp.dir, 'final-response.txt');
  for (let i = 0; i < 40 && !existsSync(file); i++) await sleep(50);
  return readFileSync(file, 'utf8').trim();
}

async function callsTo(number: string): Promise<{ id: string; direction: string; from: string; status: string }[]> {
  const res = await live().get(`/v1/calls?to=${encodeURIComponent(number)}`);
  assert.equal(res.status, 200);
  return res.body.data;
}

describe('inbound live calls over SIP', { skip: !hasSipp }, () => {
  test('the carrier calls our number: an inbound call rings, is answered, says the number is not set up, and hangs up', async () => {
    const sipp = await runSipp({ scenario: 'uac-inbound.xml', remote: `127.0.0.1:${sipPort}`, args: ['-s', CARRIER_NUMBER] });
    const done = await sipp.done;
    assert.equal(done.code, 0, done.errors);
    const [call] = await callsTo(CARRIER_NUMBER);
    assert.ok(call, 'the account sees the call');
    assert.equal(call.direction, 'inbound');
    assert.equal(call.from, CALLER);
    const events = await waitForTypes(lv.receiver, call.id, ['call.ringing', 'call.answered', 'call.completed'], 30_000);
    const completed = events[2]!.data.object;
    assert.equal(completed.hangup_source, 'callee', 'our side (the called number) hung up');
    assert.equal(completed.sip_status, 200);
    const flow = await live().get(`/v1/calls/${call.id}/flow`);
    assert.deepEqual(flow.body.log.map((e: { verb: string; result: { reason: string } }) => [e.verb, e.result.reason]), [['say', 'finished']]);
  });

  test('refused before any account is reached: unknown number 404, unknown source challenged 401', async () => {
    let sipp = await runSipp({ scenario: 'uac-refused.xml', remote: `127.0.0.1:${sipPort}`, args: ['-s', '+14155550999'] });
    assert.equal(await finalResponse(sipp), '404');
    sipp = await runSipp({ scenario: 'uac-refused.xml', localIp: '127.0.0.2', remote: `127.0.0.1:${sipPort}`, args: ['-s', CARRIER_NUMBER] });
    assert.equal(await finalResponse(sipp), '401');
    assert.equal((await callsTo('+14155550999')).length, 0);
    assert.equal((await callsTo(CARRIER_NUMBER)).length, 1, 'only the admitted call of the first test');
  });

  test('a PBX that answers the digest challenge reaches its own number, not the carrier\'s; a wrong password is 403', async () => {
    const args = (number: string, password: string) => ['-s', number, '-au', 'pbxuser', '-ap', password];
    let sipp = await runSipp({ scenario: 'uac-inbound-digest.xml', localIp: '127.0.0.2', remote: `127.0.0.1:${sipPort}`, args: args(PBX_NUMBER, 'pbx-s3cret') });
    const done = await sipp.done;
    assert.equal(done.code, 0, done.errors);
    assert.equal(existsSync(join(sipp.dir, 'final-response.txt')), false, 'answered, not refused');
    const [call] = await callsTo(PBX_NUMBER);
    assert.ok(call);
    await waitForTypes(lv.receiver, call.id, ['call.ringing', 'call.answered', 'call.completed'], 30_000);

    sipp = await runSipp({ scenario: 'uac-inbound-digest.xml', localIp: '127.0.0.2', remote: `127.0.0.1:${sipPort}`, args: args(CARRIER_NUMBER, 'pbx-s3cret') });
    assert.equal(await finalResponse(sipp), '404', 'the PBX trunk does not deliver the carrier trunk\'s number');
    sipp = await runSipp({ scenario: 'uac-inbound-digest.xml', localIp: '127.0.0.2', remote: `127.0.0.1:${sipPort}`, args: args(PBX_NUMBER, 'wrong') });
    assert.equal(await finalResponse(sipp), '403');
    assert.equal((await callsTo(PBX_NUMBER)).length, 1);
    assert.equal((await callsTo(CARRIER_NUMBER)).length, 1);
  });
});

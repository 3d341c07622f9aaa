// Inbound live calls over SIP, SIPp playing the carrier (and a PBX that authenticates by
// password): admitted INVITEs to an account's live numbers become inbound calls the account
// sees (webhooks, the API) and run the number's voice configuration (a stored voice_flow, a
// voice_url answered by the customer's flow server, or the "not set up" message); anything
// else is refused with the SIP code that says why and never reaches an account.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { allEventsOf, waitForFlowEvent } from '../voice/flow-helpers.ts';
import { freeUdpPort, peerAvailable, runSipp, sippFinalResponse } from '../helpers/sipp.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';
import { startFlowServer, type FlowServer } from '../helpers/flow-server.ts';

const hasSipp = peerAvailable('sipp');
const CARRIER_NUMBER = '+14155550142';
const PBX_NUMBER = '+14155550143';
/** A carrier number the voice-configuration tests set up (the first tests count calls to the others). */
const MENU_NUMBER = '+14155550144';
const CALLER = '+15557770000';

let lv: LiveVoice;
let sipPort: number;
let app: FlowServer;

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
    numbers: { [CARRIER_NUMBER]: 'carrier', [PBX_NUMBER]: 'pbx', [MENU_NUMBER]: 'carrier' },
  });
  sipPort = lv.sipPort!;
  app = await startFlowServer();
  app.secrets.push(lv.receiver.secrets[0]!);
});

after(async () => {
  await app?.close();
  await lv?.close();
});

const live = () => lv.live();

async function callsTo(number: string): Promise<{ id: string; direction: string; from: string; status: string }[]> {
  const res = await live().get(`/v1/calls?to=${encodeURIComponent(number)}`);
  assert.equal(res.status, 200);
  return res.body.data;
}

describe('inbound live calls over SIP', { skip: !hasSipp }, () => {
  test('the carrier calls a number with no voice configuration: it rings, is answered, says it is not set up, hangs up, and call.flow.failed says why', async () => {
    const sipp = await runSipp({ scenario: 'uac-inbound.xml', remote: `127.0.0.1:${sipPort}`, args: ['-s', CARRIER_NUMBER] });
    const done = await sipp.done;
    assert.equal(done.code, 0, done.errors);
    const [call] = await callsTo(CARRIER_NUMBER);
    assert.ok(call, 'the account sees the call');
    assert.equal(call.direction, 'inbound');
    assert.equal(call.from, CALLER);
    await lv.receiver.waitForEvent('call.completed', call.id, 30_000);
    const events = allEventsOf(lv.receiver, call.id);
    assert.deepEqual(events.map((e) => e.type), ['call.inbound', 'call.ringing', 'call.flow.failed', 'call.answered', 'call.completed']);
    assert.deepEqual(events.map((e) => e.sequence), [1, 2, 3, 4, 5]);
    assert.equal(events[2]!.data.object.cause, 'no_voice_config');
    assert.match(events[2]!.data.object.detail, /PATCH \/v1\/numbers\/num_/);
    const completed = events[4]!.data.object;
    assert.equal(completed.hangup_source, 'callee', 'our side (the called number) hung up');
    assert.equal(completed.sip_status, 200);
    const flow = await live().get(`/v1/calls/${call.id}/flow`);
    assert.deepEqual(flow.body.log.map((e: { verb: string }) => e.verb), ['say', 'hangup']);
    assert.equal(flow.body.log[0].result.reason, 'finished');
  });

  test('refused before any account is reached: unknown number 404, unknown source challenged 401', async () => {
    let sipp = await runSipp({ scenario: 'uac-refused.xml', remote: `127.0.0.1:${sipPort}`, args: ['-s', '+14155550999'] });
    assert.equal(await sippFinalResponse(sipp), '404');
    sipp = await runSipp({ scenario: 'uac-refused.xml', localIp: '127.0.0.2', remote: `127.0.0.1:${sipPort}`, args: ['-s', CARRIER_NUMBER] });
    assert.equal(await sippFinalResponse(sipp), '401');
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
    const completed = await lv.receiver.waitForEvent('call.completed', call.id, 30_000);
    assert.equal(completed.data.object.status, 'completed');

    sipp = await runSipp({ scenario: 'uac-inbound-digest.xml', localIp: '127.0.0.2', remote: `127.0.0.1:${sipPort}`, args: args(CARRIER_NUMBER, 'pbx-s3cret') });
    assert.equal(await sippFinalResponse(sipp), '404', 'the PBX trunk does not deliver the carrier trunk\'s number');
    sipp = await runSipp({ scenario: 'uac-inbound-digest.xml', localIp: '127.0.0.2', remote: `127.0.0.1:${sipPort}`, args: args(PBX_NUMBER, 'wrong') });
    assert.equal(await sippFinalResponse(sipp), '403');
    assert.equal((await callsTo(PBX_NUMBER)).length, 1);
    assert.equal((await callsTo(CARRIER_NUMBER)).length, 1);
  });

  test('a number\'s stored voice_flow answers: SIPp\'s RFC 2833 digits barge in on the prompt and end the gather on #', async () => {
    const number = await numberOf(MENU_NUMBER);
    const flow = [
      { gather: { input: ['dtmf'], finish_on_key: '#', timeout: 10, prompts: [{ say: { text: 'Please enter your account code, then press pound.' } }] } },
      // Long enough that SIPp's BYE (0.8 s after its #) comes while it is said.
      { say: { text: 'Thank you. Please hold while I look up your account; this can take a little while.' } },
    ];
    const set = await live().patch(`/v1/numbers/${number.id}`, { voice_flow: flow, voice_url: null });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    // uac-dtmf.xml: SIPp sends 4 (over the prompt), 2 and # as RFC 2833 events, then hangs up.
    const sipp = await runSipp({ scenario: 'uac-dtmf.xml', remote: `127.0.0.1:${sipPort}`, args: ['-s', MENU_NUMBER] });
    const done = await sipp.done;
    assert.equal(done.code, 0, done.errors);
    const [call] = await callsTo(MENU_NUMBER);
    assert.ok(call);
    const [gathered] = await waitForFlowEvent(lv.receiver, call.id, 'call.gather.completed');
    assert.equal(gathered!.data.object.digits, '42');
    assert.equal(gathered!.data.object.reason, 'finish_key');
    const completed = await lv.receiver.waitForEvent('call.completed', call.id, 30_000);
    const log = (await live().get(`/v1/calls/${call.id}/flow`)).body.log as { verb: string; result: { reason: string } }[];
    assert.equal(completed.data.object.hangup_source, 'caller', `SIPp hung up; flow log ${JSON.stringify(log)}, call ${JSON.stringify(completed.data.object)}`);
    assert.deepEqual(log.map((e) => [e.verb, e.result.reason]), [['gather', 'finish_key'], ['say', 'hangup']]);
    const types = allEventsOf(lv.receiver, call.id).map((e) => e.type);
    assert.deepEqual(types.slice(0, 3), ['call.inbound', 'call.ringing', 'call.answered']);
    assert.ok(!types.includes('call.flow.failed'), `no flow failure: ${types.join(', ')}`);
  });

  test('a number\'s voice_url answers: the signed answer webhook carries the call, its gather\'s action_url gets the digits and answers the next flow', async () => {
    const number = await numberOf(MENU_NUMBER);
    app.routes.set('/live/answer', [
      { gather: { input: ['dtmf'], finish_on_key: '#', timeout: 10, action_url: `${app.url}/live/code`, prompts: [{ say: { text: 'Please enter your account code, then press pound.' } }] } },
      { say: { text: 'We did not get a code. Goodbye.' } },
    ]);
    app.routes.set('/live/code', (req) => [{ say: { text: `You entered ${req.body.gather.digits.split('').join(' ')}. Goodbye.` } }, { hangup: {} }]);
    const set = await live().patch(`/v1/numbers/${number.id}`, { voice_url: `${app.url}/live/answer`, voice_flow: null });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const before = (await callsTo(MENU_NUMBER)).length;
    const sipp = await runSipp({ scenario: 'uac-dtmf.xml', remote: `127.0.0.1:${sipPort}`, args: ['-s', MENU_NUMBER] });
    const done = await sipp.done;
    assert.equal(done.code, 0, done.errors);
    const calls = await callsTo(MENU_NUMBER);
    assert.equal(calls.length, before + 1);
    const call = calls[0]!;
    const [answer] = await app.waitForRequests('/live/answer', 1, 30_000);
    const [code] = await app.waitForRequests('/live/code', 1, 30_000);
    for (const request of [answer!, code!]) {
      assert.equal(request.verified, true, 'signed with the live default secret');
      assert.equal(request.body.call.id, call.id);
      assert.equal(request.body.call.direction, 'inbound');
      assert.equal(request.body.call.from, CALLER);
      assert.equal(request.body.call.to, MENU_NUMBER);
    }
    assert.deepEqual([code!.body.reason, code!.body.gather.digits, code!.body.gather.reason], ['gather', '42', 'finish_key']);
    await lv.receiver.waitForEvent('call.completed', call.id, 30_000);
    const log = (await live().get(`/v1/calls/${call.id}/flow`)).body.log as { verb: string }[];
    assert.deepEqual(log.slice(0, 2).map((e) => e.verb), ['gather', 'say'], 'the gather, then the flow the action_url answered');
  });
});

async function numberOf(phoneNumber: string): Promise<{ id: string }> {
  const numbers = (await live().get('/v1/numbers?limit=100')).body.data as { id: string; phone_number: string }[];
  const found = numbers.find((n) => n.phone_number === phoneNumber);
  assert.ok(found, `${phoneNumber} is one of the account's live numbers`);
  return found;
}

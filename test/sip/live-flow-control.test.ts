// Flows on live calls over a SIP trunk played by SIPp on 127.0.0.1, for what the flows
// engineer added: a gather for speech on a server without speech-to-text is refused at
// validation (test/sip/speech-refused.test.ts has the webhook case); and
// POST /v1/calls/{id}/flow replaces a long say on the live call (interrupted), then hangs up.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { waitForTypes } from '../voice/voice-helpers.ts';
import { waitForRunning } from '../voice/flow-helpers.ts';
import { freeUdpPort, peerAvailable, runSipp, type SippRun } from '../helpers/sipp.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';

const hasSipp = peerAvailable('sipp');
const FROM = '+14155550143';
const TO = '+14155550199';

let lv: LiveVoice;
let trunkPort: number;

before(async () => {
  if (!hasSipp) return;
  trunkPort = await freeUdpPort();
  lv = await startLiveVoice({
    rtp: [46000, 46998],
    trunks: [`{ name: sipp, host: 127.0.0.1, port: ${trunkPort}, codecs: [PCMU, PCMA] }`],
    numbers: { [FROM]: 'sipp' },
  });
});

after(async () => {
  await lv?.close();
});

const live = () => lv.live();

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
    await waitForTypes(lv.receiver, id, ['call.queued', 'call.ringing', 'call.answered', 'call.completed'], 60_000);
    await sippOk(sipp);
    const log = (await live().get(`/v1/calls/${id}/flow`)).body.log;
    assert.deepEqual(log.map((e: any) => [e.verb, e.result]), [['say', { reason: 'interrupted' }], ['hangup', {}]]);
  });
});

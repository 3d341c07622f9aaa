// The inbound decision is the calls module's, made once (CallSignals.admit): SIPp plays the
// carrier and offers calls the carrier admitted by source, and what the account's plan and
// numbers say decides the SIP answer. An account at its concurrent-call cap is busy (486,
// Q.850 cause 17) and sees no call; a number bound to another trunk is not found (404).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { freeUdpPort, peerAvailable, runSipp, sippFinalResponse } from '../helpers/sipp.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';

const hasSipp = peerAvailable('sipp');
const NUMBER = '+14155550152';
const OTHER_TRUNKS_NUMBER = '+14155550153';

let lv: LiveVoice;

before(async () => {
  if (!hasSipp) return;
  lv = await startLiveVoice({
    rtp: [46600, 46698],
    trunks: [
      `{ name: carrier, host: 127.0.0.1, port: ${await freeUdpPort()}, inbound_sources: [127.0.0.1/32] }`,
      '{ name: other, host: 127.0.0.4 }',
    ],
    numbers: { [NUMBER]: 'carrier', [OTHER_TRUNKS_NUMBER]: 'other' },
  });
});

after(async () => {
  await lv?.close();
});

async function callsTo(number: string): Promise<unknown[]> {
  const res = await lv.live().get(`/v1/calls?to=${encodeURIComponent(number)}`);
  assert.equal(res.status, 200);
  return res.body.data;
}

describe('the inbound decision over SIP', { skip: !hasSipp }, () => {
  test('an account at its concurrent-call cap is busy: 486, and no call is created', async () => {
    const capped = await lv.cli('accounts', 'update', lv.acct.account.id, '--concurrent-calls', '0', '--json');
    assert.equal(capped.status, 0, capped.stderr);
    try {
      const sipp = await runSipp({ scenario: 'uac-refused.xml', remote: `127.0.0.1:${lv.sipPort}`, args: ['-s', NUMBER] });
      assert.equal(await sippFinalResponse(sipp), '486');
      assert.deepEqual(await callsTo(NUMBER), []);
    } finally {
      const restored = await lv.cli('accounts', 'update', lv.acct.account.id, '--concurrent-calls', 'default', '--json');
      assert.equal(restored.status, 0, restored.stderr);
    }
  });

  test('a number bound to another trunk is not reachable over this one: 404, and no call is created', async () => {
    const sipp = await runSipp({ scenario: 'uac-refused.xml', remote: `127.0.0.1:${lv.sipPort}`, args: ['-s', OTHER_TRUNKS_NUMBER] });
    assert.equal(await sippFinalResponse(sipp), '404');
    assert.deepEqual(await callsTo(OTHER_TRUNKS_NUMBER), []);
  });
});

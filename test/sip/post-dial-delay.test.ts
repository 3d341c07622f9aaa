// Post-dial delay of live calls (GET /v1/analytics/calls): the time from sending the INVITE to
// the trunk's first 180, measured by the SIP carrier. A trunk that rings at once and one that
// rings 1.5 s after the INVITE (SIPp on 127.0.0.1), each call hung up through the API while
// ringing; the percentiles are those two delays.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { waitForTypes } from '../voice/voice-helpers.ts';
import { freeUdpPort, peerAvailable, runSipp } from '../helpers/sipp.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';

const hasSipp = peerAvailable('sipp');
const FROM = '+14155550143';
const TO = '+14155550198';
const TRUNK_PAUSE_MS = 1500;

let lv: LiveVoice;
let trunkPort: number;

before(async () => {
  if (!hasSipp) return;
  trunkPort = await freeUdpPort();
  lv = await startLiveVoice({
    rtp: [48700, 48798],
    trunks: [`{ name: sipp, host: 127.0.0.1, port: ${trunkPort}, codecs: [PCMU, PCMA] }`],
    numbers: { [FROM]: 'sipp' },
  });
});

after(async () => {
  await lv?.close();
});

/** Places a live call the trunk rings for, hangs it up once ringing, and returns it as it ended. */
async function ringThenHangUp(scenario: string): Promise<any> {
  const sipp = await runSipp({ scenario, port: trunkPort });
  const placed = await lv.live().post('/v1/calls', { from: FROM, to: TO });
  assert.equal(placed.status, 200, JSON.stringify(placed.body));
  await lv.receiver.waitForEvent('call.ringing', placed.body.id);
  assert.equal((await lv.live().post(`/v1/calls/${placed.body.id}/hangup`)).status, 200);
  await waitForTypes(lv.receiver, placed.body.id, ['call.queued', 'call.ringing', 'call.canceled', 'call.completed']);
  const result = await sipp.done;
  assert.equal(result.code, 0, result.errors);
  return (await lv.live().get(`/v1/calls/${placed.body.id}`)).body;
}

/** The most the delay can be: from the API accepting the call (before the INVITE left) to ringing being stored (after the 180 came). */
function upperBound(call: any): number {
  return Date.parse(call.timestamps.ringing) - Date.parse(call.timestamps.queued) + 1;
}

describe('post-dial delay of live calls', { skip: !hasSipp }, () => {
  test('p50 and p95 are the two calls\' INVITE-to-180 delays; sandbox calls have none', async () => {
    const quick = await ringThenHangUp('uas-ring-cancel.xml');
    const slow = await ringThenHangUp('uas-ring-after-pause.xml');

    const res = await lv.live().get('/v1/analytics/calls?interval=hour&group_by=direction');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const { p50, p95 } = res.body.totals.post_dial_delay_ms;
    // Nearest rank over two values: p50 is the quicker, p95 the slower.
    assert.ok(Number.isInteger(p50) && p50 >= 0 && p50 <= upperBound(quick), `quick trunk: ${p50} ms within ${upperBound(quick)} ms`);
    assert.ok(p95 >= TRUNK_PAUSE_MS && p95 <= upperBound(slow), `slow trunk: ${p95} ms, at least its ${TRUNK_PAUSE_MS} ms pause and within ${upperBound(slow)} ms`);
    assert.deepEqual(res.body.totals.groups.map((g: any) => [g.value, g.post_dial_delay_ms]), [['outbound', { p50, p95 }]]);
    const buckets = res.body.data.filter((b: any) => b.attempted > 0);
    assert.equal(buckets.reduce((n: number, b: any) => n + b.attempted, 0), 2);
    for (const bucket of buckets) assert.notEqual(bucket.post_dial_delay_ms.p50, null);

    // Both went over the trunk named sipp in the carriers file.
    const byTrunk = await lv.live().get('/v1/analytics/calls?interval=hour&group_by=trunk');
    assert.deepEqual(byTrunk.body.totals.groups.map((g: any) => [g.value, g.attempted, g.post_dial_delay_ms]), [['sipp', 2, { p50, p95 }]]);

    const sandbox = await lv.t.as(lv.acct.keys.sandbox).get('/v1/analytics/calls?interval=hour');
    assert.deepEqual(sandbox.body.totals.post_dial_delay_ms, { p50: null, p95: null });
  });
});

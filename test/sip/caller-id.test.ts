// Caller-id rules on a trunk (`caller_id:` in the carriers file): numbers written in the
// trunk's form (E.164, digits without the plus, or national) and P-Asserted-Identity for
// carriers that take the caller id from it. Against SIPp, which checks what our INVITE says;
// and an inbound INVITE that names our number nationally reaches it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { waitForTypes } from '../voice/voice-helpers.ts';
import { freeUdpPort, peerAvailable, runSipp } from '../helpers/sipp.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';
import { E164_RULES, fromTrunkNumber, toTrunkNumber, type CallerIdRules } from '../../src/carriers/sip/caller-id.ts';

const hasSipp = peerAvailable('sipp');
const FROM = '+14155550142';
const INBOUND = '+14155550143';
const TO = '+14155550199';

let lv: LiveVoice | undefined;
let trunkPort: number;

before(async () => {
  if (!hasSipp) return;
  trunkPort = await freeUdpPort();
  lv = await startLiveVoice({
    rtp: [42000, 42498],
    trunks: [`{ name: national, host: 127.0.0.1, port: ${trunkPort}, inbound_sources: [127.0.0.1/32], caller_id: { number_format: national, asserted_identity: true } }`],
    numbers: { [FROM]: 'national', [INBOUND]: 'national' },
  });
});

after(async () => {
  await lv?.close();
});

describe('caller-id rules on a live trunk (SIPp)', { skip: !hasSipp }, () => {
  test('national format with P-Asserted-Identity: SIPp finds 4155550199 in the Request-URI and To, 4155550142 in From and P-Asserted-Identity', async () => {
    const sipp = await runSipp({ scenario: 'uas-caller-id-national.xml', port: trunkPort });
    const res = await lv!.live().post('/v1/calls', { from: FROM, to: TO });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const events = await waitForTypes(lv!.receiver, res.body.id, ['call.queued', 'call.busy', 'call.completed']);
    assert.equal(events[1]!.data.object.sip_status, 486, 'SIPp checked the INVITE and answered busy');
    const done = await sipp.done;
    assert.equal(done.code, 0, done.errors);
  });

  test('an inbound INVITE naming our number nationally (4155550143) reaches it, as E.164', async () => {
    const sipp = await runSipp({ scenario: 'uac-inbound.xml', remote: `127.0.0.1:${lv!.sipPort}`, args: ['-s', '4155550143'] });
    const done = await sipp.done;
    assert.equal(done.code, 0, done.errors);
    const [call] = (await lv!.live().get(`/v1/calls?to=${encodeURIComponent(INBOUND)}`)).body.data;
    assert.ok(call, 'the account sees the call to its number');
    assert.deepEqual([call.direction, call.from, call.to], ['inbound', '+15557770000', INBOUND]);
  });
});

describe('how numbers are written to a trunk and read from it', () => {
  const rules = (format: CallerIdRules['format']): CallerIdRules => ({ ...E164_RULES, format });

  test('out: E.164 as is, digits without the plus, national in the trunk\'s country and international otherwise', () => {
    assert.equal(toTrunkNumber(rules('e164'), '+14155550142'), '+14155550142');
    assert.equal(toTrunkNumber(rules('digits'), '+14155550142'), '14155550142');
    assert.equal(toTrunkNumber(rules('national'), '+14155550142'), '4155550142');
    assert.equal(toTrunkNumber(rules('national'), '+442079460000'), '442079460000', 'another country: in full, without the plus');
    assert.equal(toTrunkNumber({ ...rules('national'), country: 'GB' }, '+442079460000'), '2079460000');
  });

  test('in: every form a trunk sends becomes E.164; a national number only on a national trunk; anything else is no number', () => {
    for (const user of ['+14155550142', '14155550142', '+1 (415) 555-0142', '1-415-555-0142']) {
      assert.equal(fromTrunkNumber(E164_RULES, user), '+14155550142', user);
    }
    assert.equal(fromTrunkNumber(rules('national'), '4155550142'), '+14155550142');
    assert.equal(fromTrunkNumber(rules('national'), '14155550142'), '+14155550142');
    assert.equal(fromTrunkNumber(E164_RULES, 'anonymous'), null);
    assert.equal(fromTrunkNumber(rules('national'), 'acme-trunk'), null);
  });
});

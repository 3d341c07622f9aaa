// Node-to-node conference legs (src/carriers/sip/node-legs.ts) are answered only when another
// node of this deployment signed them, for this node, within the last minute: anyone who can
// reach the SIP listener could otherwise pose as a node and be mixed into a conference as one
// of its participants. One server (a node on its own takes these legs too, as a conference's
// home) with a shared secret key holds a live call in a conference; SIPp, posing as a node,
// offers legs claiming that conference and call with a forged signature, and with the right
// signature (derived here from the key, as the nodes derive it) for another node or an hour
// old: each is refused with 403 and the conference, its participant and the call are as they
// were. A control signed rightly, fresh, for this node, is answered: the refusals are the
// claim's checks at work, not a signature the test got wrong. The same control offered again
// within its minute (a replay of a claim seen on the wire) is refused: each claim is good once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { freeUdpPort, peerAvailable, runSipp, sippFinalResponse, type SippRun } from '../helpers/sipp.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';
import { until } from '../helpers/until.ts';

const hasSipp = peerAvailable('sipp');
const FROM = '+14155550142';
const TO = '+14155550199';
const SECRET_KEY = 'node-leg guard test key';

let lv: LiveVoice;
let trunkPort: number;

before(async () => {
  if (!hasSipp) return;
  trunkPort = await freeUdpPort();
  lv = await startLiveVoice({
    rtp: [57000, 57998],
    trunks: [`{ name: sipp, host: 127.0.0.1, port: ${trunkPort}, codecs: [PCMU] }`],
    numbers: { [FROM]: 'sipp' },
    env: { SWITCHBOARD_SECRET_KEY: SECRET_KEY },
  });
});

after(async () => {
  await lv?.close();
});

/** The claim a node signs (node-legs.ts): conference;call;home node;time stamp;nonce;HMAC, with the key every node derives from the secret key. */
function claim(fields: { conferenceId: string; callId: string; home: string; at: number }, secretKey = SECRET_KEY, nonce = randomBytes(12).toString('hex')): string {
  const key = createHash('sha256').update(`switchboard node-to-node media legs\n${secretKey}`).digest();
  const text = `${fields.conferenceId};${fields.callId};${fields.home};${fields.at};${nonce}`;
  return `${text};${createHmac('sha256', key).update(text).digest('hex')}`;
}

describe('node-to-node legs from outside the deployment (SIPp)', { skip: !hasSipp }, () => {
  test('a node leg with a forged signature, or signed for another node, or stale, gets 403 and changes nothing; a fresh one signed for this node is answered, once', async () => {
    const live = lv.live();
    const trunk: SippRun = await runSipp({ scenario: 'uas-answer-echo.xml', port: trunkPort, args: ['-rtp_echo'], timeoutSeconds: 90 });
    try {
      const placed = await live.post('/v1/calls', { from: FROM, to: TO, flow: [{ conference: { name: 'guarded-room', beep: false } }, { hangup: {} }] });
      assert.equal(placed.status, 200, JSON.stringify(placed.body));
      const callId: string = placed.body.id;
      const conferenceId: string = await until('the call joins the conference', async () => {
        const conference = (await live.get('/v1/conferences?name=guarded-room')).body.data?.[0];
        if (!conference) return undefined;
        const joined = (await live.get(`/v1/conferences/${conference.id}/participants?status=joined`)).body.data;
        return joined.some((p: { call_id: string }) => p.call_id === callId) && conference.id;
      }, { timeoutMs: 30_000 });
      const nodes = await lv.t.server.database.db.selectFrom('sip_nodes').select('id').execute();
      assert.equal(nodes.length, 1, JSON.stringify(nodes));
      const here = nodes[0]!.id;
      const state = async () => ({
        conference: (await live.get(`/v1/conferences/${conferenceId}`)).body,
        participants: (await live.get(`/v1/conferences/${conferenceId}/participants`)).body.data,
        call: (await live.get(`/v1/calls/${callId}`)).body,
      });
      const before = await state();
      assert.equal(before.call.status, 'in_progress');

      const offer = async (header: string) => {
        const sipp = await runSipp({ scenario: 'uac-node-leg.xml', remote: `127.0.0.1:${lv.sipPort}`, args: ['-key', 'node_leg', header] });
        return sippFinalResponse(sipp);
      };
      const good = { conferenceId, callId, home: here, at: Date.now() };
      const forged = claim(good).replace(/[0-9a-f]{8}$/, '00000000');
      const refused: Array<[string, string]> = [
        ['a forged signature', forged],
        ['signed with another deployment\'s key', claim(good, 'another deployment')],
        ['signed for another node', claim({ ...good, home: 'node_00000000-0000-4000-8000-000000000000' })],
        ['signed an hour ago', claim({ ...good, at: Date.now() - 3_600_000 })],
        ['a claim missing its node', claim(good).split(';').filter((_, i) => i !== 2).join(';')],
        ['a claim without its nonce', claim(good, SECRET_KEY, '')],
      ];
      for (const [what, header] of refused) assert.equal(await offer(header), '403', what);
      // Nothing a refused leg claimed was touched: the same conference, participant and call.
      assert.deepEqual(await state(), before);

      // The control: the same claim for a call of no conference here, signed rightly and fresh, is taken.
      const control = claim({ ...good, callId: 'call_control', at: Date.now() });
      assert.equal(await offer(control), '200', 'a rightly signed leg for this node is answered');
      assert.equal(await offer(control), '403', 'the same claim again, within its minute, is a replay');

      const ended = await live.post(`/v1/conferences/${conferenceId}/end`, {});
      assert.equal(ended.status, 200, JSON.stringify(ended.body));
      const done = await trunk.done;
      assert.equal(done.code, 0, done.errors);
    } finally {
      trunk.process.kill('SIGKILL');
      await trunk.done;
    }
  });
});

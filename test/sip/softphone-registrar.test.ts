// Issue 26, Switchboard as the registrar of workers' softphones, through a minimal UDP
// softphone (test/helpers/udp-softphone.ts) on the trunks' listener: the digest challenge and
// its refusals (no binding made), Min-Expires, clamping, several contacts, refresh, removal of
// one and of all, and new credentials forgetting the old bindings. Then routing: a live caller
// waits in a routed queue, the worker's offer rings the registered contact at the address the
// REGISTER came from (its Contact is a private address: NAT), and a worker that unregistered
// or whose registration lapsed is not offered the caller, until it registers again.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { freeUdpPort, peerAvailable, runSipp, type SippRun } from '../helpers/sipp.ts';
import { toneTrunk } from '../helpers/tone-trunk.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';
import { UdpSoftphone } from '../helpers/udp-softphone.ts';
import { until } from '../helpers/until.ts';
import { parseNameAddr } from '../../src/carriers/sip/headers.ts';
import type { SipResponse } from '../../src/carriers/sip/message.ts';

const hasSipp = peerAvailable('sipp');
const CALLER_FROM = '+14155550181';
const TO = '+14155550199';

let lv: LiveVoice;
let callerPort: number;
let registrar: { host: string; port: number };

before(async () => {
  callerPort = await freeUdpPort();
  lv = await startLiveVoice({
    rtp: [40000, 40098],
    trunks: [`{ name: sipp-caller, host: 127.0.0.1, port: ${callerPort}, codecs: [PCMU, PCMA] }`],
    numbers: { [CALLER_FROM]: 'sipp-caller' },
    sipLines: ['  registrar: { min_expires: 2, max_expires: 120, default_expires: 60 }'],
  });
  registrar = { host: '127.0.0.1', port: lv.sipPort! };
});

after(async () => {
  await lv?.close();
});

async function softphoneWorker(user: string, extra: Record<string, unknown> = {}): Promise<{ id: string; password: string }> {
  const worker = await lv.live().post('/v1/workers', { name: user, reach: { sip_user: user }, ...extra });
  assert.equal(worker.status, 200, JSON.stringify(worker.body));
  const credentials = await lv.live().post(`/v1/workers/${worker.body.id}/sip_credentials`);
  assert.equal(credentials.status, 200, JSON.stringify(credentials.body));
  assert.equal(credentials.body.username, user);
  return { id: worker.body.id, password: credentials.body.password };
}

/** The bindings a 200 lists: contact URI -> seconds left. */
function bindings(response: SipResponse): Record<string, number> {
  assert.equal(response.status, 200, `${response.status} ${response.reason}`);
  return Object.fromEntries(response.headers.getAll('contact').map((c) => {
    const parsed = parseNameAddr(c);
    return [parsed.uri, Number(parsed.params.expires)];
  }));
}

describe('the softphone registrar', () => {
  test('digest, refusals without a binding, Min-Expires, several contacts, refresh and removal', async () => {
    const user = 'reg.alice';
    const { id, password } = await softphoneWorker(user);
    const phone = await UdpSoftphone.start(registrar);
    try {
      const unauthenticated = await phone.register({ user, contacts: ['<sip:alice@127.0.0.1:5001>'] });
      assert.equal(unauthenticated.status, 401);
      const challenge = unauthenticated.headers.get('www-authenticate') ?? '';
      assert.match(challenge, /^Digest realm="switchboard", nonce="[^"]+", qop="auth", algorithm=MD5$/);

      const wrong = await phone.register({ user, password: 'not-the-password', contacts: ['<sip:alice@127.0.0.1:5001>'] });
      assert.equal(wrong.status, 403);
      const stranger = await phone.register({ user: 'reg.nobody', password, contacts: ['<sip:alice@127.0.0.1:5001>'] });
      assert.equal(stranger.status, 403, 'a user no worker has');
      assert.deepEqual(bindings(await phone.register({ user, password })), {}, 'the refused REGISTERs bound nothing');

      const brief = await phone.register({ user, password, contacts: ['<sip:alice@127.0.0.1:5001>'], expires: 1 });
      assert.equal(brief.status, 423);
      assert.equal(brief.headers.get('min-expires'), '2');

      const two = bindings(await phone.register({ user, password, contacts: ['<sip:alice@127.0.0.1:5001>;expires=30', '<sip:alice@127.0.0.1:5002>'], expires: 100_000 }));
      assert.deepEqual(Object.keys(two).sort(), ['sip:alice@127.0.0.1:5001', 'sip:alice@127.0.0.1:5002']);
      assert.ok(two['sip:alice@127.0.0.1:5001']! <= 30 && two['sip:alice@127.0.0.1:5001']! > 20, `the contact's own expires: ${JSON.stringify(two)}`);
      assert.equal(two['sip:alice@127.0.0.1:5002'], 120, 'the header\'s 100000 s cut to max_expires');

      const shown = (await lv.live().get(`/v1/workers/${id}`)).body;
      assert.equal(shown.registered, true);
      assert.deepEqual(shown.registrations.map((r: any) => [r.contact, r.source, r.user_agent]).sort(), [
        ['sip:alice@127.0.0.1:5001', `udp:127.0.0.1:${phone.port}`, 'udp-softphone'], ['sip:alice@127.0.0.1:5002', `udp:127.0.0.1:${phone.port}`, 'udp-softphone'],
      ]);
      const listed = (await lv.live().get('/v1/workers')).body.data.find((w: any) => w.id === id);
      assert.deepEqual(listed, shown, 'the list shows the same registrations');

      const refreshed = bindings(await phone.register({ user, password, contacts: ['<sip:alice@127.0.0.1:5001>'], expires: 90 }));
      assert.ok(refreshed['sip:alice@127.0.0.1:5001']! > 30, `refreshed: ${JSON.stringify(refreshed)}`);
      assert.equal(Object.keys(refreshed).length, 2, 'a refresh of one keeps the other');

      assert.deepEqual(Object.keys(bindings(await phone.register({ user, password, contacts: ['<sip:alice@127.0.0.1:5001>;expires=0'] }))), ['sip:alice@127.0.0.1:5002']);
      const starWithTime = await phone.register({ user, password, contacts: ['*'], expires: 5 });
      assert.equal(starWithTime.status, 400, 'Contact: * needs Expires: 0');
      assert.deepEqual(bindings(await phone.register({ user, password, contacts: ['*'], expires: 0 })), {});
      const gone = (await lv.live().get(`/v1/workers/${id}`)).body;
      assert.deepEqual([gone.registered, gone.registrations], [false, []]);

      // New credentials: the old password stops working and the old bindings are forgotten.
      assert.equal(Object.keys(bindings(await phone.register({ user, password, contacts: ['<sip:alice@127.0.0.1:5003>'] }))).length, 1);
      const renewed = await lv.live().post(`/v1/workers/${id}/sip_credentials`);
      assert.equal((await phone.register({ user, password, contacts: ['<sip:alice@127.0.0.1:5003>'] })).status, 403);
      assert.deepEqual(bindings(await phone.register({ user, password: renewed.body.password })), {});
    } finally {
      phone.close();
    }
  });

  test('offers ring the registered contact at the REGISTER\'s source; unregistered and lapsed softphones are skipped', { skip: !hasSipp, timeout: 90_000 }, async () => {
    const user = 'reg.bob';
    const live = lv.live();
    const { id, password } = await softphoneWorker(user, { skills: ['registrar'], status: 'available' });
    const queue = await live.post('/v1/queues', { name: 'registrar', wait_flow: [{ pause: { seconds: 1 } }], routing: { required_skills: ['registrar'], on_missed: 'offline' } });
    assert.equal(queue.status, 200, JSON.stringify(queue.body));
    const phone = await UdpSoftphone.start(registrar);
    let caller: SippRun | undefined;
    const worker = async () => (await live.get(`/v1/workers/${id}`)).body;
    const makeAvailable = async () => assert.equal((await live.patch(`/v1/workers/${id}`, { status: 'available' })).status, 200);
    try {
      // Not registered yet: the waiting caller is not offered to it.
      caller = await runSipp({ scenario: toneTrunk(500, 'PCMU', 80), port: callerPort, timeoutSeconds: 85 });
      const call = await live.post('/v1/calls', { from: CALLER_FROM, to: TO, flow: [{ enqueue: { queue: 'registrar' } }, { hangup: {} }] });
      assert.equal(call.status, 200, JSON.stringify(call.body));
      await lv.receiver.waitFor((events) => events.some((e) => e.type === 'call.queue.joined' && e.data.object.call_id === call.body.id), 20_000);
      await sleep(1500);
      assert.equal((await worker()).offer, null, 'an unregistered softphone is not offered the caller');

      // Registered with a private Contact from 127.0.0.1:<port>: the offer comes to that source.
      const contact = `sip:bob@192.168.1.20:5062`;
      bindings(await phone.register({ user, password, contacts: [`<${contact}>`], expires: 60 }));
      const [invite] = await until('the offer rings the softphone', () => phone.invites.length >= 1 && phone.invites, { timeoutMs: 20_000 });
      assert.equal(invite!.uri, contact, 'the Request-URI is the registered Contact');
      assert.match(invite!.headers.get('to') ?? '', /sip:reg\.bob@/);
      // It answers 486: a miss, and on_missed sends it offline.
      await until('the miss sends the worker offline', async () => (await worker()).status === 'offline' && true, { timeoutMs: 20_000 });

      // Unregistered: available again, it is still not offered the caller.
      assert.deepEqual(bindings(await phone.register({ user, password, contacts: ['*'], expires: 0 })), {});
      await makeAvailable();
      await sleep(2000);
      assert.equal(phone.invites.length, 1, 'no offer rings an unregistered softphone');
      assert.equal((await worker()).offer, null);

      // Registering again (for 2 s) brings an offer at once; once it lapses, none.
      bindings(await phone.register({ user, password, contacts: [`<${contact}>`], expires: 2 }));
      await until('registering again brings the next offer', () => phone.invites.length >= 2, { timeoutMs: 20_000 });
      await until('the second miss sends the worker offline', async () => (await worker()).status === 'offline' && true, { timeoutMs: 20_000 });
      // Let it lapse untouched (a query REGISTER would itself drop the lapsed binding).
      await sleep(2500);
      await makeAvailable();
      await sleep(2000);
      assert.equal(phone.invites.length, 2, 'no offer rings a softphone whose registration lapsed');
      const lapsed = await worker();
      assert.deepEqual([lapsed.status, lapsed.offer], ['available', null]);

      const hung = await live.post(`/v1/calls/${call.body.id}/hangup`);
      assert.equal(hung.status, 200, JSON.stringify(hung.body));
      assert.equal((await caller.done).code, 0);
      caller = undefined;
    } finally {
      phone.close();
      caller?.process.kill();
    }
  });
});

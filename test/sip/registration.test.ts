// Registering with a carrier's registrar (`register:` on a trunk), against Kamailio as the
// registrar (registrar and usrloc modules, a digest challenge on REGISTER): the server binds its
// contact at start, a call the carrier's network places to the registered user reaches us
// through the registrar and runs as an inbound call to the number in To (admitted because it
// comes from the registrar: the trunk lists no inbound_sources), while the same INVITE from
// anywhere else is refused; `carriers check`
// says whether each trunk's credentials register, and stopping the server removes the binding.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freeUdpPort, peerAvailable, runSipp } from '../helpers/sipp.ts';
import { until } from '../helpers/until.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';
import { SAVED_LOG, startRegistrar } from '../helpers/kamailio-registrar.ts';
import { relayedRequests, type Kamailio } from '../helpers/kamailio.ts';
import { CarriersFileError, parseCarriersText } from '../../src/carriers/config/load.ts';
import { sipSettings, type SipSectionConfig } from '../../src/carriers/sip/config.ts';

const hasPeers = peerAvailable('sipp') && peerAvailable('kamailio');
const REGISTRAR_HOST = '127.0.0.7';
const USER = 'acme-trunk';
const NUMBER = '+14155550142';

let registrar: Kamailio | undefined;
let registrarPort: number;
let lv: LiveVoice | undefined;

before(async () => {
  if (!hasPeers) return;
  registrarPort = await freeUdpPort();
  registrar = await startRegistrar({ host: REGISTRAR_HOST, port: registrarPort, realm: 'carrier.test', username: USER, password: 'reg-s3cret' });
  process.env.TEST_REGISTER_PASSWORD = 'reg-s3cret';
  process.env.TEST_REGISTER_WRONG_PASSWORD = 'not-the-password';
  lv = await startLiveVoice({
    rtp: [43000, 43498],
    trunks: [
      `{ name: carrier, host: ${REGISTRAR_HOST}, port: ${registrarPort}, username: ${USER}, password: "env:TEST_REGISTER_PASSWORD", register: { expires: 120 } }`,
      `{ name: mistyped, host: ${REGISTRAR_HOST}, port: ${registrarPort}, username: ${USER}, password: "env:TEST_REGISTER_WRONG_PASSWORD", register: { expires: 120 } }`,
    ],
    numbers: { [NUMBER]: 'carrier' },
  });
});

after(async () => {
  await lv?.close();
  await registrar?.stop();
});

/** The bindings the registrar saved, in order: user, Expires asked, contact. */
function saved(): { user: string; expires: string; contact: string }[] {
  return [...registrar!.log().matchAll(SAVED_LOG)].map((m) => ({ user: m[1]!, expires: m[2]!, contact: m[3]! }));
}

/** A wait on the registrar's log, which a failure prints. */
function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  return until(what, probe, { timeoutMs, intervalMs: 100, detail: () => `the registrar said:\n${registrar!.log()}` });
}

describe('registering with a carrier\'s registrar (Kamailio)', { skip: !hasPeers }, () => {
  test('at start the server registers its contact for the trunk\'s user, answering the digest challenge', async () => {
    const binding = await waitFor('a REGISTER the registrar saved', () => saved().find((b) => b.contact.includes(`@127.0.0.1:${lv!.sipPort}`)));
    assert.equal(binding.user, USER);
    assert.equal(binding.expires, '120');
    assert.match(binding.contact, new RegExp(`^<?sip:${USER}@127\\.0\\.0\\.1:${lv!.sipPort}`), 'our contact carries the user the registrar calls');
  });

  test('a call to the registered user reaches us through the registrar and rings the number in To', async () => {
    await waitFor('a registration', () => saved().find((b) => b.contact.includes(`@127.0.0.1:${lv!.sipPort}`)));
    const mark = registrar!.log().length;
    const sipp = await runSipp({ scenario: 'uac-registered-user.xml', remote: `${REGISTRAR_HOST}:${registrarPort}`, args: ['-s', USER, '-key', 'did', NUMBER] });
    const result = await sipp.done;
    assert.equal(result.code, 0, `${result.errors}\nthe registrar said:\n${registrar!.log()}`);
    const [call] = (await lv!.live().get(`/v1/calls?to=${encodeURIComponent(NUMBER)}`)).body.data;
    assert.ok(call, 'the account sees the call');
    assert.deepEqual([call.direction, call.from, call.to], ['inbound', '+15557770000', NUMBER]);
    const completed = await lv!.receiver.waitForEvent('call.completed', call.id, 30_000);
    assert.equal(completed.data.object.hangup_source, 'callee', 'our side said the number is not set up and hung up');
    // The registrar relayed SIPp's INVITE to our contact and its ACK, then our BYE by its
    // Record-Route (the mistyped trunk's REGISTER retries come in between).
    assert.deepEqual(relayedRequests(registrar!.log(), mark).map((r) => r.method).filter((m) => m !== 'REGISTER'), ['INVITE', 'ACK', 'BYE']);
  });

  test('the same call sent straight to us, not through the registrar, is refused with 403 (no trunk lists its source or takes passwords)', async () => {
    await waitFor('a registration', () => saved().find((b) => b.contact.includes(`@127.0.0.1:${lv!.sipPort}`)));
    const before = (await lv!.live().get(`/v1/calls?to=${encodeURIComponent(NUMBER)}`)).body.data.length;
    const sipp = await runSipp({ scenario: 'uac-refused.xml', remote: `127.0.0.1:${lv!.sipPort}`, args: ['-s', USER] });
    const result = await sipp.done;
    assert.equal(result.code, 0, result.errors);
    const file = join(sipp.dir, 'final-response.txt');
    for (let i = 0; i < 40 && !existsSync(file); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(readFileSync(file, 'utf8').trim(), '403');
    assert.equal((await lv!.live().get(`/v1/calls?to=${encodeURIComponent(NUMBER)}`)).body.data.length, before, 'no call was created');
  });

  test('carriers check: the trunk\'s credentials register; the mistyped password is refused with the registrar\'s answer', async () => {
    const checked = await lv!.cli('carriers', 'check', '--json');
    const report = JSON.parse(checked.stdout) as { links: { name: string; ok: boolean; detail: string }[] };
    const byName = Object.fromEntries(report.links.map((l) => [l.name, l]));
    assert.equal(byName.carrier!.ok, true, byName.carrier!.detail);
    assert.match(byName.carrier!.detail, /REGISTER accepted: 200/);
    assert.equal(byName.mistyped!.ok, false, byName.mistyped!.detail);
    assert.match(byName.mistyped!.detail, /REGISTER refused: 401/);
    assert.notEqual(checked.status, 0, 'a failing link fails the check');
  });

  test('stopping the server removes its binding (REGISTER with Expires: 0)', async () => {
    const server = lv!;
    lv = undefined;
    await server.close();
    const removal = await waitFor('the binding\'s removal', () => saved().find((b) => b.expires === '0' && b.contact.includes(`@127.0.0.1:${server.sipPort}`)), 5000);
    assert.equal(removal.user, USER);
  });
});

describe('register: in the carriers file', () => {
  const file = (trunk: string) => ['sip:', '  public_host: sip.example.com', '  trunks:', `    - ${trunk}`, ''].join('\n');

  test('defaults to an hour; needs the trunk\'s username and password, named at its place', () => {
    const loaded = parseCarriersText(file('{ name: t, host: sip.example.net, username: u, password: "env:P", register: {} }'), 'carriers.yaml', { P: 'pw' });
    assert.deepEqual(sipSettings(loaded.sections.sip as SipSectionConfig).trunks[0]!.register, { expiresSeconds: 3600 });
    try {
      parseCarriersText(file('{ name: t, host: sip.example.net, register: { expires: 300 } }'), 'carriers.yaml', {});
      assert.fail('a register trunk without credentials was accepted');
    } catch (err) {
      assert.ok(err instanceof CarriersFileError, String(err));
      assert.deepEqual(err.problems, ['carriers.yaml:4:51 sip.trunks[0].register: needs the trunk\'s username and password: the registrar challenges the REGISTER']);
    }
  });
});

// SMPP over TLS with message_payload, against the `smpp` package's SecureServer on 127.0.0.1
// with a certificate made for the test: the bind verifies the SMSC's certificate against
// tls_ca_file, a long message goes whole in the message_payload TLV, and without the CA the
// bind is refused with the TLS reason.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { startTestSmsc, type TestSmsc } from '../helpers/smsc.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { probeSmppBind } from '../../src/carriers/smpp/probe.ts';
import type { SmppBindConfig } from '../../src/carriers/smpp/config.ts';

const OURS = '+14155550185';
let t: TestServer;
let smsc: TestSmsc;
let acct: CreatedAccount;
let hooks: WebhookReceiver;
let certFile: string;

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-smpp-tls-'));
  certFile = join(dir, 'smsc.pem');
  const keyFile = join(dir, 'smsc.key');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  smsc = await startTestSmsc({ secure: 'pw-tls' }, { tls: { key: readFileSync(keyFile), cert: readFileSync(certFile) } });
  process.env.TEST_TLS_SMPP_PASSWORD = 'pw-tls';
  const file = join(dir, 'carriers.yaml');
  writeFileSync(file, `smpp:\n  - { name: smsc-tls, host: 127.0.0.1, port: ${smsc.port}, tls: true, tls_ca_file: "${certFile}", system_id: secure, password: "env:TEST_TLS_SMPP_PASSWORD", long_messages: message_payload, reconnect_min_seconds: 0.1, reconnect_max_seconds: 0.5 }\n`);
  t = await startTestServer({ SWITCHBOARD_CARRIERS_FILE: file });
  acct = await t.createAccount('scale');
  hooks = await subscribeAll(t, acct.keys.live);
  await t.server.built.services.numbers.importNumber(systemClock, {
    accountId: acct.account.id, mode: 'live', phoneNumber: OURS, capabilities: ['sms'], type: 'mobile', country: 'US', inventory: false,
  });
});
after(async () => {
  await hooks.close();
  await t.close();
  await smsc.close();
});

test('over TLS, a 3-segment message goes whole in message_payload and is delivered', async () => {
  const body = `${'tls and payload 0123456789 '.repeat(12)}end`; // 327 GSM-7 characters
  const res = await t.as(acct.keys.live).post('/v1/messages', { from: OURS, to: '+447700900601', body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.segments, 3);
  await hooks.waitFor((evs) => evs.some((e) => e.type === 'message.delivered' && e.data.object.id === res.body.id), 20_000);
  const got = smsc.submissions.filter((s) => s.destination === '447700900601');
  assert.equal(got.length, 1, 'one PDU, not three parts');
  assert.equal(got[0]!.viaPayloadTlv, true);
  assert.equal(got[0]!.esmClass & 0x40, 0, 'no UDH');
  assert.equal(got[0]!.payload.toString('latin1'), body); // these characters are the same in GSM-7 and ASCII
  assert.ok(smsc.binds.some((b) => b.systemId === 'secure' && b.ok));
});

test('without the CA that signed the SMSC certificate the bind is refused, saying why', async () => {
  const config = {
    name: 'smsc-tls', host: '127.0.0.1', port: smsc.port, tls: true, system_id: 'secure', password: 'pw-tls', system_type: '', bind: 'transceiver',
  } as SmppBindConfig;
  const refused = await probeSmppBind(config, 5000);
  assert.equal(refused.ok, false);
  assert.match(refused.detail, /^cannot connect to 127\.0\.0\.1:\d+: self[- ]signed certificate/);
  assert.deepEqual(await probeSmppBind({ ...config, tls_ca_file: certFile }, 5000), { ok: true, detail: 'bound (transceiver) and unbound' });
});

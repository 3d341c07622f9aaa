// A live SMS whose SMSC will not bind us waits `queued` and says why on the message, instead of
// sitting in `sending` or vanishing; once the SMSC accepts the bind it goes out by itself.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { startTestSmsc, type TestSmsc } from '../helpers/smsc.ts';
import { systemClock } from '../../src/platform/clock.ts';

let t: TestServer;
let smsc: TestSmsc;
let acct: CreatedAccount;
let hooks: WebhookReceiver;
const OURS = '+14155550181';
// The SMSC's accounts: the password the server sends is wrong until the test fixes it here.
const accounts: Record<string, string> = { waiter: 'other-pw' };

before(async () => {
  smsc = await startTestSmsc(accounts);
  process.env.TEST_WAITING_SMPP_PASSWORD = 'pw-wait';
  const file = join(mkdtempSync(join(tmpdir(), 'sb-smpp-wait-')), 'carriers.yaml');
  writeFileSync(file, `smpp:\n  - { name: smsc-wait, host: 127.0.0.1, port: ${smsc.port}, system_id: waiter, password: "env:TEST_WAITING_SMPP_PASSWORD", reconnect_min_seconds: 0.2, reconnect_max_seconds: 0.5 }\n`);
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

test('an SMSC that refuses the bind: the message stays queued with the reason (cancelable), then goes once the bind works', async () => {
  const live = t.as(acct.keys.live);
  const sent = await live.post('/v1/messages', { from: OURS, to: '+447700900301', body: 'patience' });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  assert.equal(sent.body.status, 'queued');
  assert.equal(sent.body.status_reason, null);

  let shown = sent;
  for (let i = 0; i < 200 && shown.body.status_reason === null; i++) {
    await new Promise((r) => setTimeout(r, 100));
    shown = await live.get(`/v1/messages/${sent.body.id}`);
  }
  assert.equal(shown.body.status, 'queued');
  assert.match(shown.body.status_reason, /^Waiting for the SMPP link "smsc-wait" to bind \(bind_transceiver refused: ESME_RINVPASWD .*\); the message goes out once it does\.$/);
  assert.equal(smsc.submissions.length, 0);

  // A second message waiting the same way is canceled: it stays out of the SMSC for good.
  const doomed = await live.post('/v1/messages', { from: OURS, to: '+447700900302', body: 'never mind' });
  const canceled = await live.post(`/v1/messages/${doomed.body.id}/cancel`);
  assert.equal(canceled.status, 200, JSON.stringify(canceled.body));
  assert.equal(canceled.body.status, 'canceled');

  accounts.waiter = 'pw-wait'; // the operator fixes the password at the SMSC
  const events = await hooks.waitFor((evs) => evs.some((e) => e.type === 'message.delivered' && e.data.object.id === sent.body.id), 90_000);
  const mine = events.filter((e) => e.data.object.id === sent.body.id).sort((a, b) => a.sequence - b.sequence);
  assert.deepEqual(mine.map((e) => e.type), ['message.queued', 'message.sending', 'message.sent', 'message.delivered']);
  assert.equal(mine.find((e) => e.type === 'message.sending')!.data.object.status_reason, null);
  assert.equal(smsc.submissions.filter((s) => s.destination === '447700900301').length, 1);
  const final = await live.get(`/v1/messages/${sent.body.id}`);
  assert.deepEqual([final.body.status, final.body.status_reason], ['delivered', null]);

  // The canceled message's submit job ran once the link bound (finished jobs leave the table) and sent nothing.
  const db = t.server.built.platform.database.db;
  for (let i = 0; i < 200 && (await db.selectFrom('jobs').select('id').where('kind', '=', 'smpp.submit').execute()).length > 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal((await db.selectFrom('jobs').select('id').where('kind', '=', 'smpp.submit').execute()).length, 0);
  assert.equal(smsc.submissions.filter((s) => s.destination === '447700900302').length, 0);
  const doomedEvents = hooks.events().filter((e) => e.data.object.id === doomed.body.id).map((e) => e.type);
  assert.deepEqual(doomedEvents.sort(), ['message.canceled', 'message.queued']);
  assert.equal((await live.get(`/v1/messages/${doomed.body.id}`)).body.status, 'canceled');
});

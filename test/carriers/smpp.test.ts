// Live SMS over SMPP against a real SMSC on 127.0.0.1 (the `smpp` package's server, see
// test/helpers/smsc.ts), through the HTTP API and signed webhooks, as a customer sees it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import type { ReceivedEvent, WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { startTestSmsc, type TestSmsc } from '../helpers/smsc.ts';
import { systemClock } from '../../src/platform/clock.ts';

let t: TestServer;
let smsc: TestSmsc;
let acct: CreatedAccount;
let hooks: WebhookReceiver;
const OURS = '+14155550177';
const OURS_UNBOUND = '+14155550178';

before(async () => {
  smsc = await startTestSmsc({ acme: 'pw-smpp' });
  process.env.TEST_SMPP_PASSWORD = 'pw-smpp';
  const file = join(mkdtempSync(join(tmpdir(), 'sb-smpp-')), 'carriers.yaml');
  writeFileSync(file, [
    'smpp:',
    '  - name: smsc-test',
    '    host: 127.0.0.1',
    `    port: ${smsc.port}`,
    '    system_id: acme',
    '    password: env:TEST_SMPP_PASSWORD',
    '    window: 5',
    '    max_per_second: 500',
    '    reconnect_min_seconds: 0.1',
    '    reconnect_max_seconds: 0.5',
    '    response_timeout_seconds: 3',
    '',
  ].join('\n'));
  t = await startTestServer({ SWITCHBOARD_CARRIERS_FILE: file });
  acct = await t.createAccount('scale');
  hooks = await subscribeAll(t, acct.keys.live);
  const numbers = t.server.built.services.numbers;
  for (const phone of [OURS, OURS_UNBOUND]) {
    await numbers.importNumber(systemClock, {
      accountId: acct.account.id, mode: 'live', phoneNumber: phone, capabilities: ['sms'], type: 'mobile', country: 'US', inventory: false,
      ...(phone === OURS ? { messagingCarrier: 'smsc-test' } : {}),
    });
  }
});
after(async () => {
  await hooks.close();
  await t.close();
  await smsc.close();
});

const live = () => t.as(acct.keys.live);

function eventsOf(events: ReceivedEvent[], id: string): ReceivedEvent[] {
  return events.filter((e) => e.data.object.id === id).sort((a, b) => a.sequence - b.sequence);
}

async function until(id: string, type: string): Promise<ReceivedEvent[]> {
  await hooks.waitFor((evs) => eventsOf(evs, id).some((e) => e.type === type), 20_000);
  return eventsOf(hooks.events(), id);
}

async function send(to: string, body: string, from = OURS) {
  const res = await live().post('/v1/messages', { from, to, body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

describe('SMS over SMPP', () => {
  test('an SMS goes queued, sending, sent, delivered; the SMSC got GSM-7 with a receipt requested', async () => {
    const msg = await send('+447700900001', 'Hello from Switchboard {ok}');
    const events = await until(msg.id, 'message.delivered');
    assert.deepEqual(events.map((e) => e.type), ['message.queued', 'message.sending', 'message.sent', 'message.delivered']);
    const got = smsc.submissions.filter((s) => s.destination === '447700900001');
    assert.equal(got.length, 1);
    assert.equal(got[0]!.source, '14155550177');
    assert.equal(got[0]!.dataCoding, 0);
    assert.equal(got[0]!.registeredDelivery, 1);
    // GSM 03.38, one septet per octet: '{' is ESC 0x28, '}' ESC 0x29.
    assert.deepEqual([...got[0]!.payload.subarray(-6)], [0x1b, 0x28, 0x6f, 0x6b, 0x1b, 0x29]);
    const shown = await live().get(`/v1/messages/${msg.id}`);
    assert.equal(shown.body.status, 'delivered');
    assert.equal(shown.body.segments, 1);
  });

  test('a receipt in the text form that overtakes submit_sm_resp is not lost', async () => {
    smsc.receiptTiming = 'before';
    smsc.receiptForm = 'text';
    try {
      const msg = await send('+447700900002', 'early receipt');
      const events = await until(msg.id, 'message.delivered');
      assert.deepEqual(events.map((e) => e.type), ['message.queued', 'message.sending', 'message.sent', 'message.delivered']);
    } finally {
      smsc.receiptTiming = 'after';
      smsc.receiptForm = 'tlv';
    }
  });

  test('UNDELIV and REJECTD receipts: undelivered and failed, with the carrier state', async () => {
    smsc.finalState.set('447700900003', 'UNDELIV');
    smsc.finalState.set('447700900004', 'REJECTD');
    const a = await send('+447700900003', 'nobody home');
    const b = await send('+447700900004', 'refused later');
    const undelivered = (await until(a.id, 'message.undelivered')).at(-1)!.data.object;
    assert.equal(undelivered.status, 'undelivered');
    assert.equal(undelivered.error_code, 'unreachable_destination');
    assert.equal(undelivered.error_message, 'The carrier reported UNDELIV (error 001).');
    const failed = (await until(b.id, 'message.failed')).at(-1)!.data.object;
    assert.deepEqual([failed.status, failed.error_code], ['failed', 'carrier_rejected']);
  });

  test('a permanent submit_sm error fails the message with the SMPP code', async () => {
    smsc.refuse.set('447700900005', 0x0b);
    const msg = await send('+447700900005', 'bad destination');
    const events = await until(msg.id, 'message.failed');
    assert.deepEqual(events.map((e) => e.type), ['message.queued', 'message.sending', 'message.failed']);
    assert.equal(events.at(-1)!.data.object.error_code, 'carrier_rejected');
    assert.equal(events.at(-1)!.data.object.error_message, 'the SMSC refused the message: ESME_RINVDSTADR (0x0000000b): invalid destination address.');
  });

  test('throttling answers slow the link down and the message still goes once', async () => {
    smsc.throttleNext(3, 0x58);
    const msg = await send('+447700900006', 'slow down');
    await until(msg.id, 'message.delivered');
    assert.equal(smsc.submissions.filter((s) => s.destination === '447700900006').length, 1);
  });

  test('a long UCS-2 message goes as UDH-concatenated parts; it is delivered when every part is', async () => {
    const body = 'Grüße 👋 '.repeat(20); // UCS-2, 180 UTF-16 units
    const msg = await send('+447700900007', body);
    assert.equal(msg.encoding, 'ucs2');
    const events = await until(msg.id, 'message.delivered');
    assert.deepEqual(events.map((e) => e.type), ['message.queued', 'message.sending', 'message.sent', 'message.delivered']);
    const parts = smsc.submissions.filter((s) => s.destination === '447700900007');
    assert.equal(parts.length, msg.segments);
    assert.ok(parts.every((p) => p.dataCoding === 8 && (p.esmClass & 0x40) === 0x40));
    const text = Buffer.concat(parts.map((p) => p.payload.subarray(6))).swap16().toString('utf16le');
    assert.equal(text, body);
    assert.deepEqual(parts.map((p) => [p.payload[4], p.payload[5]]), parts.map((_, i) => [parts.length, i + 1]));
  });

  test('one undelivered part makes the whole message undelivered', async () => {
    smsc.finalState.set('447700900008', 'UNDELIV');
    const msg = await send('+447700900008', 'x'.repeat(200));
    assert.equal(msg.segments, 2);
    const last = (await until(msg.id, 'message.undelivered')).at(-1)!.data.object;
    assert.match(last.error_message, /^The carrier reported UNDELIV \(error 001\) for part [12] of 2\.$/);
  });

  test('a long UCS-2 inbound message with an emoji split across parts arrives whole', async () => {
    const text = `Ça va?! ${'🎉'.repeat(40)} fin`; // 8 UTF-16 units, then pairs
    const octets = Buffer.from(text, 'utf16le').swap16();
    // Cut at an odd UTF-16 unit so the first part ends inside a surrogate pair.
    const cut = 67 * 2; // 8 + 29 pairs + 1: the first part (140 octets with its UDH) ends inside a surrogate pair
    const pieces = [octets.subarray(0, cut), octets.subarray(cut)];
    assert.ok(pieces[0]!.readUInt16BE(cut - 2) >= 0xd800 && pieces[0]!.readUInt16BE(cut - 2) <= 0xdbff, 'the cut splits a surrogate pair');
    for (const [i, piece] of [...pieces.entries()].reverse()) {
      await smsc.sendMo({ from: '447700900100', to: '14155550177', dataCoding: 8, esmClass: 0x40, shortMessage: Buffer.concat([Buffer.from([5, 0, 3, 42, 2, i + 1]), piece]) });
    }
    const received = await hooks.waitFor((evs) => evs.some((e) => e.type === 'message.received' && e.data.object.from === '+447700900100'), 20_000);
    const msg = received.filter((e) => e.type === 'message.received' && e.data.object.from === '+447700900100');
    assert.equal(msg.length, 1);
    assert.equal(msg[0]!.data.object.body, text);
    assert.equal(msg[0]!.data.object.to, OURS);
    assert.equal(msg[0]!.data.object.direction, 'inbound');
    const listed = await live().get('/v1/messages?direction=inbound');
    assert.equal(listed.body.data[0].body, text);
  });

  test('a GSM-7 inbound message for a number we do not have is refused to the SMSC, and nothing is recorded', async () => {
    await smsc.sendMo({ from: '447700900101', to: '19995550000', dataCoding: 0, shortMessage: Buffer.from('hi') });
    await smsc.sendMo({ from: '447700900101', to: '14155550177', dataCoding: 0, shortMessage: Buffer.from([0x48, 0x69, 0x20, 0x1b, 0x65]) });
    const got = await hooks.waitFor((evs) => evs.some((e) => e.type === 'message.received' && e.data.object.from === '+447700900101'), 20_000);
    const bodies = got.filter((e) => e.type === 'message.received' && e.data.object.from === '+447700900101').map((e) => e.data.object.body);
    assert.deepEqual(bodies, ['Hi €']);
  });

  test('a connection dropped mid-window: after the reconnect each message is accepted exactly once', async () => {
    smsc.dropAfterSubmits(3);
    const sent = [];
    for (let i = 0; i < 6; i++) sent.push(await send(`+4477009002${String(i).padStart(2, '0')}`, `window ${i}`));
    for (const m of sent) await until(m.id, 'message.delivered');
    for (let i = 0; i < 6; i++) {
      const accepted = smsc.submissions.filter((s) => s.destination === `4477009002${String(i).padStart(2, '0')}`);
      assert.equal(accepted.length, 1, `message ${i} accepted ${accepted.length} times`);
    }
    assert.ok(smsc.binds.filter((b) => b.ok).length >= 2, 'the link bound again');
  });

  test('a number bound to no link uses the only SMPP link; one bound to a missing link answers 422', async () => {
    const msg = await send('+447700900009', 'default link', OURS_UNBOUND);
    await until(msg.id, 'message.delivered');
    const numbers = t.server.built.services.numbers;
    const row = await numbers.findActiveLive(OURS_UNBOUND);
    await numbers.update(acct.account.id, 'live', systemClock, row!.id, { messaging_carrier: 'smsc-gone' });
    const res = await live().post('/v1/messages', { from: OURS_UNBOUND, to: '+447700900010', body: 'x' });
    assert.equal(res.status, 422);
    assert.equal(res.body.code, 'carrier_not_configured');
    assert.equal(res.body.detail, 'This number is bound to the messaging link "smsc-gone", which the carriers file does not configure.');
  });
});

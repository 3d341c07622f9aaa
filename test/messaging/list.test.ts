import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let acct: CreatedAccount;
let from: string;

before(async () => {
  t = await startTestServer();
  acct = await t.createAccount('scale');
  from = acct.numbers.sandbox[0]!;
});
after(() => t.close());

const api = () => t.as(acct.keys.sandbox);

test('25 messages paged by 10: no duplicate and no gap while new messages arrive', async () => {
  const sent: string[] = [];
  for (let i = 0; i < 25; i++) sent.push((await api().post('/v1/messages', { from, to: '+14155550123', body: `n${i}` })).body.id);
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 10; page++) {
    const res: any = await api().get(`/v1/messages?to=%2B14155550123&limit=10${cursor ? `&starting_after=${cursor}` : ''}`);
    assert.equal(res.status, 200);
    seen.push(...res.body.data.map((m: any) => m.id));
    // New messages arrive between pages: they are newer than page 1 and never shift later pages.
    await api().post('/v1/messages', { from, to: '+14155550123', body: `late ${page}` });
    if (!res.body.has_more) break;
    cursor = res.body.next_cursor;
  }
  assert.equal(seen.length, 25);
  assert.equal(new Set(seen).size, 25, 'no duplicate');
  assert.deepEqual(seen, [...sent].reverse(), 'newest first, no gap');
});

test('filters: from, to, status, channel, direction and created range', async () => {
  const other = '+14155550777';
  const a = (await api().post('/v1/messages', { from, to: other, body: 'a' })).body;
  const failed = (await api().post('/v1/messages', { from, to: '+15005550010', body: 'f' })).body;
  const inbound = (await api().post('/v1/sandbox/inbound_messages', { from: other, to: from, body: 'in' })).body;
  const ids = async (query: string) => (await api().get(`/v1/messages?${query}`)).body.data.map((m: any) => m.id);

  assert.deepEqual(await ids(`to=%2B${other.slice(1)}`), [a.id]);
  assert.deepEqual(await ids(`to=+${other.slice(1)}`), [a.id], 'a raw + (decoded as a space) works too');
  assert.deepEqual(await ids(`from=${other.slice(1)}`), [inbound.id], 'and so does no +');
  assert.deepEqual(await ids('direction=inbound'), [inbound.id]);
  assert.ok((await ids('direction=outbound&limit=100')).includes(a.id));
  assert.deepEqual(await ids('channel=whatsapp'), []);
  for (let i = 0; i < 50; i++) {
    if ((await api().get(`/v1/messages/${failed.id}`)).body.status === 'failed') break;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.deepEqual(await ids('status=failed'), [failed.id]);
  assert.deepEqual(await ids('status=received'), [inbound.id]);
  assert.deepEqual(await ids(`created_gte=${encodeURIComponent(a.created_at)}&created_lte=${encodeURIComponent(failed.created_at)}`), [failed.id, a.id]);
  assert.deepEqual(await ids(`created_gte=${encodeURIComponent(inbound.created_at)}`), [inbound.id]);
  // A created range pages with the same cursor: one by one, no duplicate, no gap.
  const paged: string[] = [];
  let cursor = '';
  for (let page = 0; page < 5; page++) {
    const res = await api().get(`/v1/messages?limit=1&created_gte=${encodeURIComponent(a.created_at)}${cursor && `&starting_after=${cursor}`}`);
    paged.push(...res.body.data.map((m: any) => m.id));
    if (!res.body.has_more) break;
    cursor = res.body.next_cursor;
  }
  assert.deepEqual(paged, [inbound.id, failed.id, a.id]);
  assert.equal((await api().get('/v1/messages?created_gte=2020-01-01T00:00:00Z&starting_after=msg_nope')).status, 400);
  assert.equal((await api().get('/v1/messages?status=nope')).status, 400);
  assert.equal((await api().get('/v1/messages?created_gte=yesterday')).status, 400);
  // The other mode and other accounts see none of it.
  assert.deepEqual((await t.as(acct.keys.live).get('/v1/messages')).body.data, []);
  assert.equal((await t.as(acct.keys.live).get(`/v1/messages/${a.id}`)).status, 404);
  const stranger = await t.createAccount('scale');
  assert.deepEqual((await t.as(stranger.keys.sandbox).get('/v1/messages')).body.data, []);
});

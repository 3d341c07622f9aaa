// GET /v1/ai/conversations: every filter (agent, status, outcome, caller, score range,
// created range) and cursor pages, over conversations held through HTTP; modes stay apart.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { converse, createFixtureAgent } from '../helpers/ai.ts';

let t: TestServer;
let acct: CreatedAccount;
let hooks: WebhookReceiver;
const held: any[] = [];
let agentA: string;
let agentB: string;
let boundary: string;

const CALLER_1 = '+14155550111';
const CALLER_2 = '+14155550122';

before(async () => {
  t = await startTestServer();
  acct = await t.createAccount('scale');
  hooks = await subscribeAll(t, acct.keys.sandbox);
  const api = t.as(acct.keys.sandbox);
  const first = (await api.get('/v1/numbers')).body.data[0];
  const [pick] = (await api.get('/v1/numbers/available?area_code=503&limit=1')).body.data;
  const second = (await api.post('/v1/numbers', { phone_number: pick.phone_number })).body;
  agentA = (await createFixtureAgent(t, acct.keys.sandbox, first.id)).agent.id;
  agentB = (await createFixtureAgent(t, acct.keys.sandbox, second.id, { name: 'Second desk' })).agent.id;
  const hold = async (to: string, from: string, caller_script: string[]) => held.push((await converse(t, acct.keys.sandbox, hooks, { to, from, caller_script })).scored);
  await hold(first.phone_number, CALLER_1, ['Where are you located?', 'Thanks, bye!']);
  await hold(first.phone_number, CALLER_2, ['Can I speak to a real person please?']);
  // Everything after this point is created an hour later on the sandbox test clock.
  const clock = await api.post('/v1/sandbox/clock/advance', { seconds: 3600 });
  boundary = new Date(Date.parse(clock.body.now) - 60_000).toISOString();
  await hold(first.phone_number, CALLER_1, ['I want to leave a message', 'Call me back about my invoice please.', 'no thanks, bye']);
  await hold(second.phone_number, CALLER_2, []);
  await hold(second.phone_number, CALLER_1, ['How much is a crown?']);
});
after(async () => {
  await hooks.close();
  await t.close();
});

async function ids(query: string): Promise<string[]> {
  const res = await t.as(acct.keys.sandbox).get(`/v1/ai/conversations?limit=100${query}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.map((c: any) => c.id);
}
const newestFirst = (list: any[]) => list.map((c) => c.id).reverse();

describe('GET /v1/ai/conversations', () => {
  test('lists newest first with transcripts, and pages with a cursor', async () => {
    const all = await t.as(acct.keys.sandbox).get('/v1/ai/conversations');
    assert.deepEqual(all.body.data.map((c: any) => c.id), newestFirst(held));
    assert.deepEqual(all.body.data[0], held.at(-1), 'the list shows what GET and the scored webhook show, transcript included');
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const res: any = await t.as(acct.keys.sandbox).get(`/v1/ai/conversations?limit=2${cursor ? `&starting_after=${cursor}` : ''}`);
      seen.push(...res.body.data.map((c: any) => c.id));
      cursor = res.body.next_cursor;
      assert.equal(res.body.has_more, cursor !== null);
      if (!cursor) break;
    }
    assert.deepEqual(seen, newestFirst(held));
  });

  test('filters: agent, status, outcome, caller, score range, created range', async () => {
    assert.deepEqual(held.map((c) => c.outcome), ['resolved', 'transferred', 'message_taken', 'abandoned', 'resolved']);
    assert.deepEqual(await ids(`&agent_id=${agentB}`), newestFirst(held.filter((c) => c.agent_id === agentB)));
    assert.deepEqual(await ids('&outcome=resolved'), newestFirst(held.filter((c) => c.outcome === 'resolved')));
    assert.deepEqual(await ids('&outcome=transferred'), [held[1].id]);
    assert.deepEqual(await ids('&status=completed'), newestFirst(held));
    assert.deepEqual(await ids('&status=in_progress'), []);
    assert.deepEqual(await ids(`&from=${encodeURIComponent(CALLER_2)}`), newestFirst(held.filter((c) => c.from === CALLER_2)));
    assert.deepEqual(await ids(`&from=${CALLER_2}`), newestFirst(held.filter((c) => c.from === CALLER_2)), 'an unencoded + still matches');
    assert.deepEqual(await ids(`&agent_id=${agentA}&from=${encodeURIComponent(CALLER_1)}`), [held[2].id, held[0].id]);

    const scores = held.map((c) => c.score.overall);
    const pivot = [...scores].sort((a, b) => a - b)[2]!;
    assert.deepEqual(await ids(`&score_gte=${pivot}`), newestFirst(held.filter((c) => c.score.overall >= pivot)));
    assert.deepEqual(await ids(`&score_lte=${pivot}`), newestFirst(held.filter((c) => c.score.overall <= pivot)));
    assert.deepEqual(await ids('&score_gte=0&score_lte=100'), newestFirst(held));

    assert.deepEqual(await ids(`&created_gte=${boundary}`), newestFirst(held.slice(2)));
    assert.deepEqual(await ids(`&created_lte=${boundary}`), newestFirst(held.slice(0, 2)));
    assert.equal((await t.as(acct.keys.sandbox).get('/v1/ai/conversations?score_gte=101')).status, 400);
    assert.equal((await t.as(acct.keys.sandbox).get('/v1/ai/conversations?outcome=happy')).status, 400);
  });

  test('live keys see no sandbox conversations, and a sandbox id is a 404 there', async () => {
    const live = t.as(acct.keys.live);
    assert.deepEqual((await live.get('/v1/ai/conversations')).body.data, []);
    assert.equal((await live.get(`/v1/ai/conversations/${held[0].id}`)).status, 404);
    assert.equal((await t.as(acct.keys.sandbox).get('/v1/ai/conversations/conv_01jd8x0v6kf5b9w3t2q1r0p9n8')).status, 404);
  });
});

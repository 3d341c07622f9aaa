import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';

const execFileAsync = promisify(execFile);
let t: TestServer;

/** Runs the `switchboard` CLI on the test server's store, as an operator would. */
async function cli(...args: string[]): Promise<string> {
  const env = { ...process.env, DATABASE_URL: t.store.databaseUrl ?? '' };
  try {
    const { stdout } = await execFileAsync(process.execPath, ['bin/switchboard.js', ...args, '--data-dir', t.store.dataDir], { env, timeout: 180_000, cwd: fileURLToPath(new URL('../..', import.meta.url)) });
    return stdout;
  } catch (err) {
    // Killed at the timeout, the CLI has said nothing: then the error itself says why.
    throw new Error((err as { stderr?: string }).stderr || String(err));
  }
}
let acct: CreatedAccount;
let hooks: WebhookReceiver;

before(async () => {
  t = await startTestServer();
  acct = await t.createAccount('scale');
  hooks = await subscribeAll(t, acct.keys.sandbox);
});
after(async () => {
  await hooks.close();
  await t.close();
});

describe('numbers', () => {
  test('a new account lists its sandbox number', async () => {
    const res = await t.as(acct.keys.sandbox).get('/v1/numbers');
    assert.equal(res.status, 200);
    assert.equal(res.body.data.length, 1);
    const [number] = res.body.data;
    assert.equal(number.phone_number, acct.numbers.sandbox[0]);
    assert.match(number.id, /^num_/);
    assert.equal(number.status, 'active');
    assert.equal(number.temporary, false);
    assert.deepEqual(number.capabilities, ['voice', 'sms', 'mms', 'whatsapp']);
  });

  test('search is deterministic and honours area_code, contains, type and limit', async () => {
    const api = t.as(acct.keys.sandbox);
    const a = await api.get('/v1/numbers/available?area_code=212&type=mobile&limit=3');
    const b = await api.get('/v1/numbers/available?area_code=212&type=mobile&limit=3');
    assert.equal(a.status, 200);
    assert.deepEqual(a.body, b.body);
    assert.equal(a.body.data.length, 3);
    for (const n of a.body.data) {
      assert.match(n.phone_number, /^\+1212555\d{4}$/);
      assert.equal(n.type, 'mobile');
      assert.equal(n.area_code, '212');
      assert.ok(Number(n.phone_number.slice(-4)) >= 5000);
    }
    const contains = await api.get('/v1/numbers/available?contains=4242&limit=5');
    assert.equal(contains.body.data.length, 5);
    for (const n of contains.body.data) assert.ok(n.phone_number.includes('4242'));
    const tollFree = await api.get('/v1/numbers/available?type=toll_free&limit=1');
    assert.match(tollFree.body.data[0].phone_number, /^\+1(800|888|877)555/);
    assert.deepEqual(tollFree.body.data[0].capabilities, ['voice', 'sms', 'mms']);
    const elsewhere = await api.get('/v1/numbers/available?country=GB');
    assert.deepEqual(elsewhere.body.data, []);
    const bad = await api.get('/v1/numbers/available?area_code=41');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].field, 'area_code');
  });

  test('provision, update, release: each fires its event and the number leaves the search', async () => {
    const api = t.as(acct.keys.sandbox);
    const [pick] = (await api.get('/v1/numbers/available?area_code=415&contains=77&limit=1')).body.data;
    const provisioned = await api.post('/v1/numbers', { phone_number: pick.phone_number, friendly_name: 'Support' });
    assert.equal(provisioned.status, 200);
    const number = provisioned.body;
    assert.equal(number.phone_number, pick.phone_number);
    assert.equal(number.friendly_name, 'Support');
    assert.equal(number.status, 'active');
    assert.deepEqual(number.capabilities, pick.capabilities);

    const again = await api.post('/v1/numbers', { phone_number: pick.phone_number });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'number_not_available');
    const after = await api.get('/v1/numbers/available?area_code=415&contains=77&limit=1');
    assert.notEqual(after.body.data[0].phone_number, pick.phone_number);
    const notInInventory = await api.post('/v1/numbers', { phone_number: '+14155550000' });
    assert.equal(notInInventory.status, 409);

    const patched = await api.patch(`/v1/numbers/${number.id}`, { webhook_url: 'http://127.0.0.1:9/hooks', friendly_name: null });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.webhook_url, 'http://127.0.0.1:9/hooks');
    assert.equal(patched.body.friendly_name, null);
    const agent = await api.patch(`/v1/numbers/${number.id}`, { agent_id: 'agent_nope' });
    assert.equal(agent.status, 422);
    assert.equal(agent.body.code, 'agent_not_found');
    const unassign = await api.patch(`/v1/numbers/${number.id}`, { agent_id: null });
    assert.equal(unassign.status, 200);
    assert.equal(unassign.body.agent_id, null);

    const released = await api.delete(`/v1/numbers/${number.id}`);
    assert.equal(released.status, 200);
    assert.equal(released.body.status, 'released');
    assert.ok(released.body.released_at);
    assert.equal((await api.delete(`/v1/numbers/${number.id}`)).body.status, 'released', 'releasing twice is a no-op');
    const patchReleased = await api.patch(`/v1/numbers/${number.id}`, { friendly_name: 'x' });
    assert.equal(patchReleased.status, 409);
    assert.equal(patchReleased.body.code, 'number_not_active');

    const list = await api.get('/v1/numbers');
    assert.ok(!list.body.data.some((n: any) => n.id === number.id), 'released numbers are not listed by default');
    const releasedList = await api.get('/v1/numbers?status=released');
    assert.deepEqual(releasedList.body.data.map((n: any) => n.id), [number.id]);

    const events = await hooks.waitFor((evs) => evs.filter((e) => e.data.object.id === number.id).length >= 4);
    const mine = events.filter((e) => e.data.object.id === number.id).sort((x, y) => x.sequence - y.sequence);
    assert.deepEqual(mine.map((e) => e.type), ['number.provisioned', 'number.updated', 'number.updated', 'number.released']);
    assert.deepEqual(mine.map((e) => e.sequence), [1, 2, 3, 4]);
    assert.equal(mine[3]!.data.object.status, 'released');
  });

  test('PATCH of a missing number is 404 before its URLs or agent are judged', async () => {
    const api = t.as(acct.keys.sandbox);
    const refusedUrl = { webhook_url: 'http://hooks.example.invalid/hooks' };
    const missing = 'num_01jd8x0v6kf5b9w3t2q1r0p9n8';
    for (const body of [refusedUrl, { voice_url: 'http://voice.example.invalid/answer' }, { agent_id: 'agent_01jd8x0v6kf5b9w3t2q1r0p9n8' }]) {
      const res = await api.patch(`/v1/numbers/${missing}`, body);
      assert.equal(res.status, 404, JSON.stringify(res.body));
      assert.equal(res.body.code, 'not_found');
    }
    const otherMode = (await api.get('/v1/numbers')).body.data[0];
    assert.equal((await t.as(acct.keys.live).patch(`/v1/numbers/${otherMode.id}`, refusedUrl)).status, 404, 'a number of the other mode too');
    // The same body on a number that exists is judged: the URL is refused.
    const judged = await api.patch(`/v1/numbers/${otherMode.id}`, refusedUrl);
    assert.equal(judged.status, 422, JSON.stringify(judged.body));
    assert.equal(judged.body.code, 'webhook_url_not_allowed');
  });

  test('ids of the other mode or account are 404', async () => {
    const other = await t.createAccount('scale');
    const mine = (await t.as(acct.keys.sandbox).get('/v1/numbers')).body.data[0];
    assert.equal((await t.as(acct.keys.live).get(`/v1/numbers/${mine.id}`)).status, 404);
    assert.equal((await t.as(other.keys.sandbox).get(`/v1/numbers/${mine.id}`)).status, 404);
    assert.equal((await t.as(other.keys.sandbox).delete(`/v1/numbers/${mine.id}`)).status, 404);
  });

  test('live: search and provision work on the numbers an operator imported', async () => {
    const live = t.as(acct.keys.live);
    assert.deepEqual((await live.get('/v1/numbers/available')).body.data, []);
    const added = await cli('numbers', 'import', '--account', acct.account.id, '--mode', 'live', '--number', '+13125550123', '--capabilities', 'voice,sms', '--inventory');
    assert.match(added, /\+13125550123 added to the live inventory/);
    const available = await live.get('/v1/numbers/available?area_code=312');
    assert.deepEqual(available.body.data.map((n: any) => [n.phone_number, n.capabilities]), [['+13125550123', ['voice', 'sms']]]);
    const provisioned = await live.post('/v1/numbers', { phone_number: '+13125550123' });
    assert.equal(provisioned.status, 200);
    assert.equal(provisioned.body.mode, 'live');
    assert.deepEqual((await live.get('/v1/numbers/available')).body.data, []);
    const sandboxNumber = await live.post('/v1/numbers', { phone_number: '+14155550199' });
    assert.equal(sandboxNumber.status, 409, 'the simulator inventory is not for sale in live mode');
  });

  test('live: `switchboard numbers import` without --inventory makes the number active at once', async () => {
    const json = JSON.parse(await cli('numbers', 'import', '--account', acct.account.id, '--number', '+12065550142', '--capabilities', 'voice,sms,whatsapp', '--json'));
    assert.equal(json.mode, 'live');
    assert.equal(json.status, 'active');
    const got = await t.as(acct.keys.live).get(`/v1/numbers/${json.id}`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body.capabilities, ['voice', 'sms', 'whatsapp']);
    await assert.rejects(cli('numbers', 'import', '--account', acct.account.id, '--number', '+12065550142'), /already in use/);
    await assert.rejects(cli('numbers', 'import', '--account', acct.account.id, '--number', 'nope'), /E\.164/);
  });

  test('scopes: numbers:read cannot provision', async () => {
    const key = await t.as(acct.keys.sandbox).post('/v1/keys', { scopes: ['numbers:read'] });
    const readOnly = t.as(key.body.secret);
    assert.equal((await readOnly.get('/v1/numbers')).status, 200);
    const denied = await readOnly.post('/v1/numbers', { phone_number: '+14155550199' });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, 'insufficient_scope');
  });
});

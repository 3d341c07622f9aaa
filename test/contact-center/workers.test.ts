// Workers through HTTP (issue 26, part 1 and 2): the Worker resource per account and mode,
// its list's paging and filters, status changes with worker.status_changed delivered to a
// real receiver, and a softphone's SIP credentials kept only as the digest HA1.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';
import { eventsOf } from '../voice/voice-helpers.ts';

const sandbox = useSandboxAccount();
const api = () => sandbox.api();
const live = () => sandbox.server.as(sandbox.account.keys.live);

async function created(body: Record<string, unknown>, client = api()): Promise<any> {
  const res = await client.post('/v1/workers', body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

describe('the worker resource', () => {
  test('create with defaults, fetch, list across modes, change and delete', async () => {
    const alice = await created({ name: 'Alice', skills: ['spanish', 'billing', 'spanish'], reach: '+15005550004' });
    assert.match(alice.id, /^wrk_[0-9a-z]{26}$/);
    assert.deepEqual(
      [alice.object, alice.mode, alice.name, alice.skills, alice.status, alice.reach, alice.ring_timeout_seconds, alice.wrap_up_seconds, alice.last_idle_at, alice.current_call_id, alice.sip_credentials_created_at],
      ['worker', 'sandbox', 'Alice', ['billing', 'spanish'], 'offline', '+15005550004', 20, 10, null, null, null],
    );
    assert.deepEqual((await api().get(`/v1/workers/${alice.id}`)).body, alice);
    assert.equal((await live().get(`/v1/workers/${alice.id}`)).status, 404, 'a sandbox worker is not seen live');
    assert.equal((await live().delete(`/v1/workers/${alice.id}`)).status, 404);

    const changed = await api().patch(`/v1/workers/${alice.id}`, { name: 'Alice S.', skills: [], reach: 'sip:alice@pbx.example.com', ring_timeout_seconds: 30, wrap_up_seconds: 0 });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual([changed.body.name, changed.body.skills, changed.body.reach, changed.body.ring_timeout_seconds, changed.body.wrap_up_seconds, changed.body.status],
      ['Alice S.', [], 'sip:alice@pbx.example.com', 30, 0, 'offline']);

    assert.deepEqual((await api().delete(`/v1/workers/${alice.id}`)).body, { id: alice.id, object: 'worker', deleted: true });
    assert.equal((await api().get(`/v1/workers/${alice.id}`)).status, 404);
  });

  test('bad input is a 400 naming the field', async () => {
    for (const [body, field] of [
      [{ name: 'x', reach: '4155550100' }, 'reach'],
      [{ name: 'x', reach: { sip_user: 'Al' } }, 'reach'],
      [{ name: 'x', reach: 'http://example.com' }, 'reach'],
      [{ name: 'x', reach: '+15005550004', skills: ['Has Space'] }, 'skills'],
      [{ name: 'x', reach: '+15005550004', status: 'busy' }, 'status'],
      [{ name: 'x', reach: '+15005550004', ring_timeout_seconds: 1 }, 'ring_timeout_seconds'],
      [{ reach: '+15005550004' }, 'name'],
    ] as const) {
      const res = await api().post('/v1/workers', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 'validation_failed');
      assert.ok(res.body.errors.some((e: any) => e.field.startsWith(field)), `${JSON.stringify(res.body.errors)} names ${field}`);
    }
  });

  test('pages newest first, filtered by status and by skill', async () => {
    const ids: string[] = [];
    for (const [i, skills] of [['es_mx'], ['esxmx'], ['es_mx', 'sales'], []].entries()) {
      ids.push((await created({ name: `paged ${i}`, skills, reach: '+15005550004', status: i % 2 === 0 ? 'available' : 'offline' })).id);
    }
    const first = (await api().get('/v1/workers?limit=3')).body;
    assert.deepEqual(first.data.map((w: any) => w.id), [ids[3], ids[2], ids[1]]);
    assert.equal(first.has_more, true);
    const second = (await api().get(`/v1/workers?limit=3&starting_after=${first.next_cursor}`)).body;
    assert.equal(second.data[0].id, ids[0]);

    const available = (await api().get('/v1/workers?status=available&limit=100')).body.data.map((w: any) => w.id);
    assert.deepEqual(available.filter((id: string) => ids.includes(id)), [ids[2], ids[0]]);
    for (const w of (await api().get('/v1/workers?status=available&limit=100')).body.data) assert.ok(w.last_idle_at, 'an available worker has an idle time');
    // `_` in a skill is a plain character, not a wildcard.
    assert.deepEqual((await api().get('/v1/workers?skill=es_mx')).body.data.map((w: any) => w.id), [ids[2], ids[0]]);
    assert.deepEqual((await api().get('/v1/workers?skill=sales')).body.data.map((w: any) => w.id), [ids[2]]);
    assert.equal((await api().get('/v1/workers?skill=NOPE')).status, 400);
    assert.equal((await api().get('/v1/workers?status=lost')).status, 400);
  });
});

describe('status', () => {
  test('available and offline by PATCH, each move a worker.status_changed webhook; busy is the system\'s', async () => {
    const bob = await created({ name: 'Bob', reach: '+15005550004' });
    const on = await api().patch(`/v1/workers/${bob.id}`, { status: 'available' });
    assert.equal(on.status, 200, JSON.stringify(on.body));
    assert.equal(on.body.status, 'available');
    assert.equal(on.body.last_idle_at, on.body.status_changed_at);
    const same = await api().patch(`/v1/workers/${bob.id}`, { status: 'available' });
    assert.equal(same.body.last_idle_at, on.body.last_idle_at, 'asking for the status it has changes nothing');
    const off = await api().patch(`/v1/workers/${bob.id}`, { status: 'offline' });
    assert.equal(off.body.status, 'offline');
    assert.equal(off.body.last_idle_at, on.body.last_idle_at, 'the last idle time stays');

    const busy = await api().patch(`/v1/workers/${bob.id}`, { status: 'busy' });
    assert.equal(busy.status, 400);
    assert.equal(busy.body.errors[0].field, 'status');

    await sandbox.receiver.waitFor(() => eventsOf(sandbox.receiver, bob.id).length >= 2);
    const events = eventsOf(sandbox.receiver, bob.id);
    assert.deepEqual(events.map((e) => [e.type, e.sequence, e.data.object.status]), [
      ['worker.status_changed', 1, 'available'], ['worker.status_changed', 2, 'offline'],
    ]);
    assert.deepEqual(events[1]!.data.object, off.body, 'the event carries the worker as GET shows it');
  });
});

describe('softphone credentials', () => {
  test('a username and a password shown once, kept only as the digest HA1; a new call replaces it', async () => {
    const sipUser = `acme${Date.now().toString(36)}.carol`;
    const carol = await created({ name: 'Carol', reach: { sip_user: sipUser } }, live());
    assert.deepEqual(carol.reach, { sip_user: sipUser });

    const first = await live().post(`/v1/workers/${carol.id}/sip_credentials`);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual([first.body.object, first.body.worker_id, first.body.username, first.body.realm], ['sip_credentials', carol.id, sipUser, 'switchboard']);
    assert.ok(first.body.password.length >= 20);
    const shown = (await live().get(`/v1/workers/${carol.id}`)).body;
    assert.equal(shown.sip_credentials_created_at, first.body.created_at);
    assert.ok(!JSON.stringify(shown).includes(first.body.password), 'never shown again');

    const db = sandbox.server.server.built.platform.database.db;
    const ha1 = (user: string, password: string) => createHash('md5').update(`${user}:switchboard:${password}`).digest('hex');
    const stored = await db.selectFrom('workers').selectAll().where('id', '=', carol.id).executeTakeFirstOrThrow();
    assert.equal(stored.sip_ha1, ha1(sipUser, first.body.password));
    assert.ok(!Object.values(stored).some((v) => typeof v === 'string' && v.includes(first.body.password)), 'no column holds the password');

    const second = (await live().post(`/v1/workers/${carol.id}/sip_credentials`)).body;
    assert.notEqual(second.password, first.body.password);
    const replaced = await db.selectFrom('workers').select('sip_ha1').where('id', '=', carol.id).executeTakeFirstOrThrow();
    assert.equal(replaced.sip_ha1, ha1(sipUser, second.password));

    // Another user name voids the credentials: the HA1 is bound to the name.
    const renamed = await live().patch(`/v1/workers/${carol.id}`, { reach: { sip_user: `${sipUser}2` } });
    assert.equal(renamed.body.sip_credentials_created_at, null);
  });

  test('SIP user names are unique across accounts and modes; a worker on a number has no credentials', async () => {
    const sipUser = `acme${Date.now().toString(36)}.dave`;
    await created({ name: 'Dave', reach: { sip_user: sipUser } });
    const other = await sandbox.server.createAccount('scale');
    const taken = await sandbox.server.as(other.keys.sandbox).post('/v1/workers', { name: 'Dave too', reach: { sip_user: sipUser } });
    assert.equal(taken.status, 409);
    assert.equal(taken.body.code, 'sip_user_taken');
    const erin = await created({ name: 'Erin', reach: { sip_user: `${sipUser}.erin` } }, live());
    const clash = await live().patch(`/v1/workers/${erin.id}`, { reach: { sip_user: sipUser } });
    assert.equal(clash.status, 409);
    assert.equal(clash.body.code, 'sip_user_taken');

    const onNumber = await created({ name: 'Frank', reach: '+15005550004' });
    const refused = await api().post(`/v1/workers/${onNumber.id}/sip_credentials`);
    assert.equal(refused.status, 409);
    assert.equal(refused.body.code, 'worker_not_softphone');
    assert.equal((await api().post('/v1/workers/wrk_01jd8x0v6kf5b9w3t2q1r0p9n8/sip_credentials')).status, 404);
  });
});

// A key manages only keys within its own rights (issue 11.3 and 11.5): the matrix below tries
// every way a key could give itself or another key more than it holds.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, type CreatedAccount } from '../helpers/server.ts';

let t: TestServer;
let acct: CreatedAccount;

before(async () => {
  t = await startTestServer();
  acct = await t.createAccount('scale');
});
after(() => t.close());

const HELD: string[][] = [['keys:write'], ['keys:write', 'calls:read'], ['keys:write', 'calls:write'], ['*']];
const TARGETS: string[][] = [['*'], ['calls:read'], ['calls:write'], ['keys:read'], ['keys:write'], ['messages:read'], ['keys:write', 'calls:read']];

/** What the rule says: `*` only from `*`; write covers read of the same resource. */
function within(target: string[], held: string[]): boolean {
  return target.every((s) => held.includes('*') || held.includes(s) || (s.endsWith(':read') && held.includes(s.replace(':read', ':write'))));
}

async function newKey(scopes: string[]): Promise<{ id: string; secret: string }> {
  const res = await t.as(acct.keys.sandbox).post('/v1/keys', { scopes });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { id: res.body.id, secret: res.body.secret };
}

function assertRefused(res: { status: number; body: any }, what: string) {
  assert.equal(res.status, 403, `${what}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.code, 'scope_not_held', what);
  assert.ok(Array.isArray(res.body.scopes_not_held) && res.body.scopes_not_held.length > 0, what);
}

describe('scope escalation matrix', () => {
  for (const held of HELD) {
    test(`a key holding ${JSON.stringify(held)}`, async () => {
      const caller = await newKey(held);
      const as = t.as(caller.secret);
      for (const target of TARGETS) {
        const what = `${JSON.stringify(held)} -> ${JSON.stringify(target)}`;
        const allowed = within(target, held);

        const created = await as.post('/v1/keys', { scopes: target });
        if (allowed) assert.equal(created.status, 200, `create ${what}: ${JSON.stringify(created.body)}`);
        else assertRefused(created, `create ${what}`);

        // Widening: its own scopes, and a key it may manage, to the target.
        const widenSelf = await as.patch(`/v1/keys/${caller.id}`, { scopes: target });
        if (allowed) assert.equal(widenSelf.status, 200, `widen self ${what}`);
        else assertRefused(widenSelf, `widen self ${what}`);
        if (allowed) await t.as(acct.keys.sandbox).patch(`/v1/keys/${caller.id}`, { scopes: held }); // put it back

        const victim = await newKey(target);
        const rotated = await as.post(`/v1/keys/${victim.id}/rotate`, { expires_in_seconds: 0 });
        if (allowed) {
          assert.equal(rotated.status, 200, `rotate ${what}`);
          assert.match(rotated.body.key.secret, /^sb_test_/);
        } else {
          assertRefused(rotated, `rotate ${what}`);
          assert.equal(rotated.body.key, undefined, 'no secret leaks in the refusal');
        }
        const renamed = await as.patch(`/v1/keys/${victim.id}`, { name: 'mine now', allowed_ips: ['203.0.113.0/24'] });
        if (allowed) assert.equal(renamed.status, 200, `change ${what}`);
        else assertRefused(renamed, `change ${what}`);
        const revoked = await as.post(`/v1/keys/${victim.id}/revoke`);
        if (allowed) assert.equal(revoked.status, 200, `revoke ${what}`);
        else assertRefused(revoked, `revoke ${what}`);
      }
      // After all of that, the caller still holds exactly what it was given.
      assert.deepEqual((await t.as(acct.keys.sandbox).get(`/v1/keys/${caller.id}`)).body.scopes, held);
    });
  }

  test('a refused widening leaves the key unchanged and the refusal still needs keys:write', async () => {
    const caller = await newKey(['keys:read', 'calls:read']);
    const res = await t.as(caller.secret).patch(`/v1/keys/${caller.id}`, { scopes: ['*'] });
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 'insufficient_scope');
  });
});

describe('empty and default scopes', () => {
  test('an empty scope list is refused, never read as everything', async () => {
    for (const [method, path] of [['POST', '/v1/keys'], ['PATCH', `/v1/keys/${(await newKey(['calls:read'])).id}`]] as const) {
      const res = await t.request(method, path, { key: acct.keys.sandbox, body: { scopes: [] } });
      assert.equal(res.status, 400, `${method} ${path}`);
      assert.equal(res.body.code, 'validation_failed');
      assert.deepEqual(res.body.errors.map((e: any) => e.field), ['scopes']);
    }
  });

  test('without scopes, a new key gets the scopes of the key that creates it; "*" only when asked', async () => {
    const narrow = await newKey(['keys:write', 'messages:read']);
    const child = await t.as(narrow.secret).post('/v1/keys', { name: 'child' });
    assert.equal(child.status, 200);
    assert.deepEqual(child.body.scopes, ['keys:write', 'messages:read']);
    const full = await t.as(acct.keys.sandbox).post('/v1/keys', { scopes: ['*'] });
    assert.deepEqual(full.body.scopes, ['*']);
  });
});

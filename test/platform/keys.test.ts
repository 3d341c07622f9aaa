import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, type CreatedAccount } from '../helpers/server.ts';

let t: TestServer;
let acct: CreatedAccount;

before(async () => {
  t = await startTestServer();
  acct = await t.createAccount('growth');
});
after(() => t.close());

describe('API keys', () => {
  test('create shows the secret once; get and list never do', async () => {
    const admin = t.as(acct.keys.sandbox);
    const created = await admin.post('/v1/keys', { name: 'reporting', scopes: ['calls:read'] });
    assert.equal(created.status, 200);
    assert.match(created.body.id, /^key_/);
    assert.match(created.body.secret, /^sb_test_[0-9A-Za-z]{43}$/);
    assert.equal(created.body.mode, 'sandbox');
    assert.deepEqual(created.body.scopes, ['calls:read']);
    assert.equal(created.body.redacted, `sb_test_...${created.body.secret.slice(-4)}`);

    const got = await admin.get(`/v1/keys/${created.body.id}`);
    assert.equal(got.status, 200);
    assert.equal(got.body.secret, undefined);
    assert.equal(got.body.last4, created.body.secret.slice(-4));
    const listed = await admin.get('/v1/keys?limit=100');
    assert.equal(listed.status, 200);
    assert.ok(listed.body.data.some((k: any) => k.id === created.body.id));
    assert.ok(listed.body.data.every((k: any) => k.secret === undefined && k.mode === 'sandbox'));
  });

  test('a key without the scope gets 403 insufficient_scope naming it; write implies read', async () => {
    const admin = t.as(acct.keys.sandbox);
    const readOnly = (await admin.post('/v1/keys', { scopes: ['keys:read'] })).body.secret as string;
    const denied = await t.as(readOnly).post('/v1/keys', {});
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, 'insufficient_scope');
    assert.equal(denied.body.required_scope, 'keys:write');
    assert.match(denied.body.detail, /keys:write/);
    assert.equal((await t.as(readOnly).get('/v1/keys')).status, 200);
    assert.equal((await t.as(readOnly).get('/v1/account')).status, 403);

    const writer = (await admin.post('/v1/keys', { scopes: ['keys:write'] })).body.secret as string;
    assert.equal((await t.as(writer).get('/v1/keys')).status, 200);
  });

  test('unknown scopes and bad CIDRs are 400s naming the field', async () => {
    const res = await t.as(acct.keys.sandbox).post('/v1/keys', { scopes: ['calls:read', 'everything'] });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'validation_failed');
    assert.deepEqual(res.body.errors.map((e: any) => e.field), ['scopes.1']);
    const cidr = await t.as(acct.keys.sandbox).post('/v1/keys', { allowed_ips: ['10.0.0.0/33'] });
    assert.equal(cidr.status, 400);
    assert.deepEqual(cidr.body.errors.map((e: any) => e.field), ['allowed_ips.0']);
  });

  test('IP allow-list: other addresses get 403 ip_not_allowed; IPv4 and IPv6 CIDRs', async () => {
    const admin = t.as(acct.keys.sandbox);
    const key = (await admin.post('/v1/keys', { allowed_ips: ['10.0.0.0/8', '2001:db8::/32'] })).body;
    const blocked = await t.as(key.secret).get('/v1/account');
    assert.equal(blocked.status, 403);
    assert.equal(blocked.body.code, 'ip_not_allowed');
    assert.ok(blocked.headers.get('x-switchboard-ratelimit-remaining'));

    const updated = await admin.patch(`/v1/keys/${key.id}`, { allowed_ips: ['127.0.0.1', '::1/128'] });
    assert.equal(updated.status, 200);
    assert.deepEqual(updated.body.allowed_ips, ['127.0.0.1/32', '::1/128']);
    assert.equal((await t.as(key.secret).get('/v1/account')).status, 200);
  });

  test('rotation: the new secret works at once, the old one until its grace ends', async () => {
    const admin = t.as(acct.keys.sandbox);
    const old = (await admin.post('/v1/keys', { name: 'rotating', scopes: ['account:read'] })).body;
    const rotated = await admin.post(`/v1/keys/${old.id}/rotate`, { expires_in_seconds: 3600 });
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.body.key.secret, old.secret);
    assert.equal(rotated.body.key.rotated_from, old.id);
    assert.deepEqual(rotated.body.key.scopes, ['account:read']);
    assert.equal(rotated.body.previous_key.status, 'active');
    assert.ok(rotated.body.previous_key.expires_at);
    assert.equal((await t.as(old.secret).get('/v1/account')).status, 200, 'old key still works in grace');
    assert.equal((await t.as(rotated.body.key.secret).get('/v1/account')).status, 200);

    const again = await admin.post(`/v1/keys/${rotated.body.key.id}/rotate`, { expires_in_seconds: 0 });
    assert.equal(again.status, 200);
    const expired = await t.as(rotated.body.key.secret).get('/v1/account');
    assert.equal(expired.status, 401);
    assert.equal(expired.body.code, 'api_key_expired');
    assert.equal((await t.as(again.body.key.secret).get('/v1/account')).status, 200);
  });

  test('default grace is 24 hours', async () => {
    const admin = t.as(acct.keys.sandbox);
    const old = (await admin.post('/v1/keys', {})).body;
    const rotated = await admin.post(`/v1/keys/${old.id}/rotate`);
    const grace = Date.parse(rotated.body.previous_key.expires_at) - Date.parse(rotated.body.key.created_at);
    assert.ok(Math.abs(grace - 86_400_000) < 5000, `grace was ${grace} ms`);
  });

  test('revocation is immediate; a key cannot revoke itself', async () => {
    const admin = t.as(acct.keys.sandbox);
    const victim = (await admin.post('/v1/keys', {})).body;
    assert.equal((await t.as(victim.secret).get('/v1/keys')).status, 200);
    const revoked = await admin.post(`/v1/keys/${victim.id}/revoke`);
    assert.equal(revoked.status, 200);
    assert.equal(revoked.body.status, 'revoked');
    const after = await t.as(victim.secret).get('/v1/keys');
    assert.equal(after.status, 401);
    assert.equal(after.body.code, 'api_key_revoked');
    assert.match(after.headers.get('www-authenticate') ?? '', /^Bearer/);

    const self = (await admin.post('/v1/keys', {})).body;
    const own = await t.as(self.secret).post(`/v1/keys/${self.id}/revoke`);
    assert.equal(own.status, 409);
    assert.equal(own.body.code, 'cannot_revoke_current_key');
  });

  test('sandbox and live are separate worlds: an id from the other mode is a 404', async () => {
    const sandboxKey = (await t.as(acct.keys.sandbox).post('/v1/keys', {})).body;
    const fromLive = await t.as(acct.keys.live).get(`/v1/keys/${sandboxKey.id}`);
    assert.equal(fromLive.status, 404);
    assert.equal(fromLive.body.code, 'not_found');
    const liveList = await t.as(acct.keys.live).get('/v1/keys?limit=100');
    assert.ok(liveList.body.data.every((k: any) => k.mode === 'live'));
    const other = await t.createAccount('growth');
    assert.equal((await t.as(other.keys.sandbox).get(`/v1/keys/${sandboxKey.id}`)).status, 404);
  });

  test('key lists are cursor-paginated without gaps', async () => {
    const other = await t.createAccount('growth');
    const admin = t.as(other.keys.sandbox);
    for (let i = 0; i < 4; i++) await admin.post('/v1/keys', { name: `k${i}` });
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const res: any = await admin.get(`/v1/keys?limit=2${cursor ? `&starting_after=${cursor}` : ''}`);
      seen.push(...res.body.data.map((k: any) => k.id));
      cursor = res.body.next_cursor;
      if (!res.body.has_more) break;
    }
    assert.equal(seen.length, 5); // 4 new + the default sandbox key
    assert.equal(new Set(seen).size, 5);
    assert.deepEqual([...seen].sort().reverse(), seen, 'newest first');
  });
});

describe('trusted proxies', () => {
  test('X-Forwarded-For is honoured only from a trusted proxy', async () => {
    const proxied = await startTestServer({ SWITCHBOARD_TRUST_PROXY: '127.0.0.1/32' });
    try {
      const a = await proxied.createAccount('growth');
      const key = (await proxied.as(a.keys.sandbox).post('/v1/keys', { allowed_ips: ['203.0.113.0/24'] })).body.secret;
      const via = await proxied.as(key).get('/v1/account', { headers: { 'x-forwarded-for': '203.0.113.9' } });
      assert.equal(via.status, 200);
      const outside = await proxied.as(key).get('/v1/account', { headers: { 'x-forwarded-for': '198.51.100.1' } });
      assert.equal(outside.status, 403);
    } finally {
      await proxied.close();
    }
    // Without a trusted proxy the header is ignored: the peer address (127.0.0.1) decides.
    const key = (await t.as(acct.keys.sandbox).post('/v1/keys', { allowed_ips: ['203.0.113.0/24'] })).body.secret;
    const spoofed = await t.as(key).get('/v1/account', { headers: { 'x-forwarded-for': '203.0.113.9' } });
    assert.equal(spoofed.status, 403);
    assert.equal(spoofed.body.code, 'ip_not_allowed');
  });
});

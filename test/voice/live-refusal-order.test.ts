// On a server without live carriers, a live call or message from a number the account does
// not own is told so (from_number_not_owned, naming `from`) before it is told that no carrier
// is configured: a bad field is reported first (issue 22, defect 6).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';
import { importLiveNumber } from '../helpers/live-number.ts';

const sandbox = useSandboxAccount();
const TO = '+14155550100';
const NOT_OWNED = '+14155559999';
let owned: string;

function assertNotOwned(res: { status: number; body: any }) {
  assert.equal(res.status, 422, JSON.stringify(res.body));
  assert.equal(res.body.code, 'from_number_not_owned');
  assert.deepEqual(res.body.errors.map((e: any) => [e.field, e.code]), [['from', 'not_allowed']]);
}

describe('live requests without a carrier: the wrong number first', () => {
  before(async () => {
    owned = await importLiveNumber(sandbox.server, sandbox.account.account.id, '+12125550187');
  });

  test('a live call from a number of no one, or from a sandbox number, is from_number_not_owned', async () => {
    const live = sandbox.server.as(sandbox.account.keys.live);
    assertNotOwned(await live.post('/v1/calls', { from: NOT_OWNED, to: TO }));
    assertNotOwned(await live.post('/v1/calls', { from: sandbox.from, to: TO }));
    const right = await live.post('/v1/calls', { from: owned, to: TO });
    assert.equal(right.status, 422, JSON.stringify(right.body));
    assert.equal(right.body.code, 'carrier_not_configured');
    assert.deepEqual((await live.get('/v1/calls')).body.data, []);
  });

  test('a live message likewise', async () => {
    const live = sandbox.server.as(sandbox.account.keys.live);
    assertNotOwned(await live.post('/v1/messages', { from: NOT_OWNED, to: TO, body: 'x' }));
    assertNotOwned(await live.post('/v1/messages', { from: sandbox.from, to: TO, body: 'x' }));
    const right = await live.post('/v1/messages', { from: owned, to: TO, body: 'x' });
    assert.equal(right.status, 422, JSON.stringify(right.body));
    assert.equal(right.body.code, 'carrier_not_configured');
    assert.deepEqual((await live.get('/v1/messages')).body.data, []);
  });
});

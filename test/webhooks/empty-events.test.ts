// An empty `events` list is refused on create, as on update: it never silently means "every
// event" (issue 22, defect 1).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';

const sandbox = useSandboxAccount();

function assertEmptyEventsRefused(res: { status: number; body: any }) {
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.equal(res.body.code, 'validation_failed');
  assert.match(res.body.detail, /events/);
  assert.deepEqual(res.body.errors.map((e: any) => [e.field, e.code]), [['events', 'too_short']]);
}

describe('"events": [] is a 400 naming the field', () => {
  test('on POST /v1/webhooks, and nothing is created', async () => {
    const api = sandbox.api();
    const before = await api.get('/v1/webhooks?limit=100');
    assertEmptyEventsRefused(await api.post('/v1/webhooks', { url: sandbox.receiver.url, events: [] }));
    const after = await api.get('/v1/webhooks?limit=100');
    assert.equal(after.body.data.length, before.body.data.length);
  });

  test('on PATCH /v1/webhooks/{id}, as before', async () => {
    const api = sandbox.api();
    const created = await api.post('/v1/webhooks', { url: sandbox.receiver.url, events: ['call.completed'] });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assertEmptyEventsRefused(await api.patch(`/v1/webhooks/${created.body.id}`, { events: [] }));
  });

  test('on POST /v1/webhooks/listen', async () => {
    assertEmptyEventsRefused(await sandbox.api().post('/v1/webhooks/listen', { forward_to: 'http://localhost:3000/hooks', events: [] }));
  });

  test('omitting events still means every event', async () => {
    const res = await sandbox.api().post('/v1/webhooks', { url: sandbox.receiver.url });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.events, ['*']);
  });
});

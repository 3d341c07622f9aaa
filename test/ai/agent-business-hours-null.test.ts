// `"business_hours": null` means always open on create as on update, as docs/ai.md says
// (issue 22, defect 4).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';
import { ALWAYS_CLOSED } from '../helpers/ai.ts';

const sandbox = useSandboxAccount();

describe('business_hours: null', () => {
  test('POST /v1/ai/agents accepts it and stores an always-open agent, like omitting the field', async () => {
    const api = sandbox.api();
    const created = await api.post('/v1/ai/agents', { name: 'Open Always', business_hours: null });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.equal(created.body.business_hours, null);
    assert.equal((await api.get(`/v1/ai/agents/${created.body.id}`)).body.business_hours, null);

    const omitted = await api.post('/v1/ai/agents', { name: 'Open Too' });
    assert.equal(omitted.status, 200, JSON.stringify(omitted.body));
    assert.equal(omitted.body.business_hours, null);
  });

  test('PATCH turns hours off with null, and the agent reads back always open', async () => {
    const api = sandbox.api();
    const created = await api.post('/v1/ai/agents', { name: 'Closed First', business_hours: ALWAYS_CLOSED });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.deepEqual(created.body.business_hours, ALWAYS_CLOSED);
    const updated = await api.patch(`/v1/ai/agents/${created.body.id}`, { business_hours: null });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.equal(updated.body.business_hours, null);
    assert.equal((await api.get(`/v1/ai/agents/${created.body.id}`)).body.business_hours, null);
  });

  test('the OpenAPI document says null is accepted on create', async () => {
    const document = (await sandbox.server.request('GET', '/v1/openapi.json')).body;
    const body = document.paths['/v1/ai/agents'].post.requestBody.content['application/json'].schema;
    const resolved = body.$ref ? document.components.schemas[body.$ref.split('/').pop()] : body;
    const field = resolved.properties.business_hours;
    const types = JSON.stringify(field);
    assert.match(types, /"null"/, types);
  });
});

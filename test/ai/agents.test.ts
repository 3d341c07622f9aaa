// Agents through HTTP: create, read, list, update, pause, delete; number assignment from
// both sides; business-hours validation; sandbox/live separation; AI on the trial plan.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { ALWAYS_OPEN } from '../helpers/ai.ts';

let t: TestServer;
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

async function provision(key: string): Promise<any> {
  const api = t.as(key);
  const [pick] = (await api.get('/v1/numbers/available?area_code=503&limit=1')).body.data;
  const res = await api.post('/v1/numbers', { phone_number: pick.phone_number });
  assert.equal(res.status, 200);
  return res.body;
}

describe('AI agents', () => {
  test('create with defaults, fetch, list, update and the ai.agent.* events', async () => {
    const api = t.as(acct.keys.sandbox);
    const created = await api.post('/v1/ai/agents', { name: 'Maple Street Dental', transfer_number: '+15035550123', business_hours: ALWAYS_OPEN });
    assert.equal(created.status, 200);
    const agent = created.body;
    assert.match(agent.id, /^agent_/);
    assert.equal(agent.object, 'ai_agent');
    assert.equal(agent.status, 'active');
    assert.equal(agent.mode, 'sandbox');
    assert.equal(agent.greeting, 'Thanks for calling Maple Street Dental. How can I help you today?');
    assert.equal(agent.language, 'en');
    assert.equal(agent.voice, 'default');
    assert.deepEqual(agent.business_hours, ALWAYS_OPEN);
    assert.deepEqual(agent.number_ids, []);
    assert.deepEqual(agent.knowledge, { documents: 0, chunks: 0 });
    assert.equal((await hooks.waitForEvent('ai.agent.created', agent.id)).data.object.name, 'Maple Street Dental');

    assert.deepEqual((await api.get(`/v1/ai/agents/${agent.id}`)).body, agent);
    const listed = await api.get('/v1/ai/agents');
    assert.ok(listed.body.data.some((a: any) => a.id === agent.id));

    const updated = await api.patch(`/v1/ai/agents/${agent.id}`, { greeting: 'Hello from Maple Street!', transfer_number: null, business_hours: null, metadata: { team: 'front-desk' } });
    assert.equal(updated.status, 200);
    assert.equal(updated.body.greeting, 'Hello from Maple Street!');
    assert.equal(updated.body.transfer_number, null);
    assert.equal(updated.body.business_hours, null);
    assert.deepEqual(updated.body.metadata, { team: 'front-desk' });
    const event = await hooks.waitForEvent('ai.agent.updated', agent.id);
    assert.equal(event.data.object.greeting, 'Hello from Maple Street!');

    const paused = await api.patch(`/v1/ai/agents/${agent.id}`, { status: 'paused' });
    assert.equal(paused.body.status, 'paused');
    assert.deepEqual((await api.get('/v1/ai/agents?status=paused')).body.data.map((a: any) => a.id), [agent.id]);
  });

  test('bad input names the field: business hours, transfer number, unknown fields', async () => {
    const api = t.as(acct.keys.sandbox);
    const hours = await api.post('/v1/ai/agents', { name: 'X', business_hours: { timezone: 'Mars/Olympus', schedule: { mon: ['17:00-09:00'], funday: [] } } });
    assert.equal(hours.status, 400);
    assert.equal(hours.body.code, 'validation_failed');
    assert.ok(hours.body.errors.every((e: any) => e.field === 'business_hours'));
    assert.match(hours.body.detail, /Mars\/Olympus/);
    assert.match(hours.body.detail, /must end after it starts/);
    assert.match(hours.body.detail, /funday/);

    const transfer = await api.post('/v1/ai/agents', { name: 'X', transfer_number: '555-0123' });
    assert.equal(transfer.status, 400);
    assert.equal(transfer.body.errors[0].field, 'transfer_number');

    const extra = await api.post('/v1/ai/agents', { name: 'X', model: 'gpt' });
    assert.equal(extra.status, 400);
    const missing = await api.post('/v1/ai/agents', {});
    assert.equal(missing.status, 400);
  });

  test('numbers are assigned on the agent or with PATCH /v1/numbers/{id}, and DELETE unassigns them', async () => {
    const api = t.as(acct.keys.sandbox);
    const [a, b] = [await provision(acct.keys.sandbox), await provision(acct.keys.sandbox)];
    const agent = (await api.post('/v1/ai/agents', { name: 'Front desk', number_ids: [a.id] })).body;
    assert.deepEqual(agent.number_ids, [a.id]);
    assert.equal((await api.get(`/v1/numbers/${a.id}`)).body.agent_id, agent.id);
    assert.equal((await hooks.waitForEvent('number.updated', a.id)).data.object.agent_id, agent.id);

    const viaNumber = await api.patch(`/v1/numbers/${b.id}`, { agent_id: agent.id });
    assert.equal(viaNumber.status, 200);
    assert.equal(viaNumber.body.agent_id, agent.id);
    assert.deepEqual((await api.get(`/v1/ai/agents/${agent.id}`)).body.number_ids.sort(), [a.id, b.id].sort());

    const replaced = await api.patch(`/v1/ai/agents/${agent.id}`, { number_ids: [b.id] });
    assert.deepEqual(replaced.body.number_ids, [b.id]);
    assert.equal((await api.get(`/v1/numbers/${a.id}`)).body.agent_id, null);

    const unknown = await api.patch(`/v1/numbers/${a.id}`, { agent_id: 'agent_01jd8x0v6kf5b9w3t2q1r0p9n8' });
    assert.equal(unknown.status, 422);
    assert.equal(unknown.body.code, 'agent_not_found');
    const badNumber = await api.patch(`/v1/ai/agents/${agent.id}`, { number_ids: ['num_01jd8x0v6kf5b9w3t2q1r0p9n8'] });
    assert.equal(badNumber.status, 400);
    assert.equal(badNumber.body.errors[0].field, 'number_ids[0]');

    const deleted = await api.delete(`/v1/ai/agents/${agent.id}`);
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.status, 'deleted');
    assert.deepEqual(deleted.body.number_ids, []);
    await hooks.waitForEvent('ai.agent.deleted', agent.id);
    assert.equal((await api.get(`/v1/numbers/${b.id}`)).body.agent_id, null);
    assert.equal((await api.get(`/v1/ai/agents/${agent.id}`)).status, 404);
    assert.equal((await api.delete(`/v1/ai/agents/${agent.id}`)).status, 404);
    const reassign = await api.patch(`/v1/numbers/${b.id}`, { agent_id: agent.id });
    assert.equal(reassign.body.code, 'agent_not_found');
    assert.ok(!(await api.get('/v1/ai/agents?limit=100')).body.data.some((x: any) => x.id === agent.id));
  });

  test('sandbox and live agents are separate; inbound calls are sandbox only', async () => {
    const sandbox = t.as(acct.keys.sandbox);
    const live = t.as(acct.keys.live);
    const sAgent = (await sandbox.post('/v1/ai/agents', { name: 'Sandbox agent' })).body;
    const lAgent = await live.post('/v1/ai/agents', { name: 'Live agent' });
    assert.equal(lAgent.status, 200);
    assert.equal(lAgent.body.mode, 'live');
    assert.equal((await live.get(`/v1/ai/agents/${sAgent.id}`)).status, 404);
    assert.equal((await sandbox.get(`/v1/ai/agents/${lAgent.body.id}`)).status, 404);
    assert.equal((await live.patch(`/v1/ai/agents/${sAgent.id}`, { name: 'x' })).status, 404);
    assert.ok(!(await live.get('/v1/ai/agents?limit=100')).body.data.some((a: any) => a.id === sAgent.id));
    assert.equal((await live.post(`/v1/ai/agents/${sAgent.id}/knowledge`, { documents: [{ title: 'a', content: 'b', content_type: 'text/plain' }] })).status, 404);
    // A sandbox number cannot be given to a live agent, nor a live agent to a sandbox number.
    const sNumber = (await sandbox.get('/v1/numbers')).body.data[0].id;
    assert.equal((await sandbox.patch(`/v1/numbers/${sNumber}`, { agent_id: lAgent.body.id })).body.code, 'agent_not_found');

    const inbound = await live.post('/v1/sandbox/inbound_calls', { from: '+14155550199', to: acct.numbers.sandbox[0], caller_script: [] });
    assert.equal(inbound.status, 403);
    assert.equal(inbound.body.code, 'mode_not_supported');
  });

  test('AI is available on the trial plan at no extra charge, and inbound calls need an active agent', async () => {
    const trial = await t.createAccount('trial');
    const api = t.as(trial.keys.sandbox);
    const to = trial.numbers.sandbox[0]!;
    // Without an agent (or a flow) the call is answered with a message that the number is not set up (test/voice/flow-inbound.test.ts).
    const noAgent = await api.post('/v1/sandbox/inbound_calls', { from: '+14155550199', to, caller_script: [] });
    assert.equal(noAgent.status, 200, JSON.stringify(noAgent.body));
    assert.equal(noAgent.body.object, 'call');
    const numberId = (await api.get('/v1/numbers')).body.data[0].id;
    const agent = await api.post('/v1/ai/agents', { name: 'Trial Co', number_ids: [numberId] });
    assert.equal(agent.status, 200);
    await api.patch(`/v1/ai/agents/${agent.body.id}`, { status: 'paused' });
    const paused = await api.post('/v1/sandbox/inbound_calls', { from: '+14155550199', to, caller_script: [] });
    assert.equal(paused.status, 409);
    assert.equal(paused.body.code, 'agent_paused');
    await api.patch(`/v1/ai/agents/${agent.body.id}`, { status: 'active' });
    const ok = await api.post('/v1/sandbox/inbound_calls', { from: '+14155550199', to, caller_script: ['hello'] });
    assert.equal(ok.status, 200);
    const notOurs = await api.post('/v1/sandbox/inbound_calls', { from: '+14155550199', to: '+14155550100', caller_script: [] });
    assert.equal(notOurs.status, 422);
    assert.equal(notOurs.body.code, 'to_number_not_owned');
  });
});

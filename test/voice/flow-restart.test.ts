// A flow webhook is fetched as soon as the call needs it (not after a wait in the job
// queue), with a durable job as the backup: a server that stops while the answer webhook is
// in flight leaves that job behind, and the next server asks again once the first fetch
// would have timed out, so the call's flow still runs. A flow waiting on its media (a gather)
// is resumed by the next process too: its state and timers are durable.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.ts';
import { startServer } from '../../src/main.ts';
import { startFlowServer } from '../helpers/flow-server.ts';
import { MAGIC } from './voice-helpers.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import { waitForRunning } from './flow-helpers.ts';

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

test('a restart while the answer webhook is in flight: the backup job asks again and the flow runs', async () => {
  const t = await startTestServer({ SWITCHBOARD_SIM_TIME_SCALE: '0.05', SWITCHBOARD_FLOW_WEBHOOK_TIMEOUT_MS: '2000' });
  cleanups.push(() => t.store.drop());
  const acct = await t.createAccount('scale');
  const receiver = await subscribeAll(t, acct.keys.sandbox);
  cleanups.push(() => receiver.close());
  const app = await startFlowServer();
  cleanups.push(() => app.close());
  app.secrets.push(receiver.secrets[0]!);
  let asked = 0;
  // The first request is never answered in time (the server stops meanwhile); the next one is.
  app.routes.set('/answer', () => (++asked === 1 ? { delayMs: 10_000, json: [{ hangup: {} }] } : [{ say: { text: 'Hello again.' } }, { hangup: {} }]));

  const call = (await t.as(acct.keys.sandbox).post('/v1/calls', { from: acct.numbers.sandbox[0], to: MAGIC.staysUp, answer_url: `${app.url}/answer` })).body;
  const [first] = await app.waitForRequests('/answer');
  await t.server.close();

  const second = await startServer(t.config, { logger: false });
  cleanups.push(() => second.close());
  const requests = await app.waitForRequests('/answer', 2, 30_000);
  assert.equal(requests[1]!.headers['webhook-id'], first!.headers['webhook-id'], 'the same request, asked again (same webhook-id)');
  await receiver.waitForEvent('call.completed', call.id, 30_000);
  const res = await fetch(`${second.url}/v1/calls/${call.id}/flow`, { headers: { authorization: `Bearer ${acct.keys.sandbox}` } });
  const flow = await res.json() as any;
  assert.deepEqual(flow.log.map((e: any) => [e.verb, e.result]), [['say', { reason: 'finished' }], ['hangup', {}]]);
});

test('issue 12: a restart in the middle of a sandbox flow (a gather listening): the next process resumes it where it was', async () => {
  // Real time: the gather's 60 s outlast the restart however loaded the machine is.
  const t = await startTestServer({ SWITCHBOARD_SIM_TIME_SCALE: '1' });
  cleanups.push(() => t.store.drop());
  const acct = await t.createAccount('scale');
  const receiver = await subscribeAll(t, acct.keys.sandbox);
  cleanups.push(() => receiver.close());
  const flow = [
    { gather: { num_digits: 1, timeout: 60, prompts: [{ say: { text: 'Press a key.' } }] } },
    { say: { text: 'Thank you.' } },
    { hangup: {} },
  ];
  const placed = await t.as(acct.keys.sandbox).post('/v1/calls', { from: acct.numbers.sandbox[0], to: MAGIC.staysUp, flow });
  assert.equal(placed.status, 200, JSON.stringify(placed.body));
  const call = placed.body;
  await waitForRunning(t.as(acct.keys.sandbox), call.id, 0);
  await t.server.close();

  const second = await startServer(t.config, { logger: false });
  cleanups.push(() => second.close());
  const headers = { authorization: `Bearer ${acct.keys.sandbox}`, 'content-type': 'application/json' };
  // The gather, its prompt and its timer live in the database: the new process hears the key.
  const pressed = await fetch(`${second.url}/v1/sandbox/calls/${call.id}/press`, { method: 'POST', headers, body: JSON.stringify({ digits: '7' }) });
  assert.equal(pressed.status, 200, await pressed.text());
  await receiver.waitForEvent('call.completed', call.id, 30_000);
  const res = await fetch(`${second.url}/v1/calls/${call.id}/flow`, { headers });
  const log = ((await res.json()) as any).log;
  assert.deepEqual(log.map((e: any) => [e.verb, e.result.reason ?? null]), [['gather', 'num_digits'], ['say', 'finished'], ['hangup', null]]);
  assert.equal(log[0].result.digits, '7');
});

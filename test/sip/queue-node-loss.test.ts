// A media node dies with a caller waiting in a queue: node A (a `switchboard serve` process)
// holds a live call whose flow enqueued it, and is SIGKILLed. The survivor (node B, the test
// server) ends the call by the node-loss rule (failed, node_lost), and that end frees its place:
// the queue is empty again and call.queue.left says hangup. PostgreSQL only, as every
// several-nodes test (on SQLite one process is the deployment).
// issue 25: queues, "a node that dies with callers in its queue".
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { startTestServer, type TestServer, type CreatedAccount } from '../helpers/server.ts';
import { freeUdpPort, peerAvailable, runSipp } from '../helpers/sipp.ts';
import { NODES_SECRET_KEY, nodeCarriersFile, startSecondNode, type SecondNode } from '../helpers/second-node.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';

const onPostgres = Boolean(process.env.DATABASE_URL);
const hasSipp = peerAvailable('sipp');
if (!onPostgres) console.error('\n(test/sip/queue-node-loss.test.ts runs on PostgreSQL only: on SQLite one node is the deployment.)\n');
const FROM = '+14155550142';
const TO = '+14155550199';
const LEASE_SECONDS = 3;

let t: TestServer;
let acct: CreatedAccount;
let receiver: WebhookReceiver;
let trunkPort: number;
let nodeA: SecondNode | undefined;

before(async () => {
  if (!onPostgres || !hasSipp) return;
  trunkPort = await freeUdpPort();
  const fileB = await nodeCarriersFile(trunkPort, [44200, 44298], LEASE_SECONDS);
  t = await startTestServer({ SWITCHBOARD_CARRIERS_FILE: fileB, SWITCHBOARD_SECRET_KEY: NODES_SECRET_KEY });
  acct = await t.createAccount('growth');
  receiver = await subscribeAll(t, acct.keys.live);
  const imported = spawnSync(process.execPath, ['bin/switchboard.js', 'numbers', 'import', '--account', acct.account.id, '--number', FROM, '--trunk', 'sipp', '--json'], {
    env: { ...process.env, SWITCHBOARD_DATA_DIR: t.store.dataDir, SWITCHBOARD_CARRIERS_FILE: fileB, DATABASE_URL: t.store.databaseUrl! },
  });
  assert.equal(imported.status, 0, String(imported.stderr));
  nodeA = await startSecondNode({ databaseUrl: t.store.databaseUrl!, carriersFile: await nodeCarriersFile(trunkPort, [44300, 44398], LEASE_SECONDS) });
});

after(async () => {
  nodeA?.kill();
  await receiver?.close();
  await t?.close();
});

test('a node SIGKILLed with a caller in a queue: the survivor ends the call (node_lost) and frees its place', { skip: !onPostgres || !hasSipp }, async () => {
  const live = t.as(acct.keys.live);
  const queue = await live.post('/v1/queues', { name: 'node-loss', wait_flow: [{ pause: { seconds: 30 } }] });
  assert.equal(queue.status, 200, JSON.stringify(queue.body));
  const sipp = await runSipp({ scenario: 'uas-answer-echo.xml', port: trunkPort, args: ['-rtp_echo'] });
  try {
    const placed = await fetch(`${nodeA!.url}/v1/calls`, {
      method: 'POST', headers: { authorization: `Bearer ${acct.keys.live}`, 'content-type': 'application/json' },
      body: JSON.stringify({ from: FROM, to: TO, flow: [{ enqueue: { queue: 'node-loss' } }] }),
    });
    const call = await placed.json() as { id: string };
    assert.equal(placed.status, 200, JSON.stringify(call));
    let size = 0;
    for (let i = 0; i < 150 && size !== 1; i++) {
      size = (await live.get(`/v1/queues/${queue.body.id}`)).body.current_size;
      if (size !== 1) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(size, 1, `the caller never joined the queue on node A:\n${nodeA!.log()}`);

    nodeA!.kill();
    let ended: { status: string; failure: { carrier_code: string } | null } | undefined;
    // Bounded: the lease, a sweep interval and slack for a loaded machine.
    for (let i = 0; i < 150 && !ended; i++) {
      const body = (await live.get(`/v1/calls/${call.id}`)).body;
      if (body.status !== 'in_progress') ended = body;
      else await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.ok(ended, `no survivor ended the call of the dead node\nnode A said:\n${nodeA!.log()}`);
    assert.equal(ended.status, 'failed');
    assert.equal(ended.failure?.carrier_code, 'node_lost');
    // Its end freed its place, in the same transaction.
    const after = (await live.get(`/v1/queues/${queue.body.id}`)).body;
    assert.equal(after.current_size, 0);
    assert.deepEqual((await live.get(`/v1/queues/${queue.body.id}/members`)).body.data, []);
    const ofCall = (e: { type: string; data: { object: { call_id?: string } } }) => e.type === 'call.queue.left' && e.data.object.call_id === call.id;
    const left = (await receiver.waitFor((events) => events.some(ofCall), 20_000)).find(ofCall)!;
    assert.equal(left.data.object.result, 'hangup');
  } finally {
    sipp.process.kill('SIGKILL');
    await sipp.done;
  }
});

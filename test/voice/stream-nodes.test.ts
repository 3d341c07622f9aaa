// Issue 27 on several nodes: a media stream's socket lives in the process that connected it
// (sandbox calls belong to no node: any node runs their steps, but a stream's socket is in
// one process's memory). Two media nodes on one PostgreSQL database: node A (a `switchboard
// serve` process) and node B (the test server). A stream connected through A and stopped
// through B gets its `stop` frame and close from A, with call.stream.stopped once; a stream
// connected through B on a call hung up through A gets `stop` (call_ended) from B. On SQLite
// one process is the deployment, so this runs on PostgreSQL only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, type CreatedAccount } from '../helpers/server.ts';
import { freeUdpPort } from '../helpers/sipp.ts';
import { NODES_SECRET_KEY, nodeApi, nodeCarriersFile, startSecondNode, type SecondNode } from '../helpers/second-node.ts';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { startStreamServer, type StreamServer } from '../helpers/stream-server.ts';
import { MAGIC, eventsOf } from './voice-helpers.ts';

const onPostgres = Boolean(process.env.DATABASE_URL);
if (!onPostgres) console.error('\n(test/voice/stream-nodes.test.ts runs on PostgreSQL only: on SQLite one node is the deployment.)\n');

let t: TestServer;
let acct: CreatedAccount;
let nodeA: SecondNode | undefined;
let receiver: WebhookReceiver;
let media: StreamServer;

before(async () => {
  if (!onPostgres) return;
  // No SIP peer is needed (sandbox calls): the carriers files make each process a media node.
  const trunkPort = await freeUdpPort();
  t = await startTestServer({ SWITCHBOARD_CARRIERS_FILE: await nodeCarriersFile(trunkPort, [55100, 55199], 15), SWITCHBOARD_SECRET_KEY: NODES_SECRET_KEY });
  acct = await t.createAccount('growth');
  nodeA = await startSecondNode({ databaseUrl: t.store.databaseUrl!, carriersFile: await nodeCarriersFile(trunkPort, [55200, 55299], 15) });
  receiver = await startReceiver();
  const b = nodeApi(() => t, acct.keys.sandbox);
  receiver.secrets.push((await b('POST', '/v1/webhooks', { url: receiver.url, events: ['*'] })).secret);
  receiver.secrets.push((await b('GET', '/v1/webhooks/default_secret')).secret);
  media = await startStreamServer();
});

after(async () => {
  nodeA?.kill();
  await media?.close();
  await receiver?.close();
  await t?.close();
});

describe('media streams on several nodes', { skip: !onPostgres }, () => {
  test('a stream held by node A is stopped through node B; a call hung up through A stops the stream B holds', async () => {
    const a = nodeApi(() => nodeA!, acct.keys.sandbox);
    const b = nodeApi(() => t, acct.keys.sandbox);
    const call = await a('POST', '/v1/calls', { from: acct.numbers.sandbox[0], to: MAGIC.staysUp });
    await receiver.waitForEvent('call.answered', call.id, 30_000);

    // Connected by A (the node that took the request): its socket is in A's process.
    const held = await a('POST', `/v1/calls/${call.id}/streams`, { url: media.url, bidirectional: true });
    await receiver.waitForEvent('call.stream.started', held.id, 30_000);
    const first = await media.connection(0);
    await first.waitFor((frames) => frames.some((f) => f.event === 'start'), 'the start frame');

    const stopped = await b('POST', `/v1/calls/${call.id}/streams/${held.id}/stop`);
    assert.equal(stopped.status, 'stopped');
    assert.equal(stopped.reason, 'stopped');
    // A, which holds the socket, sends stop and closes it.
    const frames = await first.waitFor((f) => f.some((frame) => frame.event === 'stop'), 'the stop frame sent by node A', 30_000);
    assert.equal(frames.find((f) => f.event === 'stop').stop.reason, 'stopped');
    await first.closed;
    await receiver.waitForEvent('call.stream.stopped', held.id, 30_000);

    // Connected by B; the call is hung up through A.
    const forked = await b('POST', `/v1/calls/${call.id}/streams`, { url: media.url, track: 'both' });
    await receiver.waitForEvent('call.stream.started', forked.id, 30_000);
    const second = await media.connection(1);
    await second.waitFor((f) => f.some((frame) => frame.event === 'start'), 'the start frame');
    await a('POST', `/v1/calls/${call.id}/hangup`);
    const secondFrames = await second.waitFor((f) => f.some((frame) => frame.event === 'stop'), 'the stop frame sent by node B', 30_000);
    assert.equal(secondFrames.find((f) => f.event === 'stop').stop.reason, 'call_ended');
    await second.closed;
    await receiver.waitForEvent('call.stream.stopped', forked.id, 30_000);
    await receiver.waitForEvent('call.completed', call.id, 30_000);

    // What a user sees, through either node: each stopped once, with its reason.
    const listed = (await a('GET', `/v1/calls/${call.id}/streams`)).data;
    assert.deepEqual(listed.map((s: any) => [s.id, s.status, s.reason]), [[forked.id, 'stopped', 'call_ended'], [held.id, 'stopped', 'stopped']]);
    for (const stream of [held, forked]) {
      assert.deepEqual(eventsOf(receiver, stream.id).map((e) => e.type), ['call.stream.started', 'call.stream.stopped'], `${stream.id}: one start, one stop`);
    }
    assert.equal(media.connections.length, 2, 'no other connection was made');
  });
});

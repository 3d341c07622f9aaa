// Issue 25, "Several nodes", for queues: a live caller waiting in a queue on node A is connected
// to an agent's live call that node B holds, and the two hear each other. Two `switchboard
// serve` processes on one PostgreSQL database (test/helpers/two-tone-nodes.ts), each with a
// SIPp trunk of its own pitch (A 500 Hz, B 800 Hz). The connection is mixed where the caller's
// call is (node A); the agent's node relays its call over a node-to-node SIP leg, the one
// conferences use (src/carriers/sip/node-legs.ts). Both ways of taking a caller are shown: the
// agent's `dequeue` verb, and POST .../dequeue {"call_id"} (sent to node A, for the agent's call
// on node B). What proves the audio both ways: each call's recording (channel 0, what we sent
// its leg) holds the other's pitch and not its own while they are connected. A hang-up through
// the other node ends the connection, and both calls' SIPp get their BYE. On SQLite one node is
// the deployment, so this runs on PostgreSQL only. Last, the agent's node is SIGKILLed while
// connected to a caller on node B: the node-loss rule fails the agent's call, the caller's flow
// goes on, and node B hangs up the leg the dead node can no longer end.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { peerAvailable } from '../helpers/sipp.ts';
import { toneShare } from '../helpers/audio-match.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import { startTwoToneNodes, type ToneNode, type TwoToneNodes } from '../helpers/two-tone-nodes.ts';
import type { ReceivedEvent, WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { until } from '../helpers/until.ts';
import type { LiveSipCarrier } from '../../src/carriers/sip/live-carrier.ts';

const onPostgres = Boolean(process.env.DATABASE_URL);
const hasSipp = peerAvailable('sipp');
if (!onPostgres) console.error('\n(test/sip/queue-nodes.test.ts runs on PostgreSQL only: on SQLite one node is the deployment.)\n');
const TO = '+14155550199';
const RATE = 8000;
/** How long the two stay connected: the recordings are measured over it, less a settling second. */
const CONNECTED_MS = 4000;
/** Short, for the last test's dead node; long enough that a loaded machine's pause does not look like a death. */
const LEASE_SECONDS = 5;

let nodes: TwoToneNodes;
let receiver: WebhookReceiver;
let queueId: string;

before(async () => {
  if (!onPostgres || !hasSipp) return;
  nodes = await startTwoToneNodes({ rtp: { B: [59000, 59248], A: [59250, 59498] }, leaseSeconds: LEASE_SECONDS });
  receiver = await subscribeAll(nodes.t, nodes.acct.keys.live);
  const queue = await nodes.B.api('POST', '/v1/queues', { name: 'nodes-queue', wait_flow: [{ pause: { seconds: 1 } }] });
  queueId = queue.id;
});

after(async () => {
  await receiver?.close();
  await nodes?.close();
});

const leftQueue = (callId: string) => (e: ReceivedEvent) => e.type === 'call.queue.left' && e.data.object.call_id === callId;

/** A caller placed through `node` (A unless said) waits in the queue. */
async function enqueueThroughA(node: ToneNode = nodes.A): Promise<string> {
  const caller = await node.api('POST', '/v1/calls', { from: node.from, to: TO, record: true, flow: [{ enqueue: { queue: 'nodes-queue' } }, { hangup: {} }] });
  const joined = (e: ReceivedEvent) => e.type === 'call.queue.joined' && e.data.object.call_id === caller.id;
  await receiver.waitFor((events) => events.some(joined), 30_000).catch((err: Error) => assert.fail(`${err.message}\n${nodes.detail()}`));
  return caller.id;
}

/** Waits until `callerId` left the queue bridged, and checks the two calls are on two nodes. */
async function bridged(callerId: string, agentId: string): Promise<void> {
  const left = (await receiver.waitFor((events) => events.some(leftQueue(callerId)), 30_000).catch((err: Error) => assert.fail(`${err.message}\n${nodes.detail()}`)))
    .find(leftQueue(callerId))!;
  assert.equal(left.data.object.result, 'bridged');
  const [callerNode, agentNode] = [await nodes.nodeOf(callerId), await nodes.nodeOf(agentId)];
  assert.ok(callerNode && agentNode && callerNode !== agentNode, `the calls are on two nodes: ${callerNode}, ${agentNode}`);
}

/** Each call heard the other's pitch, and not its own, between the two marks. */
async function heardBothWays(callerId: string, agentId: string, connectedAt: number, hungAt: number, diagnostic: (text: string) => void): Promise<void> {
  const parties: Array<[string, ToneNode, string, ToneNode]> = [['caller', nodes.A, callerId, nodes.B], ['agent', nodes.B, agentId, nodes.A]];
  for (const [name, own, callId, other] of parties) {
    const { samples, at } = await nodes.heard(own, callId);
    const start = at(connectedAt) + RATE;
    const length = at(hungAt) - RATE / 2 - start;
    assert.ok(length >= RATE, `a second or more of the ${name}'s audio while connected`);
    const heard = toneShare(samples, other.hz, start, length);
    const itself = toneShare(samples, own.hz, start, length);
    diagnostic(`the ${name} (node ${own.name}) hears the other (${other.hz} Hz) at share ${heard.toFixed(3)}, itself at ${itself.toFixed(3)}`);
    assert.ok(heard > 0.3, `the ${name} hears the other party across the nodes: ${heard}`);
    assert.ok(itself < 0.02, `the ${name} does not hear itself: ${itself}`);
  }
}

describe('a queue across two media nodes', { skip: !onPostgres || !hasSipp, timeout: 150_000 }, () => {
  test('an agent\'s dequeue verb on node B takes a caller waiting on node A: audio both ways; the agent hung up through node A sends the caller on', async (ctx) => {
    const sipps = [await nodes.answer(nodes.A), await nodes.answer(nodes.B)];
    const callerId = await enqueueThroughA();
    const agent = await nodes.B.api('POST', '/v1/calls', { from: nodes.B.from, to: TO, record: true, flow: [{ dequeue: { queue: 'nodes-queue' } }, { hangup: {} }] });
    await bridged(callerId, agent.id);
    const connectedAt = Date.now();
    await sleep(CONNECTED_MS);
    // Asked of node A, carried out by node B (which holds the agent's call): the connection ends, the caller's flow hangs up.
    const hung = await nodes.A.api('POST', `/v1/calls/${agent.id}/hangup`);
    assert.equal(hung.status, 'completed');
    const hungAt = Date.now();
    for (const sipp of sipps) {
      const result = await sipp.done;
      assert.equal(result.code, 0, `SIPp: ${result.errors}\n${nodes.detail()}`);
    }
    await heardBothWays(callerId, agent.id, connectedAt, hungAt, (text) => ctx.diagnostic(text));
    assert.equal((await nodes.B.api('GET', `/v1/queues/${queueId}`)).current_size, 0);
  });

  test('POST .../dequeue {"call_id"} sent to node A hands an agent call on node B the caller waiting on A: audio both ways; the caller hung up through node B ends both', async (ctx) => {
    const sipps = [await nodes.answer(nodes.A), await nodes.answer(nodes.B)];
    const callerId = await enqueueThroughA();
    const agent = await nodes.B.api('POST', '/v1/calls', { from: nodes.B.from, to: TO, record: true, flow: [{ pause: { seconds: 60 } }, { hangup: {} }] });
    await receiver.waitForEvent('call.answered', agent.id, 30_000);
    const member = await nodes.A.api('POST', `/v1/queues/${queueId}/members/${callerId}/dequeue`, { call_id: agent.id });
    assert.equal(member.call_id, callerId);
    await bridged(callerId, agent.id);
    const connectedAt = Date.now();
    await sleep(CONNECTED_MS);
    // Asked of node B, carried out by node A: the agent's dequeue goes on (its flow then ends, and so does its call).
    const hung = await nodes.B.api('POST', `/v1/calls/${callerId}/hangup`);
    assert.equal(hung.status, 'completed');
    const hungAt = Date.now();
    for (const sipp of sipps) {
      const result = await sipp.done;
      assert.equal(result.code, 0, `SIPp: ${result.errors}\n${nodes.detail()}`);
    }
    await heardBothWays(callerId, agent.id, connectedAt, hungAt, (text) => ctx.diagnostic(text));
  });

  // Last: it kills node A.
  test('the agent\'s node dies while connected to a caller on node B: the agent\'s call fails (node_lost), the caller\'s flow goes on, and B hangs up the dead node\'s leg', async () => {
    const carrierB = nodes.t.server.built.services.voiceCarriers.forMode('live') as unknown as LiveSipCarrier;
    const sessions = async () => (await carrierB.mediaEngineStats()).sessions;
    const before = await sessions();
    const sipps = [await nodes.answer(nodes.A), await nodes.answer(nodes.B)];
    const callerId = await enqueueThroughA(nodes.B);
    const agent = await nodes.A.api('POST', '/v1/calls', { from: nodes.A.from, to: TO, flow: [{ dequeue: { queue: 'nodes-queue' } }, { hangup: {} }] });
    await bridged(callerId, agent.id);
    // The caller's leg and the agent's node-to-node leg, both on node B (the connection is mixed there).
    await until('the agent\'s leg reaches node B', async () => (await sessions()) >= before + 2, { timeoutMs: 30_000, detail: nodes.detail });
    nodes.nodeA.kill();
    const caller = await until('the caller\'s flow goes on to its hangup', async () => {
      const body = await nodes.B.api('GET', `/v1/calls/${callerId}`);
      return body.status === 'completed' && body;
    }, { timeoutMs: 60_000, detail: nodes.detail });
    assert.equal(caller.failure ?? null, null, JSON.stringify(caller));
    const result = await sipps[1]!.done;
    assert.equal(result.code, 0, `SIPp B: ${result.errors}`);
    const lost = await nodes.B.api('GET', `/v1/calls/${agent.id}`);
    assert.deepEqual([lost.status, lost.failure?.carrier_code], ['failed', 'node_lost']);
    // No BYE comes from a dead node: node B hangs the leg up itself once its call has ended.
    await until('node B closes the dead node\'s leg', async () => (await sessions()) <= before, { timeoutMs: 60_000, detail: nodes.detail });
  });
});

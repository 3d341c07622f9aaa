// Two media nodes on one PostgreSQL database, both real `switchboard serve` processes: node A
// (spawned) places a live call to SIPp, and every action on that call is then asked of node B
// (the test server), which does not hold its dialog or media, nor share its data directory.
// B must carry each one to A
// (docs/live-voice.md, "Several nodes"): digits B is asked to send reach SIPp (which echoes
// them back into the call's gather on A), a recording B starts and stops is made from A's
// audio, a flow B replaces runs on A, a transfer B is asked for is A's REFER, and B's hang-up
// is a BYE (or a CANCEL while ringing) that SIPp receives. Every event reaches a real receiver once. On SQLite one node is the
// deployment (the single-node path is what every other test in test/sip runs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeWav } from '../../src/media/wav.ts';
import { startTestServer, type TestServer, type CreatedAccount } from '../helpers/server.ts';
import { freeUdpPort, peerAvailable, runSipp, type SippRun } from '../helpers/sipp.ts';
import { until } from '../helpers/until.ts';
import { NODES_SECRET_KEY, nodeCarriersFile, startSecondNode, type SecondNode } from '../helpers/second-node.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import { allEventsOf, waitForFlow, waitForFlowEvent, waitForRunning } from '../voice/flow-helpers.ts';

const onPostgres = Boolean(process.env.DATABASE_URL);
const hasSipp = peerAvailable('sipp');
if (!onPostgres) console.error('\n(test/sip/node-routing.test.ts runs on PostgreSQL only: on SQLite one node is the deployment.)\n');
const FROM = '+14155550142';
const TO = '+14155550199';

let t: TestServer;
let acct: CreatedAccount;
let receiver: WebhookReceiver;
let trunkPort: number;
let nodeA: SecondNode | undefined;
let audio: Server;
let toneUrl: string;
/** Half a second of 440 Hz, for a `play` verb. */
const TONE = encodeWav({ sampleRate: 8000, channels: 1, samples: [Int16Array.from({ length: 4000 }, (_, i) => Math.round(8000 * Math.sin(2 * Math.PI * 440 * i / 8000)))] });

before(async () => {
  if (!onPostgres || !hasSipp) return;
  trunkPort = await freeUdpPort();
  const fileB = await nodeCarriersFile(trunkPort, [46800, 46898], 15);
  t = await startTestServer({ SWITCHBOARD_CARRIERS_FILE: fileB, SWITCHBOARD_SECRET_KEY: NODES_SECRET_KEY });
  acct = await t.createAccount('growth');
  const imported = spawnSync(process.execPath, ['bin/switchboard.js', 'numbers', 'import', '--account', acct.account.id, '--number', FROM, '--trunk', 'sipp', '--json'], {
    env: { ...process.env, SWITCHBOARD_DATA_DIR: t.store.dataDir, SWITCHBOARD_CARRIERS_FILE: fileB, DATABASE_URL: t.store.databaseUrl! },
  });
  assert.equal(imported.status, 0, String(imported.stderr));
  receiver = await subscribeAll(t, acct.keys.live);
  audio = createServer((_req, res) => res.writeHead(200, { 'content-type': 'audio/wav' }).end(TONE));
  await new Promise<void>((resolve) => audio.listen(0, '127.0.0.1', resolve));
  toneUrl = `http://127.0.0.1:${(audio.address() as AddressInfo).port}/tone.wav`;
  // Node A has its own data directory: a `play` only works if its audio is fetched into A's cache.
  nodeA = await startSecondNode({ databaseUrl: t.store.databaseUrl!, carriersFile: await nodeCarriersFile(trunkPort, [46900, 46998], 15) });
});

after(async () => {
  nodeA?.kill();
  await receiver?.close();
  await t?.close();
  audio?.closeAllConnections();
  await new Promise<void>((resolve) => (audio ? audio.close(() => resolve()) : resolve()));
});

/** POST /v1/calls on node A. */
async function placeOnA(body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${nodeA!.url}/v1/calls`, {
    method: 'POST', headers: { authorization: `Bearer ${acct.keys.live}`, 'content-type': 'application/json' }, body: JSON.stringify({ from: FROM, to: TO, ...body }),
  });
  const call = await res.json() as { id: string };
  assert.equal(res.status, 200, JSON.stringify(call));
  return call.id;
}

/** Node B: the test server. */
const onB = () => t.as(acct.keys.live);

async function waitForStatus(id: string, status: string): Promise<void> {
  let now = '';
  await until(`the call to become ${status}`, async () => (now = (await onB().get(`/v1/calls/${id}`)).body.status) === status, {
    detail: () => `it is ${now}; node A said:\n${nodeA!.log()}`,
  });
}

async function sippOk(sipp: SippRun): Promise<void> {
  const result = await sipp.done;
  assert.equal(result.code, 0, `SIPp: ${result.errors}\nnode A said:\n${nodeA!.log()}`);
}

/**
 * Every event about the call (its own, its flow's, its recordings') arrived exactly once: no
 * type twice, one delivery per event; and the call's own events are these.
 */
async function assertOnce(callId: string, callTypes: string[]): Promise<void> {
  // Deliveries of different events may arrive in any order (a loaded machine shows it): wait for all first.
  const own = () => allEventsOf(receiver, callId).filter((e) => e.data.object.id === callId);
  await receiver.waitFor(() => callTypes.every((type) => own().some((e) => e.type === type)), 30_000).catch(() => undefined);
  const events = allEventsOf(receiver, callId);
  const types = events.map((e) => e.type);
  assert.deepEqual(types.filter((type, i) => types.indexOf(type) !== i), [], `an event happened twice: ${types.join(', ')}`);
  assert.deepEqual(events.filter((e) => e.data.object.id === callId).map((e) => e.type).sort(), [...callTypes].sort());
  const ids = new Set(events.map((e) => e.id));
  assert.equal(receiver.deliveries.filter((d) => ids.has(d.event.id)).length, events.length, 'an event was delivered more than once');
}

describe('a live call held by another node: API actions reach it (PostgreSQL, two processes, SIPp)', { skip: !onPostgres || !hasSipp }, () => {
  test('digits, a recording, a new flow and the hang-up asked of node B act on node A\'s call', async () => {
    const sipp = await runSipp({ scenario: 'uas-answer-echo.xml', port: trunkPort, args: ['-rtp_echo'], timeoutSeconds: 60 });
    try {
      const id = await placeOnA({ flow: [{ gather: { input: ['dtmf'], num_digits: 3, timeout: 30 } }, { pause: { seconds: 120 } }] });
      const row = await t.server.database.db.selectFrom('calls').select('node').where('id', '=', id).executeTakeFirstOrThrow();
      const nodes = await t.server.database.db.selectFrom('sip_nodes').select('id').execute();
      assert.equal(nodes.length, 2);
      assert.ok(row.node && nodes.some((n) => n.id === row.node), 'the call records the node that placed it');
      await waitForRunning(onB(), id, 0);

      // RFC 4733 digits from A's media to SIPp, echoed back into the gather running on A.
      const dtmf = await onB().post(`/v1/calls/${id}/dtmf`, { digits: '123' });
      assert.equal(dtmf.status, 200, JSON.stringify(dtmf.body));
      const [gathered] = await waitForFlowEvent(receiver, id, 'call.gather.completed');
      assert.equal(gathered!.data.object.digits, '123');
      await waitForRunning(onB(), id, 1);

      // A recording started and stopped through B is cut from the call's audio on A.
      const started = await onB().post(`/v1/calls/${id}/recordings`, {});
      assert.equal(started.status, 200, JSON.stringify(started.body));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const stopped = await onB().post(`/v1/recordings/${started.body.id}/stop`, {});
      assert.equal(stopped.status, 200, JSON.stringify(stopped.body));
      const ready = await receiver.waitForEvent('call.recording.ready', started.body.id, 30_000);
      assert.ok(ready.data.object.duration_seconds > 1, JSON.stringify(ready.data.object));

      // The running pause is interrupted on A and the new flow runs there: its audio is fetched
      // into A's cache by a job only A claims, and played from there.
      const replaced = await onB().post(`/v1/calls/${id}/flow`, { flow: [{ play: { url: toneUrl } }, { say: { text: 'Moved along.' } }, { pause: { seconds: 120 } }] });
      assert.equal(replaced.status, 200, JSON.stringify(replaced.body));
      const flow = await waitForFlow(onB(), id, (f) => f.log.some((e: any) => e.verb === 'say' && e.ended_at !== null) && f.log.at(-1).verb === 'pause');
      assert.deepEqual(flow.log.map((e: any) => [e.verb, e.result?.reason ?? null]),
        [['gather', 'num_digits'], ['pause', 'interrupted'], ['play', 'finished'], ['say', 'finished'], ['pause', null]], JSON.stringify(flow.log));

      // B's hang-up is A's BYE.
      const hungUp = await onB().post(`/v1/calls/${id}/hangup`);
      assert.equal(hungUp.status, 200, JSON.stringify(hungUp.body));
      assert.equal(hungUp.body.status, 'completed');
      await sippOk(sipp);
      await receiver.waitForEvent('call.completed', id, 30_000);
      const sent = await waitForFlowEvent(receiver, id, 'call.dtmf.sent');
      assert.equal(sent[0]!.data.object.digits, '123');
      await assertOnce(id, ['call.queued', 'call.ringing', 'call.answered', 'call.completed']);
    } finally {
      sipp.process.kill('SIGKILL');
      await sipp.done;
    }
  });

  test('a transfer asked of node B is node A\'s REFER: SIPp accepts it, call.transferred, and A leaves the call with BYE', async () => {
    const sipp = await runSipp({ scenario: 'uas-refer.xml', port: trunkPort });
    try {
      const id = await placeOnA({});
      await receiver.waitForEvent('call.answered', id, 30_000);
      const res = await onB().post(`/v1/calls/${id}/transfer`, { to: '+14155550100' });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const transferred = await receiver.waitForEvent('call.transferred', id, 30_000);
      assert.equal(transferred.data.object.transfers[0].status, 'completed');
      await sippOk(sipp);
      const completed = await receiver.waitForEvent('call.completed', id, 30_000);
      assert.equal(completed.data.object.hangup_source, 'system');
      await assertOnce(id, ['call.queued', 'call.ringing', 'call.answered', 'call.transfer_started', 'call.transferred', 'call.completed']);
    } finally {
      sipp.process.kill('SIGKILL');
      await sipp.done;
    }
  });

  test('a hang-up asked of node B while node A\'s call rings is a CANCEL that SIPp receives', async () => {
    const sipp = await runSipp({ scenario: 'uas-ring-cancel.xml', port: trunkPort });
    try {
      const id = await placeOnA({ timeout: 30 });
      await waitForStatus(id, 'ringing');
      const hungUp = await onB().post(`/v1/calls/${id}/hangup`);
      assert.equal(hungUp.status, 200, JSON.stringify(hungUp.body));
      assert.equal(hungUp.body.status, 'canceled');
      await sippOk(sipp);
      await receiver.waitForEvent('call.canceled', id, 30_000);
      await assertOnce(id, ['call.queued', 'call.ringing', 'call.canceled', 'call.completed']);
      const left = await t.server.database.db.selectFrom('jobs').select('id').where('kind', '=', 'sip.command').execute();
      assert.deepEqual(left, [], 'every command was carried out');
    } finally {
      sipp.process.kill('SIGKILL');
      await sipp.done;
    }
  });
});

// Two media nodes on one PostgreSQL database: node A (a `switchboard serve` process) holds a
// live call to SIPp, and a media stream asked of node B (the test server) is started on A, the
// node that holds the call's media (a `start_stream` node command). Then node A places a live
// call to SIPp and is SIGKILLed with the call up. Its dialog and media died with
// it, so the survivor (node B, the test server) must end the call within the node lease,
// by the system, as a network failure. On SQLite one node is the deployment (one process
// owns the file), so this runs on PostgreSQL only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { startTestServer, type TestServer, type CreatedAccount } from '../helpers/server.ts';
import { freeUdpPort, peerAvailable, runSipp } from '../helpers/sipp.ts';
import { NODES_SECRET_KEY, nodeApi, nodeCarriersFile, startSecondNode, type SecondNode } from '../helpers/second-node.ts';
import { toneTrunk } from '../helpers/tone-trunk.ts';
import { toneShare } from '../helpers/audio-match.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import { startStreamServer, type StreamServer } from '../helpers/stream-server.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { decodeG711 } from '../../src/carriers/rtp/g711.ts';

const onPostgres = Boolean(process.env.DATABASE_URL);
const hasSipp = peerAvailable('sipp');
if (!onPostgres) console.error('\n(test/sip/nodes.test.ts runs on PostgreSQL only: on SQLite one node is the deployment.)\n');
const FROM = '+14155550142';
const TO = '+14155550199';
const LEASE_SECONDS = 3;

let t: TestServer;
let acct: CreatedAccount;
let trunkPort: number;
let nodeA: SecondNode | undefined;
let receiver: WebhookReceiver | undefined;
let media: StreamServer | undefined;
/** The pitch node A's SIPp trunk sends in the stream test. */
const TONE_HZ = 500;

before(async () => {
  if (!onPostgres || !hasSipp) return;
  trunkPort = await freeUdpPort();
  const fileB = await nodeCarriersFile(trunkPort, [46600, 46698], LEASE_SECONDS);
  t = await startTestServer({ SWITCHBOARD_CARRIERS_FILE: fileB, SWITCHBOARD_SECRET_KEY: NODES_SECRET_KEY });
  acct = await t.createAccount('growth');
  const imported = spawnSync(process.execPath, ['bin/switchboard.js', 'numbers', 'import', '--account', acct.account.id, '--number', FROM, '--trunk', 'sipp', '--json'], {
    env: { ...process.env, SWITCHBOARD_DATA_DIR: t.store.dataDir, SWITCHBOARD_CARRIERS_FILE: fileB, DATABASE_URL: t.store.databaseUrl! },
  });
  assert.equal(imported.status, 0, String(imported.stderr));
  // Node A: its own process, SIP port and RTP range, the same database.
  nodeA = await startSecondNode({ databaseUrl: t.store.databaseUrl!, carriersFile: await nodeCarriersFile(trunkPort, [46700, 46798], LEASE_SECONDS) });
  receiver = await subscribeAll(t, acct.keys.live);
  media = await startStreamServer();
});

after(async () => {
  nodeA?.kill();
  await media?.close();
  await receiver?.close();
  await t?.close();
});

describe('several media nodes on one database', { skip: !onPostgres || !hasSipp }, () => {
  // Runs before the SIGKILL below, on the same two processes.
  test('a media stream asked of node B on a live call node A holds: A connects it, SIPp\'s audio arrives, call.stream.started; a stop through B ends it', async () => {
    const sipp = await runSipp({ scenario: toneTrunk(TONE_HZ, 'PCMU', 40), port: trunkPort, timeoutSeconds: 90 });
    const a = nodeApi(() => nodeA!, acct.keys.live);
    const b = nodeApi(() => t, acct.keys.live);
    const detail = () => `node A said:\n${nodeA!.log()}`;
    try {
      const call = await a('POST', '/v1/calls', { from: FROM, to: TO });
      await receiver!.waitForEvent('call.answered', call.id, 30_000).catch((err: Error) => assert.fail(`${err.message}\n${detail()}`));
      // What makes this a test of several nodes: the call's media is on node A, not on B.
      const db = t.server.database.db;
      const held = await db.selectFrom('calls').select('node').where('id', '=', call.id).executeTakeFirstOrThrow();
      // The test server (node B) started first: the later of the two nodes is A.
      const nodes = await db.selectFrom('sip_nodes').select(['id', 'started_at']).orderBy('started_at').execute();
      assert.equal(nodes.length, 2, JSON.stringify(nodes));
      assert.equal(held.node, nodes[1]!.id, `the call is held by node A: ${JSON.stringify(nodes)}`);

      const count = media!.connections.length;
      const stream = await b('POST', `/v1/calls/${call.id}/streams`, { url: `${media!.url}?nodes=start`, track: 'inbound' });
      assert.equal(stream.call_id, call.id);
      const row = await db.selectFrom('call_streams').select('node').where('id', '=', stream.id).executeTakeFirstOrThrow();
      assert.equal(row.node, held.node, 'the stream\'s socket is to be held by the call\'s node');
      const connection = await media!.connection(count, 30_000).catch((err: Error) => assert.fail(`${err.message}\n${detail()}`));
      const frames = await connection.waitFor((f) => f.filter((x) => x.event === 'media').length >= 100, 'two seconds of media frames', 40_000);
      const start = frames.find((f) => f.event === 'start');
      assert.ok(start, 'a start frame');
      assert.equal(start.start.call_id, call.id);
      assert.equal(start.stream_id, stream.id);
      assert.deepEqual(start.start.tracks, ['inbound']);
      const started = await receiver!.waitForEvent('call.stream.started', stream.id, 30_000);
      assert.equal(started.data.object.call_id, call.id);
      // The frames carry what SIPp sends that leg: its tone, in µ-law (the default format).
      const inbound = frames.filter((f) => f.event === 'media' && f.media.track === 'inbound');
      const heard = Int16Array.from(inbound.flatMap((f) => [...decodeG711('PCMU', Buffer.from(f.media.payload, 'base64'))]));
      const share = toneShare(heard, TONE_HZ, heard.length - 8000, 8000);
      assert.ok(share > 0.5, `the last second of the stream is SIPp's ${TONE_HZ} Hz tone: share ${share}`);

      // Stopped through B: the stop goes to A, which holds the socket.
      const stopped = await b('POST', `/v1/calls/${call.id}/streams/${stream.id}/stop`);
      assert.deepEqual([stopped.status, stopped.reason], ['stopped', 'stopped']);
      const last = await connection.waitFor((f) => f.some((x) => x.event === 'stop'), 'the stop frame sent by node A', 30_000);
      assert.equal(last.find((f) => f.event === 'stop').stop.reason, 'stopped');
      await connection.closed;
      const ended = await receiver!.waitForEvent('call.stream.stopped', stream.id, 30_000);
      assert.equal(ended.data.object.reason, 'stopped');
      assert.equal(media!.connections.length, count + 1, 'one connection, made once');

      await b('POST', `/v1/calls/${call.id}/hangup`);
      await receiver!.waitForEvent('call.completed', call.id, 30_000);
      assert.equal((await sipp.done).code, 0, (await sipp.done).errors);
    } finally {
      sipp.process.kill('SIGKILL');
      await sipp.done;
    }
  });

  test('a node is SIGKILLed with a recorded live call up: a survivor fails it within the lease (system, network_out_of_order, node_lost), and its recording fails', async () => {
    const sipp = await runSipp({ scenario: 'uas-answer-echo.xml', port: trunkPort, args: ['-rtp_echo'] });
    try {
      const placed = await fetch(`${nodeA!.url}/v1/calls`, {
        method: 'POST', headers: { authorization: `Bearer ${acct.keys.live}`, 'content-type': 'application/json' }, body: JSON.stringify({ from: FROM, to: TO, record: true }),
      });
      const call = await placed.json() as { id: string };
      assert.equal(placed.status, 200, JSON.stringify(call));
      const live = t.as(acct.keys.live);
      let status = '';
      for (let i = 0; i < 100 && status !== 'in_progress'; i++) {
        status = (await live.get(`/v1/calls/${call.id}`)).body.status;
        if (status !== 'in_progress') await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(status, 'in_progress', `the call never came up on node A:\n${nodeA!.log()}`);

      nodeA!.kill();
      let ended: { status: string; hangup_cause: string; hangup_source: string } | undefined;
      // Bounded: the lease, a sweep interval and slack for a loaded machine.
      for (let i = 0; i < 150 && !ended; i++) {
        const body = (await live.get(`/v1/calls/${call.id}`)).body;
        if (body.status !== 'in_progress') ended = body;
        else await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const nodes = ended ? [] : await t.server.database.db.selectFrom('sip_nodes').selectAll().execute();
      assert.ok(ended, `no survivor ended the call of the dead node; nodes: ${JSON.stringify(nodes)}\nnode A said:\n${nodeA!.log()}`);
      assert.equal(ended.status, 'failed', 'the platform lost the call');
      assert.equal(ended.hangup_cause, 'network_out_of_order');
      assert.equal(ended.hangup_source, 'system');
      const { failure, duration_seconds: talked } = ended as unknown as { failure: { code: string; carrier_code: string; message: string }; duration_seconds: number };
      assert.deepEqual([failure.code, failure.carrier_code], ['network_out_of_order', 'node_lost']);
      assert.match(failure.message, /media node holding the call stopped/);
      assert.ok(talked > 0, `an answered call keeps its talk time: ${talked}`);
      // The call's audio was on node A: its recording fails instead of waiting for it forever.
      const [recordingId] = (ended as unknown as { recordings: string[] }).recordings;
      assert.ok(recordingId, JSON.stringify(ended));
      let recording: { status: string; error: string | null } | undefined;
      for (let i = 0; i < 100 && recording?.status !== 'failed'; i++) {
        recording = (await live.get(`/v1/recordings/${recordingId}`)).body;
        if (recording!.status !== 'failed') await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(recording!.status, 'failed', JSON.stringify(recording));
    } finally {
      sipp.process.kill('SIGKILL');
      await sipp.done;
    }
  });
});

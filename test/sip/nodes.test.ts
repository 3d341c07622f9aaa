// Two media nodes on one PostgreSQL database: node A (a `switchboard serve` process) places a
// live call to SIPp and is then SIGKILLed with the call up. Its dialog and media died with
// it, so the survivor (node B, the test server) must end the call within the node lease,
// by the system, as a network failure. On SQLite one node is the deployment (one process
// owns the file), so this runs on PostgreSQL only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { startTestServer, type TestServer, type CreatedAccount } from '../helpers/server.ts';
import { freeUdpPort, peerAvailable, runSipp } from '../helpers/sipp.ts';
import { NODES_SECRET_KEY, nodeCarriersFile, startSecondNode, type SecondNode } from '../helpers/second-node.ts';

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
});

after(async () => {
  nodeA?.kill();
  await t?.close();
});

describe('several media nodes on one database', { skip: !onPostgres || !hasSipp }, () => {
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

// Two media nodes on the test server's PostgreSQL database, each with a SIPp trunk of its own
// that answers with a tone of its own pitch: node B is the test server, node A a second
// `switchboard serve` process. A call placed through a node takes that node's trunk, so its
// leg, its media and its recording are there; a call's recording (channel 0: what we sent
// its leg) tells which pitches it heard, and when.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { startTestServer, type CreatedAccount, type TestServer } from './server.ts';
import { freeUdpPort, runSipp, type SippRun } from './sipp.ts';
import { toneTrunk } from './tone-trunk.ts';
import { until } from './until.ts';
import { NODES_SECRET_KEY, nodeApi, nodeCarriersFile, startSecondNode, type SecondNode } from './second-node.ts';
import { decodeWav } from '../../src/media/wav.ts';

const RATE = 8000;

export interface ToneNode {
  name: 'A' | 'B';
  url: string;
  /** The number whose calls leave through this node's trunk. */
  from: string;
  hz: number;
  trunkPort: number;
  /** The API of this node with the account's live key; a status other than 200 throws. */
  api: ReturnType<typeof nodeApi>;
}

export interface TwoToneNodes {
  t: TestServer;
  acct: CreatedAccount;
  nodeA: SecondNode;
  A: ToneNode;
  B: ToneNode;
  /** Node A's output, for failure messages. */
  detail(): string;
  /** Starts the node's SIPp trunk for one call (a node's trunk answers one call at a time). */
  answer(node: ToneNode, seconds?: number): Promise<SippRun>;
  /** The node that holds `callId` (calls.node). */
  nodeOf(callId: string): Promise<string | null | undefined>;
  /** What `callId` (held by `node`) was sent, from its last recording, once the call and the recording are over. */
  heard(node: ToneNode, callId: string): Promise<{ samples: Int16Array; at(mark: number): number }>;
  close(): Promise<void>;
}

/** Starts both nodes; `rtp` gives B's and A's RTP ranges. */
export async function startTwoToneNodes(options: { rtp: { B: [number, number]; A: [number, number] }; leaseSeconds: number }): Promise<TwoToneNodes> {
  const ports = { A: await freeUdpPort(), B: await freeUdpPort() };
  // The same trunk name on both nodes, each to its own SIPp: a call takes the trunk of the node that places it.
  const fileB = await nodeCarriersFile(ports.B, options.rtp.B, options.leaseSeconds);
  const t = await startTestServer({ SWITCHBOARD_CARRIERS_FILE: fileB, SWITCHBOARD_SECRET_KEY: NODES_SECRET_KEY });
  const acct = await t.createAccount('growth');
  const froms = { A: '+14155550171', B: '+14155550172' };
  for (const from of Object.values(froms)) {
    const imported = spawnSync(process.execPath, ['bin/switchboard.js', 'numbers', 'import', '--account', acct.account.id, '--number', from, '--trunk', 'sipp', '--json'], {
      env: { ...process.env, SWITCHBOARD_DATA_DIR: t.store.dataDir, SWITCHBOARD_CARRIERS_FILE: fileB, DATABASE_URL: t.store.databaseUrl! },
    });
    assert.equal(imported.status, 0, String(imported.stderr));
  }
  const nodeA = await startSecondNode({ databaseUrl: t.store.databaseUrl!, carriersFile: await nodeCarriersFile(ports.A, options.rtp.A, options.leaseSeconds) });
  const A: ToneNode = { name: 'A', url: nodeA.url, from: froms.A, hz: 500, trunkPort: ports.A, api: nodeApi(() => nodeA, acct.keys.live) };
  const B: ToneNode = { name: 'B', url: t.url, from: froms.B, hz: 800, trunkPort: ports.B, api: nodeApi(() => t, acct.keys.live) };
  const sipps: SippRun[] = [];
  const detail = () => `node A said:\n${nodeA.log()}`;
  return {
    t, acct, nodeA, A, B, detail,
    async answer(node, seconds = 40) {
      const sipp = await runSipp({ scenario: toneTrunk(node.hz, 'PCMU', seconds), port: node.trunkPort, timeoutSeconds: seconds + 40 });
      sipps.push(sipp);
      return sipp;
    },
    async nodeOf(callId) {
      return (await t.server.database.db.selectFrom('calls').select('node').where('id', '=', callId).executeTakeFirstOrThrow()).node;
    },
    async heard(node, callId) {
      const call = await until(`${callId} ends with its recording`, async () => {
        const body = await node.api('GET', `/v1/calls/${callId}`);
        return body.status !== 'in_progress' && body.recordings?.length > 0 && body;
      }, { timeoutMs: 30_000, detail });
      const recordingId = call.recordings.at(-1) as string;
      await until(`${callId}'s recording is ready`, async () => {
        const body = await node.api('GET', `/v1/recordings/${recordingId}`);
        assert.notEqual(body.status, 'failed', JSON.stringify(body));
        return body.status === 'ready';
      }, { timeoutMs: 30_000, detail });
      // The audio is on the disk of the node that recorded it.
      const media = await fetch(`${node.url}/v1/recordings/${recordingId}/media`, { headers: { authorization: `Bearer ${acct.keys.live}` } });
      assert.equal(media.status, 200, `${callId}'s recording media`);
      const origin = Date.parse(call.answered_at);
      return { samples: decodeWav(Buffer.from(await media.arrayBuffer())).samples[0]!, at: (mark: number) => Math.max(0, Math.round(((mark - origin) / 1000) * RATE)) };
    },
    async close() {
      for (const sipp of sipps) sipp.process.kill('SIGKILL');
      nodeA.kill();
      await t.close();
    },
  };
}

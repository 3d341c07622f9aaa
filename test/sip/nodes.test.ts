// Two media nodes on one PostgreSQL database: node A (a `switchboard serve` process) places a
// live call to SIPp and is then SIGKILLed with the call up. Its dialog and media died with
// it, so the survivor (node B, the test server) must end the call within the node lease,
// by the system, as a network failure. On SQLite one node is the deployment (one process
// owns the file), so this runs on PostgreSQL only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { startTestServer, TEST_ENV, type TestServer, type CreatedAccount } from '../helpers/server.ts';
import { freeUdpPort, peerAvailable, runSipp } from '../helpers/sipp.ts';

const onPostgres = Boolean(process.env.DATABASE_URL);
const hasSipp = peerAvailable('sipp');
if (!onPostgres) console.error('\n(test/sip/nodes.test.ts runs on PostgreSQL only: on SQLite one node is the deployment.)\n');
const FROM = '+14155550142';
const TO = '+14155550199';
const LEASE_SECONDS = 3;

let t: TestServer;
let acct: CreatedAccount;
let trunkPort: number;
let nodeA: ChildProcess | undefined;
let nodeAUrl: string;
let nodeALog = '';

function carriersFile(sipPort: number, rtp: [number, number]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'sb-nodes-')), 'carriers.yaml');
  writeFileSync(file, [
    'sip:',
    `  listen: { host: 127.0.0.1, udp_port: ${sipPort} }`,
    '  public_host: 127.0.0.1',
    `  rtp: { port_min: ${rtp[0]}, port_max: ${rtp[1]} }`,
    `  node_lease_seconds: ${LEASE_SECONDS}`,
    '  trunks:',
    `    - { name: sipp, host: 127.0.0.1, port: ${trunkPort}, codecs: [PCMU] }`,
    '',
  ].join('\n'));
  return file;
}

function freeTcpPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

before(async () => {
  if (!onPostgres || !hasSipp) return;
  trunkPort = await freeUdpPort();
  const fileB = carriersFile(await freeUdpPort(), [46600, 46698]);
  t = await startTestServer({ SWITCHBOARD_CARRIERS_FILE: fileB });
  acct = await t.createAccount('growth');
  const imported = spawnSync(process.execPath, ['bin/switchboard.js', 'numbers', 'import', '--account', acct.account.id, '--number', FROM, '--trunk', 'sipp', '--json'], {
    env: { ...process.env, SWITCHBOARD_DATA_DIR: t.store.dataDir, SWITCHBOARD_CARRIERS_FILE: fileB, DATABASE_URL: t.store.databaseUrl! },
  });
  assert.equal(imported.status, 0, String(imported.stderr));

  // Node A: its own process, SIP port and RTP range, the same database.
  const port = await freeTcpPort();
  nodeAUrl = `http://127.0.0.1:${port}`;
  nodeA = spawn(process.execPath, ['bin/switchboard.js', 'serve', '--port', String(port), '--data-dir', mkdtempSync(join(tmpdir(), 'sb-node-a-'))], {
    env: { ...process.env, ...TEST_ENV, DATABASE_URL: t.store.databaseUrl!, SWITCHBOARD_CARRIERS_FILE: carriersFile(await freeUdpPort(), [46700, 46798]), SWITCHBOARD_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  nodeA.stdout?.on('data', (chunk) => { nodeALog += String(chunk); });
  nodeA.stderr?.on('data', (chunk) => { nodeALog += String(chunk); });
  for (let i = 0; i < 600; i++) {
    if (nodeA.exitCode !== null) throw new Error(`node A exited before it was ready:\n${nodeALog}`);
    if (await fetch(`${nodeAUrl}/readyz`).then((r) => r.ok, () => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`node A was not ready within 60 s:\n${nodeALog}`);
});

after(async () => {
  nodeA?.kill('SIGKILL');
  await t?.close();
});

describe('several media nodes on one database', { skip: !onPostgres || !hasSipp }, () => {
  test('a node is SIGKILLed with a live call up: a survivor ends it within the lease (system, network_out_of_order)', async () => {
    const sipp = await runSipp({ scenario: 'uas-answer-echo.xml', port: trunkPort, args: ['-rtp_echo'] });
    try {
      const placed = await fetch(`${nodeAUrl}/v1/calls`, {
        method: 'POST', headers: { authorization: `Bearer ${acct.keys.live}`, 'content-type': 'application/json' }, body: JSON.stringify({ from: FROM, to: TO }),
      });
      const call = await placed.json() as { id: string };
      assert.equal(placed.status, 200, JSON.stringify(call));
      const live = t.as(acct.keys.live);
      let status = '';
      for (let i = 0; i < 100 && status !== 'in_progress'; i++) {
        status = (await live.get(`/v1/calls/${call.id}`)).body.status;
        if (status !== 'in_progress') await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(status, 'in_progress', `the call never came up on node A:\n${nodeALog}`);

      nodeA!.kill('SIGKILL');
      let ended: { status: string; hangup_cause: string; hangup_source: string } | undefined;
      // Bounded: the lease, a sweep interval and slack for a loaded machine.
      for (let i = 0; i < 150 && !ended; i++) {
        const body = (await live.get(`/v1/calls/${call.id}`)).body;
        if (body.status !== 'in_progress') ended = body;
        else await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const nodes = ended ? [] : await t.server.database.db.selectFrom('sip_nodes').selectAll().execute();
      assert.ok(ended, `no survivor ended the call of the dead node; nodes: ${JSON.stringify(nodes)}\nnode A said:\n${nodeALog}`);
      assert.equal(ended.status, 'completed', 'an answered call can only complete');
      assert.equal(ended.hangup_cause, 'network_out_of_order');
      assert.equal(ended.hangup_source, 'system');
    } finally {
      sipp.process.kill('SIGKILL');
      await sipp.done;
    }
  });
});

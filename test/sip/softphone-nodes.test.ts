// Two nodes on one PostgreSQL database (issue 26, "any node can find a worker's contact"): a
// softphone registers with node B (a `switchboard serve` process); node A's API shows the
// registration, node A's registrar lists it in answer to a query REGISTER (after challenging
// afresh: B's nonce is not A's), and a caller placed through node A is offered to the worker at
// the contact it registered with B. On SQLite one node is the deployment: PostgreSQL only.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestServer, type TestServer, type CreatedAccount } from '../helpers/server.ts';
import { freeUdpPort, peerAvailable, runSipp } from '../helpers/sipp.ts';
import { toneTrunk } from '../helpers/tone-trunk.ts';
import { NODES_SECRET_KEY, startSecondNode, type SecondNode } from '../helpers/second-node.ts';
import { UdpSoftphone } from '../helpers/udp-softphone.ts';
import { until } from '../helpers/until.ts';
import { parseNameAddr } from '../../src/carriers/sip/headers.ts';

const onPostgres = Boolean(process.env.DATABASE_URL);
const hasSipp = peerAvailable('sipp');
if (!onPostgres) console.error('\n(test/sip/softphone-nodes.test.ts runs on PostgreSQL only: on SQLite one node is the deployment.)\n');
const FROM = '+14155550161';
const TO = '+14155550199';

let t: TestServer;
let acct: CreatedAccount;
let trunkPort: number;
const sipPorts: { a: number; b: number } = { a: 0, b: 0 };
let nodeB: SecondNode | undefined;

async function carriersFile(sipPort: number, rtp: [number, number]): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), 'sb-softphone-nodes-')), 'carriers.yaml');
  writeFileSync(file, [
    'sip:',
    `  listen: { host: 127.0.0.1, udp_port: ${sipPort} }`,
    '  public_host: 127.0.0.1',
    `  rtp: { port_min: ${rtp[0]}, port_max: ${rtp[1]} }`,
    '  trunks:',
    `    - { name: sipp, host: 127.0.0.1, port: ${trunkPort}, codecs: [PCMU] }`,
    '',
  ].join('\n'));
  return file;
}

before(async () => {
  if (!onPostgres || !hasSipp) return;
  trunkPort = await freeUdpPort();
  sipPorts.a = await freeUdpPort();
  sipPorts.b = await freeUdpPort();
  const fileA = await carriersFile(sipPorts.a, [40500, 40598]);
  t = await startTestServer({ SWITCHBOARD_CARRIERS_FILE: fileA, SWITCHBOARD_SECRET_KEY: NODES_SECRET_KEY });
  acct = await t.createAccount('growth');
  const imported = spawnSync(process.execPath, ['bin/switchboard.js', 'numbers', 'import', '--account', acct.account.id, '--number', FROM, '--trunk', 'sipp', '--json'], {
    env: { ...process.env, SWITCHBOARD_DATA_DIR: t.store.dataDir, SWITCHBOARD_CARRIERS_FILE: fileA, DATABASE_URL: t.store.databaseUrl! },
  });
  assert.equal(imported.status, 0, String(imported.stderr));
  nodeB = await startSecondNode({ databaseUrl: t.store.databaseUrl!, carriersFile: await carriersFile(sipPorts.b, [40600, 40698]) });
});

after(async () => {
  nodeB?.kill();
  await t?.close();
});

test('a softphone registered with one node is seen, listed and rung through the other', { skip: !onPostgres || !hasSipp, timeout: 90_000 }, async () => {
  const live = t.as(acct.keys.live);
  const user = 'nodes.dave';
  const worker = await live.post('/v1/workers', { name: 'Dave', skills: ['nodes'], reach: { sip_user: user }, status: 'available' });
  assert.equal(worker.status, 200, JSON.stringify(worker.body));
  const { password } = (await live.post(`/v1/workers/${worker.body.id}/sip_credentials`)).body;
  const queue = await live.post('/v1/queues', { name: 'nodes', wait_flow: [{ pause: { seconds: 1 } }], routing: { required_skills: ['nodes'], on_missed: 'offline' } });
  assert.equal(queue.status, 200, JSON.stringify(queue.body));

  const withB = await UdpSoftphone.start({ host: '127.0.0.1', port: sipPorts.b });
  const withA = await UdpSoftphone.start({ host: '127.0.0.1', port: sipPorts.a });
  try {
    const registered = await withB.register({ user, password, contacts: [`<${withB.contact}>`], expires: 300 });
    assert.equal(registered.status, 200, `${registered.status} ${registered.reason}\n${nodeB!.log()}`);

    const shown = (await live.get(`/v1/workers/${worker.body.id}`)).body;
    assert.deepEqual([shown.registered, shown.registrations.map((r: any) => [r.contact, r.source])], [true, [[withB.contact, `udp:127.0.0.1:${withB.port}`]]]);
    const listedByA = await withA.register({ user, password });
    assert.equal(listedByA.status, 200);
    assert.deepEqual(listedByA.headers.getAll('contact').map((c) => parseNameAddr(c).uri), [withB.contact]);

    const caller = await runSipp({ scenario: toneTrunk(500, 'PCMU', 60), port: trunkPort, timeoutSeconds: 80 });
    const call = await live.post('/v1/calls', { from: FROM, to: TO, flow: [{ enqueue: { queue: 'nodes' } }, { hangup: {} }] });
    assert.equal(call.status, 200, JSON.stringify(call.body));
    const [invite] = await until('the offer rings the softphone registered with node B', () => withB.invites.length >= 1 && withB.invites, { timeoutMs: 30_000 });
    assert.equal(invite!.uri, withB.contact);
    assert.equal(withA.invites.length, 0);
    await until('the miss sends the worker offline', async () => (await live.get(`/v1/workers/${worker.body.id}`)).body.status === 'offline', { timeoutMs: 20_000 });
    // SIPp takes a BYE only once its 600 ms pause after the ACK is over.
    await sleep(1000);
    assert.equal((await live.post(`/v1/calls/${call.body.id}/hangup`)).status, 200);
    const sipp = await caller.done;
    assert.equal(sipp.code, 0, sipp.errors);
  } finally {
    withA.close();
    withB.close();
  }
});

// Issue 25, "Several nodes": a conference is mixed on one media node, and a participant whose
// call another node holds joins it over a node-to-node SIP leg. Two `switchboard serve`
// processes on one PostgreSQL database: node A (a second process) and node B (the test
// server), each with its own SIPp trunk sending a tone of its own pitch (A 500 Hz, B 800 Hz).
// A's call, placed through node A, makes the conference (so A mixes it); then POST
// .../participants, sent to node B, dials B's call in through node B: its leg relays to A.
// What proves it: each call's recording (channel 0: what we sent that leg) holds the other's
// pitch and not its own; once B is muted (PATCH sent to node B, applied where the mix is) A
// hears nothing of B while B still hears A; POST .../announce {"play"} sent to node B (the
// file fetched there, then again by node A into its own cache) is heard by both (found in
// each recording by correlation with the file served); POST .../end (node B) sends both on
// to their hangup. On SQLite one node is the deployment, so this runs on PostgreSQL only.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestServer, type TestServer, type CreatedAccount } from '../helpers/server.ts';
import { freeUdpPort, peerAvailable, runSipp, type SippRun } from '../helpers/sipp.ts';
import { toneTrunk } from '../helpers/tone-trunk.ts';
import { matchAudio, toneShare } from '../helpers/audio-match.ts';
import { CHIRP, serveChirp, type ChirpServer } from '../helpers/chirp-server.ts';
import { until } from '../helpers/until.ts';
import { NODES_SECRET_KEY, nodeCarriersFile, startSecondNode, type SecondNode } from '../helpers/second-node.ts';
import { decodeWav } from '../../src/media/wav.ts';

const onPostgres = Boolean(process.env.DATABASE_URL);
const hasSipp = peerAvailable('sipp');
if (!onPostgres) console.error('\n(test/sip/conference-nodes.test.ts runs on PostgreSQL only: on SQLite one node is the deployment.)\n');
const TO = '+14155550199';
const RATE = 8000;
const PHASE_MS = 4000;
/** Long enough for the announcement (a one-second file) to be fetched on the home node and played. */
const ANNOUNCE_MS = 3000;
/** A match this close is the file (a tone under it, and G.711 twice over the node-to-node leg, leave it well above). */
const MATCHED = 0.7;
/** Samples left out after each change (its commit, the message to the home node, the jitter buffers) and before the next. */
const SETTLE = RATE * 1;
const MARGIN = RATE * 0.4;
const LEASE_SECONDS = 10;

interface Party {
  name: string;
  from: string;
  hz: number;
  trunkPort: number;
  sipp?: SippRun;
  callId?: string;
  /** The node that holds the call (and its recording's media). */
  url?: string;
}

const A: Party = { name: 'A', from: '+14155550171', hz: 500, trunkPort: 0 };
const B: Party = { name: 'B', from: '+14155550172', hz: 800, trunkPort: 0 };

let t: TestServer;
let acct: CreatedAccount;
let nodeA: SecondNode | undefined;
let chirp: ChirpServer | undefined;

before(async () => {
  if (!onPostgres || !hasSipp) return;
  chirp = await serveChirp();
  A.trunkPort = await freeUdpPort();
  B.trunkPort = await freeUdpPort();
  // The same trunk name on both nodes, each to its own SIPp: a call takes the trunk of the node that places it.
  const fileB = await nodeCarriersFile(B.trunkPort, [54000, 54498], LEASE_SECONDS);
  t = await startTestServer({ SWITCHBOARD_CARRIERS_FILE: fileB, SWITCHBOARD_SECRET_KEY: NODES_SECRET_KEY });
  acct = await t.createAccount('growth');
  for (const party of [A, B]) {
    const imported = spawnSync(process.execPath, ['bin/switchboard.js', 'numbers', 'import', '--account', acct.account.id, '--number', party.from, '--trunk', 'sipp', '--json'], {
      env: { ...process.env, SWITCHBOARD_DATA_DIR: t.store.dataDir, SWITCHBOARD_CARRIERS_FILE: fileB, DATABASE_URL: t.store.databaseUrl! },
    });
    assert.equal(imported.status, 0, String(imported.stderr));
  }
  nodeA = await startSecondNode({ databaseUrl: t.store.databaseUrl!, carriersFile: await nodeCarriersFile(A.trunkPort, [54500, 54998], LEASE_SECONDS) });
  A.url = nodeA.url;
  B.url = t.url;
});

after(async () => {
  for (const party of [A, B]) party.sipp?.process.kill('SIGKILL');
  nodeA?.kill();
  await t?.close();
  await chirp?.close();
});

/** An API request to one node. */
async function api(url: string, method: string, path: string, body?: object): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}${path}`, {
    method, headers: { authorization: `Bearer ${acct.keys.live}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json() };
}

test('a conference mixed on node A: a participant dialled in through node B hears A and is heard by A over a node-to-node leg; mute, a played announcement and end sent to node B apply', { skip: !onPostgres || !hasSipp, timeout: 150_000 }, async (ctx) => {
  const detail = () => `node A said:\n${nodeA!.log()}`;
  A.sipp = await runSipp({ scenario: toneTrunk(A.hz, 'PCMU', 60), port: A.trunkPort, timeoutSeconds: 100 });
  B.sipp = await runSipp({ scenario: toneTrunk(B.hz, 'PCMU', 60), port: B.trunkPort, timeoutSeconds: 100 });
  const placed = await api(A.url!, 'POST', '/v1/calls', { from: A.from, to: TO, record: true, flow: [{ conference: { name: 'nodes-room', beep: false } }, { hangup: {} }] });
  assert.equal(placed.status, 200, JSON.stringify(placed.body));
  A.callId = placed.body.id;
  const seated = (callId: string) => async () => {
    const listed = await api(B.url!, 'GET', `/v1/conferences?name=nodes-room`);
    const conference = listed.body.data?.[0];
    if (!conference) return undefined;
    const joined = await api(B.url!, 'GET', `/v1/conferences/${conference.id}/participants?status=joined`);
    return joined.body.data.some((p: { call_id: string }) => p.call_id === callId) && (conference.id as string);
  };
  const conferenceId = await until('A joins the conference', seated(A.callId!), { timeoutMs: 30_000, detail });

  // Dialled in through node B: B's call is placed, answered and held by node B.
  const dialled = await api(B.url!, 'POST', `/v1/conferences/${conferenceId}/participants`, { to: TO, from: B.from });
  assert.equal(dialled.status, 200, JSON.stringify(dialled.body));
  B.callId = dialled.body.id;
  await until('B joins the conference', seated(B.callId!), { timeoutMs: 30_000, detail });
  // What makes this a test of several nodes: each call on its own node, the conference mixed on A's.
  const db = t.server.database.db;
  const nodeOf = async (callId: string) => (await db.selectFrom('calls').select('node').where('id', '=', callId).executeTakeFirstOrThrow()).node;
  const [nodeOfA, nodeOfB] = [await nodeOf(A.callId!), await nodeOf(B.callId!)];
  assert.ok(nodeOfA && nodeOfB && nodeOfA !== nodeOfB, `the calls are on two nodes: ${nodeOfA}, ${nodeOfB}`);
  const home = await db.selectFrom('conferences').select('node').where('id', '=', conferenceId).executeTakeFirstOrThrow();
  assert.equal(home.node, nodeOfA);
  const recording = await api(B.url!, 'POST', `/v1/calls/${B.callId}/recordings`, {});
  assert.equal(recording.status, 200, JSON.stringify(recording.body));
  const marks: Record<string, number> = { both: Date.now() };
  await sleep(PHASE_MS);
  const muted = await api(B.url!, 'PATCH', `/v1/conferences/${conferenceId}/participants/${B.callId}`, { muted: true });
  assert.equal(muted.status, 200, JSON.stringify(muted.body));
  marks.muted = Date.now();
  await sleep(PHASE_MS);
  // The file is fetched into node B's cache (which checks it), and the home, node A, fetches it into its own.
  const announced = await api(B.url!, 'POST', `/v1/conferences/${conferenceId}/announce`, { play: { url: chirp!.url } });
  assert.equal(announced.status, 200, JSON.stringify(announced.body));
  marks.announced = Date.now();
  await sleep(ANNOUNCE_MS);
  const ended = await api(B.url!, 'POST', `/v1/conferences/${conferenceId}/end`);
  assert.equal(ended.status, 200, JSON.stringify(ended.body));
  marks.end = Date.now();
  // Each call went on to its hangup: its SIPp got our BYE and its scenario passed.
  for (const party of [A, B]) {
    const result = await party.sipp!.done;
    assert.equal(result.code, 0, `SIPp ${party.name}: ${result.errors}\n${detail()}`);
  }
  const done = await api(B.url!, 'GET', `/v1/conferences/${conferenceId}`);
  assert.deepEqual([done.body.status, done.body.participant_count], ['completed', 0]);

  // What each leg was sent, in its recording's time: A's from its answer, B's from its recording's start.
  const heardBy = async (party: Party) => {
    const call = await until(`${party.name}'s call ends with its recording`, async () => {
      const body = (await api(party.url!, 'GET', `/v1/calls/${party.callId}`)).body;
      return body.status === 'completed' && body.recordings?.length > 0 && body;
    }, { timeoutMs: 30_000, detail });
    const recordingId = call.recordings.at(-1) as string;
    const ready = await until(`${party.name}'s recording is ready`, async () => {
      const body = (await api(party.url!, 'GET', `/v1/recordings/${recordingId}`)).body;
      assert.notEqual(body.status, 'failed', JSON.stringify(body));
      return body.status === 'ready' && body;
    }, { timeoutMs: 30_000, detail });
    const media = await fetch(`${party.url}/v1/recordings/${recordingId}/media`, { headers: { authorization: `Bearer ${acct.keys.live}` } });
    assert.equal(media.status, 200, `${party.name}'s recording ${JSON.stringify(ready)}`);
    const origin = party === A ? Date.parse(call.answered_at) : Date.parse(ready.timestamps.recording ?? ready.created_at);
    return { samples: decodeWav(Buffer.from(await media.arrayBuffer())).samples[0]!, at: (mark: number) => Math.max(0, Math.round(((mark - origin) / 1000) * RATE)) };
  };
  const heard = new Map([[A, await heardBy(A)], [B, await heardBy(B)]]);
  const share = (listener: Party, speaker: Party, from: string, to: string) => {
    const { samples, at } = heard.get(listener)!;
    const start = at(marks[from]!) + SETTLE;
    const length = at(marks[to]!) - MARGIN - start;
    assert.ok(length >= RATE, `a second or more of ${listener.name}'s audio between ${from} and ${to}`);
    return toneShare(samples, speaker.hz, start, length);
  };
  const expectations: Array<[string, string, Party, Party, boolean]> = [
    ['both', 'muted', A, B, true], ['both', 'muted', B, A, true], ['both', 'muted', A, A, false], ['both', 'muted', B, B, false],
    // B muted (on node B's request, applied on node A): A hears nothing of B; B still hears A.
    ['muted', 'announced', A, B, false], ['muted', 'announced', B, A, true],
  ];
  for (const [from, to, listener, speaker, expected] of expectations) {
    const measured = share(listener, speaker, from, to);
    ctx.diagnostic(`${from}..${to}: ${listener.name} hears ${speaker.name} (${speaker.hz} Hz): share ${measured.toFixed(3)}`);
    if (expected) assert.ok(measured > 0.3, `${from}..${to}: ${listener.name} hears ${speaker.name}: ${measured}`);
    else assert.ok(measured < 0.02, `${from}..${to}: ${listener.name} does not hear ${speaker.name}: ${measured}`);
  }
  // The announcement made through node B, played on node A's bus: A hears it on its own leg, B over the node-to-node leg.
  for (const party of [A, B]) {
    const { samples, at } = heard.get(party)!;
    const match = matchAudio(CHIRP, samples, samples.length);
    ctx.diagnostic(`${party.name} heard the announced file at ${(match.lag / RATE).toFixed(2)} s (announced at ${(at(marks.announced!) / RATE).toFixed(2)} s): correlation ${match.correlation.toFixed(3)}`);
    assert.ok(match.correlation > MATCHED, `${party.name} heard the announcement played through node B: ${match.correlation}`);
  }
  assert.equal(chirp!.fetches(), 2, 'fetched once by node B (the request) and once by node A (the home), each into its own cache');
});

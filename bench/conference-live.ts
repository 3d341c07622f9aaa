// BENCH_CONF_LIVE=1 npm run bench:conference — live conferences against SIPp: a real server in
// this process (startServer, SQLite unless BENCH_DATABASE_URL, enterprise plan) with SIP trunks
// to BENCH_CONF_PEERS SIPp peers (default 10) on 127.0.0.1. For each step (BENCH_CONF_STEPS,
// default 5,10,20 conferences) it POSTs conferences x BENCH_CONF_SIZE (default 5) live calls
// through the HTTP API, each running the flow `conference` (by name, no beep) then `hangup`;
// conference c's legs all go to peer c % PEERS. SIPp answers and echoes every RTP packet
// (-rtp_echo, uas-answer-echo.xml), so each leg takes in and sends 50 packets/s: the mix we send
// comes back and is what that leg says into the room (silence, as nothing seeds it: the mix's
// cost does not depend on the samples). Several peers for the reason bench/sip.ts gives: one
// SIPp echo socket for every call overflows when the shared machine deschedules it.
//
// Once every leg is seated (participant_count over the step's conferences) and after
// BENCH_CONF_WARMUP s (default 2), a BENCH_CONF_WINDOW s window (default 5) reports: this
// process's CPU per participant (HTTP, SIP, database and media) and the media threads' alone,
// per participant and per packet; SIPp's CPU; main loop and worst media loop p99; late/skipped
// 20 ms ticks (whole step); RTP lost and late over the whole step from our engine's per-call
// counters (RFC 3550 sequence accounting on the echoed mix: a packet SIPp did not echo, or
// whose echo we did not get, is lost); and the kernel's drops on our RTP sockets and SIPp's.
// Then POST /v1/conferences/{id}/end for each: every leg goes on to `hangup`, SIPp exits 0
// once each of its calls got our BYE (every SIPp is killed after 30 s otherwise).
//
// The delay the mix adds, on the live path: beside each step's conferences, one probe
// conference of 3 live legs whose SIPp (signalling only) answers with an SDP naming a socket of
// this bench, so that socket is the leg's phone: one streams silence at the 20 ms pace with a
// click every half second (lib/mix-delay.ts), the two others time when it comes out to them.
// That is mouth to ear through our engine under the step's load, jitter buffer and tick
// included; the engine-only mode's two-party bridge figure is the reference without a mix.
//
// A step breaks when a call was refused, a leg was not seated or a call did not end, a packet
// was lost or late (the issue's measure), a tick was skipped, or a SIPp failed; the loops'
// p99 is reported beside it (on a shared machine it passes 20 ms before any packet suffers).
// Per participant figures divide by every leg on the engine, the probe's included. Every wait
// is bounded.
// RTP ports: ours BENCH_CONF_RTP (default 61500-62399), SIPp's and the probe's above that up to
// 62999.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { LiveSipCarrier } from '../src/carriers/sip/live-carrier.ts';
import { serializeRtp } from '../src/carriers/rtp/packet.ts';
import { freshDataDir } from './lib/spawn.ts';
import { startLiveBenchServer } from './lib/live-server.ts';
import { freeUdpPort, SCENARIOS, waitForListener } from '../test/helpers/sipp.ts';
import { UdpDropSampler } from './lib/udp-drops.ts';
import { click, describeDelays, quiet, timeClicks } from './lib/mix-delay.ts';
import { cpuMsOf, ownCpuMs, sleep, until } from './lib/measure.ts';

const STEPS = (process.env.BENCH_CONF_STEPS ?? '5,10,20').split(',').map(Number).filter((n) => n > 0);
const SIZE = Number(process.env.BENCH_CONF_SIZE ?? 5);
const WARMUP = Number(process.env.BENCH_CONF_WARMUP ?? 2);
const WINDOW = Number(process.env.BENCH_CONF_WINDOW ?? 5);
const PEERS = Math.max(1, Math.min(20, Number(process.env.BENCH_CONF_PEERS ?? 10)));
const [RTP_MIN, RTP_MAX] = (process.env.BENCH_CONF_RTP ?? '61500-62399').split('-').map(Number) as [number, number];
/** SIPp media ports: 4 per peer (its echo socket and the one beside it), then 3 probe phones. */
const SIPP_MEDIA_BASE = RTP_MAX + 101;
const PROBE_PORT_BASE = SIPP_MEDIA_BASE + 4 * PEERS + 4 * 3;
const PROBE_LEGS = 3;
/** The live number bound to trunk j (peers first, then the probe's). */
const fromOf = (trunk: number) => `+1415555${String(200 + trunk).padStart(4, '0')}`;
interface Sipp { child: ChildProcess; exited: Promise<number | null> }

function startSipp(scenario: string, calls: number, port: number, mediaPort: number, echo: boolean): Sipp {
  const child = spawn('sipp', [
    '-sf', scenario, '-i', '127.0.0.1', '-p', String(port), '-mi', '127.0.0.1', '-mp', String(mediaPort), ...(echo ? ['-rtp_echo'] : []),
    '-t', 'u1', '-m', String(calls), '-nostdin', '-timeout', `${WARMUP + WINDOW + 180}s`, '-timeout_error', '-max_socket', String(calls + 50),
  ], { stdio: ['ignore', 'ignore', 'ignore'] }); // its overload warnings would bury the figures; its exit code is reported
  return { child, exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
}

/** uas-answer-echo.xml answering with an SDP that names `port`: the bench's socket is the leg's phone. */
function probeScenario(dir: string, port: number): string {
  const path = join(dir, `uas-probe-${port}.xml`);
  writeFileSync(path, readFileSync(join(SCENARIOS, 'uas-answer-echo.xml'), 'utf8').replace('m=audio [media_port]', `m=audio ${port}`));
  return path;
}

/** A probe leg's phone: a socket that learns our RTP port from the mix we send it. */
async function phone(port: number): Promise<{ socket: Socket; ours: () => number | undefined }> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(port, '127.0.0.1', resolve));
  let ours: number | undefined;
  socket.on('message', (_, from) => { ours ??= from.port; });
  return { socket, ours: () => ours };
}

type Api = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

interface Ctx { api: Api; carrier: LiveSipCarrier; mainLoop: ReturnType<typeof monitorEventLoopDelay>; trunkPorts: number[]; probeTrunkPorts: number[]; dataDir: string }

async function step(index: number, conferences: number, ctx: Ctx) {
  const legs = conferences * SIZE;
  const prefix = `bench-${index}-`;
  // Peer j carries the legs of conferences j, j + PEERS, ...; a peer with none is not started.
  const peers = ctx.trunkPorts.map((port, j) => ({ port, j, calls: SIZE * (Math.floor(conferences / PEERS) + (j < conferences % PEERS ? 1 : 0)) })).filter((p) => p.calls > 0);
  const sipps = peers.map((peer) => startSipp(join(SCENARIOS, 'uas-answer-echo.xml'), peer.calls, peer.port, SIPP_MEDIA_BASE + 4 * peer.j, true));
  const phones = await Promise.all(Array.from({ length: PROBE_LEGS }, (_, k) => phone(PROBE_PORT_BASE + 2 * k)));
  const probeSipps = ctx.probeTrunkPorts.map((port, k) => startSipp(probeScenario(ctx.dataDir, PROBE_PORT_BASE + 2 * k), 1, port, SIPP_MEDIA_BASE + 4 * PEERS + 4 * k, false));
  const all = [...sipps, ...probeSipps];
  try {
    for (const port of [...peers.map((p) => p.port), ...ctx.probeTrunkPorts]) await waitForListener(port, 'udp');
    const sippMediaPorts = new Set(peers.flatMap((p) => [SIPP_MEDIA_BASE + 4 * p.j, SIPP_MEDIA_BASE + 4 * p.j + 2]));
    const oursDrops = new UdpDropSampler((port) => port >= RTP_MIN && port <= RTP_MAX);
    const sippDrops = new UdpDropSampler((port) => sippMediaPorts.has(port));
    oursDrops.start();
    sippDrops.start();
    const before = ctx.carrier.mediaTotals();
    await ctx.carrier.mediaEngineStats({ reset: true });

    const flow = (name: string) => [{ conference: { name, beep: false, max_participants: SIZE } }, { hangup: {} }];
    const call = (from: string, i: number, name: string) => ctx.api('POST', '/v1/calls', { from, to: `+1415556${String(i).padStart(4, '0')}`, flow: flow(name), time_limit: WARMUP + WINDOW + 120 });
    const placed = await Promise.all(Array.from({ length: legs }, (_, i) => call(fromOf(Math.floor(i / SIZE) % PEERS), i, `${prefix}${Math.floor(i / SIZE)}`)));
    const probe = await Promise.all(ctx.probeTrunkPorts.map((_, k) => call(fromOf(PEERS + k), legs + k, `${prefix}probe`)));
    const refused = [...placed, ...probe].filter((r) => r.status !== 200);
    const callIds = placed.filter((r) => r.status === 200).map((r) => r.body.id as string);

    // Seated: the participants of the step's conferences, by the API.
    let seated = 0;
    let ids: string[] = [];
    await until(async () => {
      const listed: { id: string; name: string; participant_count: number }[] = [];
      for (let page = '', more = true; more;) {
        const body = (await ctx.api('GET', `/v1/conferences?status=in_progress&limit=100${page}`)).body;
        listed.push(...body.data);
        more = body.has_more && body.data.length > 0;
        page = `&starting_after=${body.data.at(-1)?.id}`;
      }
      const ours = listed.filter((c) => c.name.startsWith(prefix) && !c.name.endsWith('probe'));
      ids = listed.filter((c) => c.name.startsWith(prefix)).map((c) => c.id);
      seated = ours.reduce((sum, c) => sum + c.participant_count, 0);
      return seated >= legs && ids.length === conferences + 1;
    }, 90);

    // The probe: the first phone that hears us clicks, the others time the click.
    const delays: number[] = [];
    await until(() => phones.every((p) => p.ours() !== undefined), 10);
    let clickAt: number | null = null;
    const [talker, ...listeners] = phones;
    for (const listener of listeners) timeClicks(listener!.socket, () => clickAt, delays);
    let talking = true;
    const talk = (async () => {
      const target = talker!.ours();
      if (target === undefined) return;
      const t0 = performance.now();
      for (let k = 0; talking; k++) {
        const loud = k % 25 === 10;
        if (loud) clickAt = performance.now();
        talker!.socket.send(serializeRtp({ payloadType: 0, marker: k === 0, sequence: k & 0xffff, timestamp: k * 160, ssrc: 9, payload: loud ? click : quiet }), target, '127.0.0.1');
        await sleep(t0 + (k + 1) * 20 - performance.now());
      }
    })();

    await sleep(WARMUP * 1000);
    const engine0 = await ctx.carrier.mediaEngineStats({ reset: true });
    ctx.mainLoop.reset();
    const sippCpuMs = () => sipps.reduce((sum, s) => sum + cpuMsOf(s.child.pid!), 0);
    const cpu0 = ownCpuMs();
    const sipp0 = sippCpuMs();
    const delaysBefore = delays.length;
    const t0 = performance.now();
    await sleep(WINDOW * 1000);
    const seconds = (performance.now() - t0) / 1000;
    const cpuPct = (ownCpuMs() - cpu0) / 10 / seconds;
    const sippCpuPct = (sippCpuMs() - sipp0) / 10 / seconds;
    const mainP99 = ctx.mainLoop.percentile(99) / 1e6;
    const engine = await ctx.carrier.mediaEngineStats();
    const windowDelays = delays.slice(delaysBefore);
    talking = false;
    await talk;
    const mediaCpuMs = (engine.threadCpuMs ?? NaN) - (engine0.threadCpuMs ?? NaN);
    const packets = engine.packetsReceived - engine0.packetsReceived + engine.packetsSent - engine0.packetsSent;

    // End every conference: its legs go on to `hangup`, and each SIPp gets all its BYEs.
    await Promise.all(ids.map((id) => ctx.api('POST', `/v1/conferences/${id}/end`)));
    const ended = await until(async () => (await ctx.carrier.mediaEngineStats()).sessions === 0, 60);
    const final = await ctx.carrier.mediaEngineStats();
    const exits = await Promise.all(all.map(async (sipp) => {
      const code = await Promise.race([sipp.exited, sleep(30_000).then(() => null)]);
      if (code === null) sipp.child.kill('SIGKILL');
      return code;
    }));
    const after = ctx.carrier.mediaTotals();
    const lost = after.packetsLost - before.packetsLost;
    const late = after.latePackets - before.latePackets;
    const received = after.packetsReceived - before.packetsReceived;
    const skipped = engine0.ticker.skippedTicks + final.ticker.skippedTicks;
    const lateTicks = engine0.ticker.lateTicks + final.ticker.lateTicks;
    // How the calls that did not complete ended (status, hangup cause, source, SIP code), counted.
    const otherwise = new Map<string, number>();
    for (const id of callIds) {
      const c = (await ctx.api('GET', `/v1/calls/${id}`)).body as { status: string; hangup_cause: string | null; hangup_source: string | null; sip_status: number | null };
      if (c.status === 'completed') continue;
      const how = [c.status, c.hangup_cause, c.hangup_source, c.sip_status && `SIP ${c.sip_status}`].filter(Boolean).join(' ');
      otherwise.set(how, (otherwise.get(how) ?? 0) + 1);
    }
    const droppedOurs = oursDrops.stop();
    const droppedSipp = sippDrops.stop();
    const broke: string[] = [];
    if (refused.length) broke.push(`${refused.length} calls refused (${refused[0]!.status} ${refused[0]!.body.code})`);
    if (seated < legs) broke.push(`${legs - seated} legs not seated`);
    if (!ended) broke.push('calls still up 60 s after the end');
    if (otherwise.size) broke.push(`calls not completed: ${[...otherwise].map(([how, count]) => `${count} ${how}`).join(', ')}`);
    if (lost > 0) broke.push(`${lost} packets lost`);
    if (late > 0) broke.push(`${late} packets late`);
    if (skipped > 0) broke.push(`${skipped} ticks skipped`);
    const badExits = exits.filter((code) => code !== 0);
    if (badExits.length) broke.push(`${badExits.length} SIPp exited ${badExits.map((c) => c ?? 'late (killed)').join(',')}`);

    console.log(`bench:conference live  ${conferences} conferences x ${SIZE} = ${legs} legs (+ a ${PROBE_LEGS}-leg probe) on ${engine.workers} media workers, ${peers.length} SIPp peers; window ${seconds.toFixed(1)} s; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    const participants = seated + PROBE_LEGS;
    console.log(`  seated ${seated}/${legs}; this process ${cpuPct.toFixed(1)}% of a core, ${(cpuPct / participants).toFixed(3)}% per participant; media threads ${(mediaCpuMs / 10 / seconds).toFixed(1)}%, ${(mediaCpuMs / 10 / seconds / participants).toFixed(3)}% per participant, ${((mediaCpuMs * 1000) / Math.max(1, packets)).toFixed(2)} µs per packet (${packets} in or out); SIPp ${sippCpuPct.toFixed(0)}%`);
    console.log(`  main loop p99 ${mainP99.toFixed(1)} ms; worst media loop p99 ${engine.loopDelayP99Ms.toFixed(1)} ms; ticks late/skipped ${lateTicks}/${skipped} (whole step)`);
    console.log(`  RTP lost ${lost}, late ${late} of ${received} received (whole step); kernel drops ours/SIPp ${droppedOurs}/${droppedSipp}`);
    console.log(`  ${describeDelays('click through the live probe conference (mouth to ear, under this load)', windowDelays)}`);
    console.log(`  ${broke.length ? `BREAKS: ${broke.join('; ')}` : 'ok'}`);
    return { conferences, broke };
  } finally {
    for (const sipp of all) if (sipp.child.exitCode === null) sipp.child.kill('SIGKILL');
    for (const p of phones) p.socket.close();
  }
}

async function main(): Promise<void> {
  if (spawnSync('sh', ['-c', 'command -v sipp']).status !== 0) throw new Error('the live bench:conference needs SIPp (sip-tester)');
  const dataDir = freshDataDir('conference');
  const trunkPorts: number[] = [];
  for (let j = 0; j < PEERS; j++) trunkPorts.push(await freeUdpPort());
  const probeTrunkPorts: number[] = [];
  for (let k = 0; k < PROBE_LEGS; k++) probeTrunkPorts.push(await freeUdpPort());
  const trunks = [...trunkPorts, ...probeTrunkPorts];
  const { server, created } = await startLiveBenchServer({
    dataDir, phoneNumber: fromOf(0), trunk: 'sipp0', moreNumbers: trunks.slice(1).map((_, j) => ({ phoneNumber: fromOf(j + 1), trunk: `sipp${j + 1}` })), carriersYaml: [
      'sip:',
      `  listen: { host: 127.0.0.1, udp_port: ${await freeUdpPort()} }`,
      '  public_host: 127.0.0.1',
      `  rtp: { port_min: ${RTP_MIN}, port_max: ${RTP_MAX} }`,
      '  trunks:',
      ...trunks.map((port, j) => `    - { name: sipp${j}, host: 127.0.0.1, port: ${port}, codecs: [PCMU] }`),
    ],
  });
  const carrier = server.built.services.voiceCarriers.forMode('live') as unknown as LiveSipCarrier;
  const api: Api = async (method, path, body) => {
    const res = await fetch(server.url + path, { method, headers: { authorization: `Bearer ${created.keys.live}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    return { status: res.status, body: await res.json() };
  };
  const mainLoop = monitorEventLoopDelay({ resolution: 5 });
  mainLoop.enable();
  console.log(`bench:conference live  conferences of ${SIZE} live legs against ${PEERS} SIPp peers (answer, echo RTP); ${process.env.BENCH_DATABASE_URL ? 'PostgreSQL' : 'SQLite'}; steps ${STEPS.join(', ')}; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const results = [];
  try {
    for (const [index, conferences] of STEPS.entries()) results.push(await step(index, conferences, { api, carrier, mainLoop, trunkPorts, probeTrunkPorts, dataDir }));
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const firstBreak = results.find((r) => r.broke.length);
  console.log(firstBreak ? `  first break at ${firstBreak.conferences} conferences` : `  no break up to ${results.at(-1)?.conferences} conferences`);
  console.log(`  load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
}

await main();

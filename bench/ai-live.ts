// npm run bench:ai-live — the AI receptionist's turn latency on live SIP calls: from the
// moment a caller stops speaking to the moment the agent starts speaking.
//
// A real server runs in this process (startServer, SQLite unless BENCH_DATABASE_URL, fresh
// data dir) with one SIP trunk and the speech endpoints of a local server implementing
// OpenAI's audio API shapes (test/helpers/openai-audio.ts: it "recognises" the flite clips the
// bench teaches it, answering at once, so the figure holds no recogniser time: add your
// endpoint's). A live number is answered by the fixture's agent (test/fixtures/ai, its
// knowledge pushed). SIPp calls in BENCH_AI_LIVE_CALLS times (default 4), one call at a time,
// streaming a caller who says three questions and a goodbye (flite), each line
// BENCH_AI_LIVE_GAP seconds after the previous (default 12 with the endpoint's voice, 20
// with eSpeak NG), and the agent hangs up after the goodbye.
//
// The latency is read from the call's own recording (the media worker's WAV of every
// answered call: the caller on channel 0, what we sent on channel 1), in 20 ms frames: the end
// of each caller line (the last voiced frame before a second of quiet) to the first voiced
// frame the agent sends after it. It includes the quiet that decides the caller has finished
// (short after a complete line, long after one that trails off: src/telephony/end-of-utterance.ts),
// the speech-to-text request, the engine's reply, the database writes, the text-to-speech of
// the reply's first sentence and the media start. Run with BENCH_AI_LIVE_TTS=endpoint, espeak or both
// (default): the agent speaks with the endpoint (fast, fake) or with the embedded eSpeak NG.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeWav } from '../src/media/wav.ts';
import { decodeG711, encodeG711 } from '../src/carriers/rtp/g711.ts';
import { toLineRate } from '../src/media/resample.ts';
import { readPcm16Wav } from '../src/media/wav.ts';
import { freshDataDir } from './lib/spawn.ts';
import { startLiveBenchServer } from './lib/live-server.ts';
import { freeUdpPort, runSipp, SCENARIOS } from '../test/helpers/sipp.ts';
import { writeRtpPcap } from '../test/helpers/pcap.ts';
import { startFakeOpenAiAudio } from '../test/helpers/openai-audio.ts';
import { ALWAYS_OPEN, fixture, fixtureDocuments } from '../test/helpers/ai.ts';

const CALLS = Number(process.env.BENCH_AI_LIVE_CALLS ?? 4);
const MODES = (process.env.BENCH_AI_LIVE_TTS ?? 'both') === 'both' ? ['endpoint', 'espeak'] : [process.env.BENCH_AI_LIVE_TTS!];
const NUMBER = '+14155550142';
const KEY = 'sk-bench-ai-live';
const RATE = 8000;
const FRAME = 160;
const VOICED_RMS = 500;
/** The server's RTP ports, "min-max" (BENCH_AI_LIVE_RTP): keep clear of other work on a shared machine. */
const [RTP_MIN, RTP_MAX] = (process.env.BENCH_AI_LIVE_RTP ?? '44000-44998').split('-').map(Number) as [number, number];
const LINES = ['Hi, what are your hours on Wednesday?', 'Where are you located?', 'Is there parking at your office?', 'Okay, thanks so much. Goodbye.'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function flite(text: string): Int16Array {
  const file = join(mkdtempSync(join(tmpdir(), 'bench-flite-')), 'line.wav');
  const run = spawnSync('flite', ['-t', text, '-o', file]);
  if (run.status !== 0) throw new Error(`flite failed: ${run.stderr}`);
  const { sampleRate, samples } = readPcm16Wav(readFileSync(file));
  return toLineRate(samples, sampleRate);
}

const onTheLine = (pcm: Int16Array) => decodeG711('PCMU', encodeG711('PCMU', pcm));

/** Voiced 20 ms frames of a channel. */
function voiced(pcm: Int16Array): boolean[] {
  const out: boolean[] = [];
  for (let at = 0; at + FRAME <= pcm.length; at += FRAME) {
    let sum = 0;
    for (let i = at; i < at + FRAME; i++) sum += (pcm[i] as number) ** 2;
    out.push(Math.sqrt(sum / FRAME) > VOICED_RMS);
  }
  return out;
}

/** Seconds from each caller line's end to the agent's next voiced frame. */
function turnLatencies(caller: Int16Array, agent: Int16Array): { latencies: number[]; overlapped: number } {
  const c = voiced(caller);
  const a = voiced(agent);
  const quietFrames = 50; // a second of quiet ends a line
  const latencies: number[] = [];
  let overlapped = 0;
  for (let f = 0; f < c.length; f++) {
    if (!c[f]) continue;
    // f is voiced: is it the last voiced frame before a second of quiet?
    let quiet = true;
    for (let g = f + 1; g <= f + quietFrames && g < c.length; g++) if (c[g]) quiet = false;
    if (!quiet) continue;
    if (a[f]) {
      overlapped++;
      continue;
    }
    const onset = a.findIndex((v, g) => g > f && v);
    if (onset > f && onset - f < 15 * 50) latencies.push((onset - f) * 0.02);
  }
  return { latencies, overlapped };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function run(mode: string): Promise<number[]> {
  const gap = Number(process.env.BENCH_AI_LIVE_GAP ?? (mode === 'espeak' ? 20 : 12));
  const api = await startFakeOpenAiAudio(KEY);
  const clips = LINES.map((line) => flite(line));
  LINES.forEach((line, i) => api.teach(line, onTheLine(clips[i]!)));
  const dataDir = freshDataDir('ai-live');
  const sipPort = await freeUdpPort();
  process.env.BENCH_AI_LIVE_KEY = KEY;
  const { server, created, number } = await startLiveBenchServer({
    dataDir, phoneNumber: NUMBER, trunk: 'carrier', carriersYaml: [
      'sip:',
      `  listen: { host: 127.0.0.1, udp_port: ${sipPort} }`,
      '  public_host: 127.0.0.1',
      `  rtp: { port_min: ${RTP_MIN}, port_max: ${RTP_MAX} }`,
      '  trunks:',
      `    - { name: carrier, host: 127.0.0.1, port: ${await freeUdpPort()}, inbound_sources: [127.0.0.1/32], codecs: [PCMU] }`,
      'speech:',
      ...(mode === 'endpoint' ? [`  tts: { base_url: "${api.baseUrl}", api_key: "env:BENCH_AI_LIVE_KEY", model: tts-1, voice: nova }`] : []),
      `  stt: { base_url: "${api.baseUrl}", api_key: "env:BENCH_AI_LIVE_KEY", model: whisper-1 }`,
    ],
  });
  const auth = { authorization: `Bearer ${created.keys.live}`, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<{ id: string }>;
  };
  const agent = await post('/v1/ai/agents', {
    name: fixture.agent.name, greeting: fixture.agent.greeting, transfer_number: fixture.agent.transferNumber,
    business_hours: ALWAYS_OPEN, number_ids: [number.number!.id],
  });
  await post(`/v1/ai/agents/${agent.id}/knowledge`, { documents: fixtureDocuments().map(({ key: _k, ...d }) => d) });

  // The caller: quiet while the greeting plays, then a line every `gap` seconds.
  const dir = mkdtempSync(join(tmpdir(), 'bench-ai-live-'));
  const seconds = 8 + gap * LINES.length + 10;
  const line = new Int16Array(seconds * RATE);
  clips.forEach((clip, i) => line.set(clip, Math.round((8 + gap * i) * RATE)));
  const payloads: Uint8Array[] = [];
  const ulaw = encodeG711('PCMU', line);
  for (let at = 0; at + FRAME <= ulaw.length; at += FRAME) payloads.push(ulaw.subarray(at, at + FRAME));
  writeRtpPcap(join(dir, 'caller.pcap'), payloads);
  const scenario = join(dir, 'uac-inbound-speak.xml');
  writeFileSync(scenario, readFileSync(join(SCENARIOS, 'uac-inbound.xml'), 'utf8')
    .replace('<recv request="BYE"/>', `<nop><action><exec play_pcap_audio="${join(dir, 'caller.pcap')}"/></action></nop>\n  <recv request="BYE"/>`));

  const all: number[] = [];
  let overlappedTotal = 0;
  // One call first, not reported: the speech engine compiles and the knowledge index loads.
  for (let n = 0; n <= CALLS; n++) {
    const sipp = await runSipp({ scenario, remote: `127.0.0.1:${sipPort}`, args: ['-s', NUMBER], timeoutSeconds: seconds + 30 });
    const result = await sipp.done;
    if (result.code !== 0) console.log(`  call ${n}: SIPp exited ${result.code}: ${result.errors.split('\n').slice(0, 3).join(' ')}`);
    const calls = await (await fetch(`${server.url}/v1/calls?limit=1`, { headers: auth })).json() as { data: Array<{ id: string; status: string }> };
    const callId = calls.data[0]!.id;
    // The recording of the call is complete once the call has ended on our side.
    for (let i = 0; i < 50; i++) {
      const call = await (await fetch(`${server.url}/v1/calls/${callId}`, { headers: auth })).json() as { status: string };
      if (call.status === 'completed') break;
      await sleep(200);
    }
    await sleep(1000);
    const wav = decodeWav(readFileSync(join(dataDir, 'live-media', `${callId}.wav`)));
    const { latencies, overlapped } = turnLatencies(wav.samples[0]!, wav.samples[1]!);
    if (n === 0) continue;
    overlappedTotal += overlapped;
    all.push(...latencies);
    console.log(`  ${mode} call ${n}: ${latencies.map((s) => s.toFixed(2)).join(' ')} s${overlapped ? ` (${overlapped} lines ended while the agent spoke)` : ''}`);
  }
  await server.close();
  await api.close();
  rmSync(dataDir, { recursive: true, force: true });
  if (overlappedTotal) console.log(`  ${overlappedTotal} caller lines ended over the agent's voice and are not counted`);
  return all;
}

async function main(): Promise<void> {
  for (const binary of ['sipp', 'flite']) {
    if (spawnSync('sh', ['-c', `command -v ${binary}`]).status !== 0) throw new Error(`bench:ai-live needs ${binary}; .ci/run installs it`);
  }
  console.log(`bench:ai-live  turn latency (caller stops speaking -> agent starts speaking), ${CALLS} calls of ${LINES.length} caller lines per voice, ${process.env.BENCH_DATABASE_URL ? 'PostgreSQL' : 'SQLite'}`);
  const rows: string[] = [];
  for (const mode of MODES) {
    const latencies = (await run(mode)).sort((a, b) => a - b);
    const voice = mode === 'espeak' ? 'eSpeak NG (embedded)' : 'speech endpoint (local, instant)';
    rows.push(`  ${voice.padEnd(34)} turns ${String(latencies.length).padStart(3)}  p50 ${percentile(latencies, 50).toFixed(2)} s  p95 ${percentile(latencies, 95).toFixed(2)} s  max ${(latencies.at(-1) ?? NaN).toFixed(2)} s`);
  }
  console.log('\nturn latency by voice:');
  for (const row of rows) console.log(row);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

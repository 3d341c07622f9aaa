#!/usr/bin/env node
// Runs the whole suite with node:test. Node 20's --test takes no globs and sorts its files, so
// we collect and order the files ourselves. Pass paths or substrings to run a subset:
//   npm test -- test/platform        npm test -- idempotency        npm test -- '!test/sip'
// Each file runs in its own process. Most of a file's wall time is spent waiting (on the
// simulator, on SIP peers, on webhooks), so by default twice as many files run at once as
// there are cores; TEST_CONCURRENCY overrides it (1 runs the files one after another).
import { mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { cpuReport } from './test-cpu-report.mjs';
import { buildMirror } from './build-mirror.mjs';

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...collect(path));
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

// Files start in this order (run-test-files.mjs keeps it): the ones that wait longest on real
// time (live SIP peers and media, then simulated calls) first, so a run does not end with one
// of them running alone.
// TEST_LIVE_LAST=1 starts the live-peer files last instead: CI_SERIAL=0 CI gives it to one of
// its two database halves, so the halves' live SIP files (the most timing-sensitive) do not
// run at the same time.
// Within test/sip/ the slowest files (by wall time measured with TEST_CPU_REPORT=1, 35 to 55 s
// each; the median live file takes 13 s) start first: started in name order, tls.test.ts
// (48 s) came near the end and the live files ran on about 24 s past what longest-first takes.
const SLOWEST_LIVE = ['live-flow-speech', 'tls.test', 'ai-receptionist', 'speech-calls', 'live-calls', 'bridged-transfer', 'inbound-calls']
  .map((name) => `test/sip/${name}`);
const START_FIRST = process.env.TEST_LIVE_LAST ? ['test/voice/'] : [...SLOWEST_LIVE, 'test/sip/', 'test/voice/'];
const START_LAST = process.env.TEST_LIVE_LAST ? ['test/sip/'] : [];
function startRank(file) {
  const path = file.split('\\').join('/');
  if (START_LAST.some((dir) => path.startsWith(dir))) return START_FIRST.length + 1;
  const at = START_FIRST.findIndex((dir) => path.startsWith(dir));
  return at === -1 ? START_FIRST.length : at;
}

// A filter that starts with `!` leaves out the files it matches: npm test -- '!test/sip'.
// TEST_LIST_ONLY=1 prints the files a selection would run, and runs none.
const args = process.argv.slice(2);
const wanted = args.filter((x) => !x.startsWith('!'));
const unwanted = args.filter((x) => x.startsWith('!')).map((x) => x.slice(1));
const files = collect('test')
  .filter((f) => wanted.length === 0 || wanted.some((x) => f.includes(x)))
  .filter((f) => !unwanted.some((x) => f.includes(x)))
  .sort((a, b) => startRank(a) - startRank(b) || a.localeCompare(b));
if (files.length === 0) {
  console.error('no test files matched', args);
  process.exit(1);
}
// Capped: every file's server holds its own PostgreSQL connections.
const concurrency = process.env.TEST_CONCURRENCY || String(Math.min(8, Math.max(2, availableParallelism() * 2)));
if (process.env.TEST_LIST_ONLY) { console.log(files.join("\n")); process.exit(0); }
// TEST_CPU_REPORT=1 prints, after the run, the CPU time each file cost (with the CLI and
// server processes it spawned): see scripts/test-cpu-probe.mjs.
const cpuEnv = {};
let cpuDir;
if (process.env.TEST_CPU_REPORT) {
  cpuDir = mkdtempSync(join(tmpdir(), 'switchboard-test-cpu-'));
  cpuEnv.TEST_CPU_LOG = join(cpuDir, 'cpu.jsonl');
  cpuEnv.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --import ${resolve('scripts/test-cpu-probe.mjs')}`.trim();
}
// Every database transaction has a deadline (5 s by default) after which it is rolled back
// and answered 503: a safety net for production, which test/platform/transaction-deadline
// checks with its own settings. A low-lane file at nice 19 on a loaded 2-core machine can
// take that long for an ordinary request, so the other files' servers get 30 s unless the
// caller sets it.
const env = { SWITCHBOARD_TRANSACTION_TIMEOUT_MS: '30000', ...process.env, ...cpuEnv, NODE_ENV: 'test' };

// The files run precompiled, from the mirror scripts/build-mirror.mjs (re)builds now: loading
// the sources through tsx's hooks cost every test process, and every CLI and server process
// a test spawns, about 2.3 s of CPU (0.9 s precompiled). TEST_BUILD=0 runs the checkout's
// .ts files through tsx instead, as before.
const precompiled = process.env.TEST_BUILD !== '0';
const cwd = precompiled ? await buildMirror() : process.cwd();
const runnerArgs = precompiled ? [] : ['--import', 'tsx'];
const runnable = (file) => (precompiled ? file.replace(/\.ts$/, '.js') : file);

// Two lanes, side by side, when the selection has both kinds of file. The real-time files run
// TEST_REALTIME_CONCURRENCY at a time (default 2) at normal priority: the live-peer files
// (test/sip/: real SIPp, baresip and Kamailio, media in real time) and the simulated calls
// (test/voice/: the sandbox at a SWITCHBOARD_SIM_TIME_SCALE, so a gather's timeout or a
// caller script's wait is a window of real time). Both flake when they get no CPU: at a
// lower priority on a loaded machine the voice flow tests missed their windows. The others
// (HTTP, store, webhooks, carriers over fakes, unit tests) run TEST_CONCURRENCY at a time at
// the lowest priority (TEST_NICE, default 19). Most of a real-time file's time is spent waiting
// on peers and timers, so with only them running the cores sat half idle; the low lane
// fills that idle time without taking CPU the real-time files ask for. At nice 10 the four
// low-lane files still took about 40% of a core from them (weight 110 each against 1024),
// and with the precompiled run feeding the low lane faster, a bridged SIP call's relayed
// media lost packets; at 19 (weight 15) they take what the real-time files leave.
// A few files outside those folders are real-time too: the SMPP crash test kills a server
// while messages are in flight on a 3-per-second link and waits for its recovery; the sandbox
// conference's mixer runs on the wall clock (scale 1), so at nice 19 on a loaded machine two
// participants' lines, said two sandbox seconds apart, were mixed in the wrong order; the
// sandbox monitor mixes a supervisor into a bridge the same way; and a worker answering after
// its caller hung up needs the caller's hang-up to land within the worker's 3 s ring; the
// transaction deadline's test measures that others are answered while a transaction is held.
// TEST_LANES=0 runs every file in one lane, as TEST_LIVE_LAST=1 does (it orders the live-peer
// files last instead).
const REAL_TIME_FILES = ['test/carriers/smpp-crash.test.ts', 'test/contact-center/conference-sandbox.test.ts', 'test/contact-center/monitor-sandbox.test.ts', 'test/contact-center/offer-after-abandon.test.ts',
  'test/platform/transaction-deadline.test.ts'];
const isRealTime = (file) => {
  const path = file.split('\\').join('/');
  return /^test\/(sip|voice)\//.test(path) || REAL_TIME_FILES.includes(path);
};
const realTime = files.filter(isRealTime);
const others = files.filter((f) => !isRealTime(f));
const lanes = process.env.TEST_LANES !== '0' && !process.env.TEST_LIVE_LAST && realTime.length > 0 && others.length > 0;
const first = lanes
  ? await runLanes([
    { name: 'other files', files: others, concurrency, nice: process.env.TEST_NICE ?? '19' },
    { name: 'real-time files (test/sip/, test/voice/, the SMPP crash test)', files: realTime, concurrency: process.env.TEST_REALTIME_CONCURRENCY || '2', buffered: true },
  ])
  : await runLanes([{ name: 'files', files, concurrency }]);
const outcome = first.failed ? await runFailuresAgain(first) : 0;

if (cpuDir) {
  console.log(cpuReport(cpuEnv.TEST_CPU_LOG, { top: Number(process.env.TEST_CPU_TOP) || 40 }));
  rmSync(cpuDir, { recursive: true, force: true });
}
process.exit(outcome);

/** One scripts/run-test-files.mjs process; a buffered lane's output waits in a file. */
function runLane({ files, concurrency, nice, buffered, summaryFile }) {
  const output = buffered ? join(mkdtempSync(join(tmpdir(), 'switchboard-test-lane-')), 'out.txt') : undefined;
  const child = spawn(
    process.execPath,
    [...runnerArgs, 'scripts/run-test-files.mjs', ...files.map(runnable)],
    {
      cwd,
      stdio: ['ignore', output ? openSync(output, 'w') : 'inherit', 'inherit'],
      env: { ...env, TEST_CONCURRENCY: concurrency, TEST_NICE: nice ?? '', TEST_SUMMARY_FILE: summaryFile ?? '' },
    },
  );
  return new Promise((done) => child.on('close', (code) => done({ status: code ?? 1, output })));
}

/** Runs the lanes at once, prints the buffered ones after, and the totals of them all. */
async function runLanes(specs) {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-test-totals-'));
  console.log(`== ${specs.map((l) => `${l.files.length} ${l.name}, ${l.concurrency} at a time${l.nice ? ` (nice ${l.nice})` : ''}`).join('; ')}`);
  const results = await Promise.all(specs.map((spec, i) => runLane({ ...spec, summaryFile: join(dir, `${i}.json`) })));
  const totals = {};
  const failures = [];
  const laneFiles = [];
  specs.forEach((spec, i) => {
    if (results[i].output) {
      console.log(`== ${spec.name}:`);
      process.stdout.write(readFileSync(results[i].output));
      rmSync(results[i].output, { force: true });
    }
    let lane = {};
    try { lane = JSON.parse(readFileSync(join(dir, `${i}.json`), 'utf8')); } catch { /* the lane died before its end */ }
    failures.push(...(lane.failures ?? []));
    laneFiles[i] = lane.failedFiles;
    for (const [key, n] of Object.entries(lane)) if (typeof n === 'number') totals[key] = (totals[key] ?? 0) + n;
  });
  rmSync(dir, { recursive: true, force: true });
  const failed = results.some((r) => r.status !== 0);
  console.log(`== all lanes: ${['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo'].map((k) => `${k} ${totals[k] ?? '?'}`).join(', ')}` +
    (failed ? ` -- FAILED: ${specs.filter((_, i) => results[i].status !== 0).map((l) => l.name).join(', ')}` : ''));
  // Repeated last, where CI's tail shows it, after many pages of passing tests.
  for (const failure of failures) console.log(`== failed test: ${failure}`);
  const complete = results.every((r, i) => r.status === 0 || laneFiles[i] !== undefined);
  return { failed, failures, failedFiles: laneFiles.flat().filter(Boolean), complete };
}

/**
 * A file fails now and then on a loaded 2-core machine for want of CPU at the wrong moment, not
 * for a defect: a relayed RTP packet concealed as late, a peer that binds late (real-time
 * files), or a low-lane file at nice 19 whose server missed a lease or a rate bucket's second.
 * Each failed file gets one more run, alone, one at a time, with nothing beside it; the run
 * passes only if every one of them passes that second run. The first failure is printed either
 * way (`== failed test:`, then `== passed alone after failing:`), so a flake stays visible and
 * can be mended; a lane that died before reporting fails the run at once.
 * TEST_RETRY_FAILED=0 turns the second run off.
 */
async function runFailuresAgain({ failedFiles, complete }) {
  const sourceOf = (file) => relative(cwd, file).split('\\').join('/').replace(/\.js$/, '.ts');
  const again = [...new Set(failedFiles)];
  if (process.env.TEST_RETRY_FAILED === '0' || !complete || again.length === 0) return 1;
  console.log(`== running ${again.length} failed file(s) again, one at a time, alone: ${again.map(sourceOf).join(', ')}`);
  const second = await runLanes([{ name: 'failed files, second run', files: again, concurrency: '1' }]);
  if (second.failed) return 1;
  for (const file of again) console.log(`== passed alone after failing: ${sourceOf(file)}`);
  return 0;
}

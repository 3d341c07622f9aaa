// `npm run bench:flows`: FLOWS_CALLS (default 2,000) concurrent sandbox IVR calls. Each is an
// inbound call (POST /v1/sandbox/inbound_calls) to a number whose voice_url is a local flow
// server: the answer webhook answers a menu (a gather with an action_url), the scripted caller
// presses 1, the action_url answers a dial to a number that talks 5 s, then the flow hangs up.
// A spawned `switchboard serve` (SQLite, or PostgreSQL with DATABASE_URL) runs them; the
// simulator stretches each call by FLOWS_TIME_SCALE so they are all up at once.
//
// Reports calls started per second (the rate POST /v1/sandbox/inbound_calls took them), the
// flow-webhook round trip as the caller waits for it (from the call's flow log: the answer to
// the first verb, and the gather's end to the next verb; this includes the durable job's
// pickup), peak concurrent calls, the server's peak RSS (VmHWM), and checks that every call
// completed with its six events. Bounded: gives up after FLOWS_DEADLINE_SECONDS.
import { createServer } from 'node:http';
import { sampleConcurrentCalls, startCallEventCounter, startCalls, startLoadServer, waitUntilAllEnded } from './lib/call-load.ts';
import { closeNow, listenLocal, readJson } from './lib/local-http.ts';

const CALLS = Number(process.env.FLOWS_CALLS ?? 2_000);
const SCALE = process.env.FLOWS_TIME_SCALE ?? '5';
const PARALLEL = Number(process.env.FLOWS_PARALLEL ?? 32);
const DEADLINE_MS = Number(process.env.FLOWS_DEADLINE_SECONDS ?? 900) * 1000;
const CALLEE = '+14155550100'; // the simulator's ordinary number: rings 1 s, talks 5 s
const CALLER = '+14155550123';
const EXPECTED = ['call.inbound', 'call.ringing', 'call.answered', 'call.gather.completed', 'call.dial.completed', 'call.completed'];
const started = Date.now();
const overdue = () => Date.now() - started > DEADLINE_MS;

// The customer's voice application: answers the flow webhooks.
const flowRequests = { answer: 0, menu: 0 };
const flowServer = createServer(async (req, res) => {
  const body = await readJson(req);
  const json = (flow: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(flow));
  if (req.url === '/answer') {
    flowRequests.answer++;
    return json([{ gather: { num_digits: 1, timeout: 10, action_url: `${flowUrl}/menu`, prompts: [{ say: { text: 'Press 1 for sales.' } }] } }]);
  }
  flowRequests.menu++;
  return json(body.gather?.digits === '1' ? [{ dial: { to: CALLEE, timeout: 20 } }, { hangup: {} }] : [{ hangup: {} }]);
});
const flowUrl = await listenLocal(flowServer);

const receiver = await startCallEventCounter();
const { server, api, peakRss } = await startLoadServer('flows', SCALE);
const concurrent = sampleConcurrentCalls(api);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

let exitCode = 1;
try {
  const sub = await api('POST', '/v1/webhooks', { url: receiver.url, events: ['call.*'] });
  if (sub.status !== 200) throw new Error(`subscribing failed: ${JSON.stringify(sub.body)}`);
  const number = (await api('GET', '/v1/numbers?limit=1')).body.data[0];
  const patched = await api('PATCH', `/v1/numbers/${number.id}`, { voice_url: `${flowUrl}/answer` });
  if (patched.status !== 200) throw new Error(`setting voice_url failed: ${JSON.stringify(patched.body)}`);

  console.log(`Starting ${CALLS} sandbox IVR calls (${PARALLEL} requests in flight, SWITCHBOARD_SIM_TIME_SCALE=${SCALE})...`);
  const { ids, seconds: placeSeconds, refused } = await startCalls(CALLS, PARALLEL, overdue,
    () => api('POST', '/v1/sandbox/inbound_calls', { from: CALLER, to: number.phone_number, caller_script: [{ press: '1' }] }));
  console.log(`started ${ids.length} calls in ${placeSeconds.toFixed(1)} s${refused}`);

  const active = await waitUntilAllEnded(api, () => ids.every((id) => receiver.hasAll(id, EXPECTED)), overdue);
  concurrent.stop();

  // The caller's wait for each flow webhook, read from the flow logs (real milliseconds: the timestamps are the clock's, the scale only stretches media).
  const answerWaits: number[] = [];
  const actionWaits: number[] = [];
  let completedWithDial = 0;
  let cursor = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (cursor < ids.length) {
      const id = ids[cursor++]!;
      const [call, flow] = await Promise.all([api('GET', `/v1/calls/${id}`), api('GET', `/v1/calls/${id}/flow`)]);
      const log = flow.body.log as Array<{ verb: string; started_at: string; ended_at: string | null; result: any }>;
      if (call.body.answered_at && log[0]) answerWaits.push(Date.parse(log[0].started_at) - Date.parse(call.body.answered_at));
      const gather = log.find((e) => e.verb === 'gather');
      const after = log[log.indexOf(gather!) + 1];
      if (gather?.ended_at && after) actionWaits.push(Date.parse(after.started_at) - Date.parse(gather.ended_at));
      if (call.body.status === 'completed' && log.some((e) => e.verb === 'dial' && e.result?.outcome === 'completed')) completedWithDial++;
    }
  }));
  const missing = ids.filter((id) => !receiver.hasAll(id, EXPECTED));
  const ms = (values: number[]) => `p50 ${percentile(values, 50).toFixed(0)} ms, p99 ${percentile(values, 99).toFixed(0)} ms (n=${values.length})`;

  console.log('');
  console.log(`store                          ${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'}`);
  console.log(`calls started                  ${ids.length} / ${CALLS} in ${placeSeconds.toFixed(1)} s = ${(ids.length / placeSeconds).toFixed(0)} calls/s`);
  console.log(`peak concurrent calls          ${concurrent.peak()} (sampled every 250 ms from GET /v1/account)`);
  console.log(`flow webhooks answered         answer ${flowRequests.answer}, action_url ${flowRequests.menu}`);
  console.log(`answer webhook round trip      ${ms(answerWaits)}`);
  console.log(`action_url round trip          ${ms(actionWaits)}`);
  console.log(`all flow webhooks              ${ms([...answerWaits, ...actionWaits])}`);
  console.log(`completed after a dial         ${completedWithDial}`);
  console.log(`calls with all 6 events        ${ids.length - missing.length} (webhook deliveries: ${receiver.distinct()} distinct events)`);
  console.log(`server peak RSS (VmHWM)        ${peakRss()} MiB`);
  console.log(`total time                     ${((Date.now() - started) / 1000).toFixed(1)} s${overdue() ? ' (DEADLINE REACHED)' : ''}`);
  const ok = ids.length === CALLS && completedWithDial === CALLS && missing.length === 0 && active === 0;
  console.log(ok ? '\nOK: every call completed its IVR with its events.' : `\nFAILED: ${missing.length} calls missing events, e.g. ${missing.slice(0, 3).join(', ')}`);
  exitCode = ok ? 0 : 1;
} finally {
  concurrent.stop();
  await server.stop();
  receiver.close();
  closeNow(flowServer);
}
process.exit(exitCode);

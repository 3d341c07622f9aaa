// `npm run bench:calls-soak`: 10,000 concurrent simulated calls on an Enterprise account.
// A spawned `switchboard serve` (SQLite, or PostgreSQL with DATABASE_URL) places them all
// as fast as the API takes them; the simulator stretches each call (ring 1 s, talk 5 s) by
// SOAK_TIME_SCALE so that they are all up at once. Reports the peak number of concurrent
// calls, the server's peak RSS (VmHWM), and checks that every call completed and that every
// call's four events (queued, ringing, answered, completed) reached a subscribed webhook
// receiver. Bounded: gives up after SOAK_DEADLINE_SECONDS.
import { sampleConcurrentCalls, startCallEventCounter, startCalls, startLoadServer, waitUntilAllEnded } from './lib/call-load.ts';

const CALLS = Number(process.env.SOAK_CALLS ?? 10_000);
const SCALE = process.env.SOAK_TIME_SCALE ?? '15';
const PARALLEL = Number(process.env.SOAK_PARALLEL ?? 64);
const DEADLINE_MS = Number(process.env.SOAK_DEADLINE_SECONDS ?? 900) * 1000;
const EXPECTED = ['call.queued', 'call.ringing', 'call.answered', 'call.completed'];
const started = Date.now();
const overdue = () => Date.now() - started > DEADLINE_MS;

const receiver = await startCallEventCounter();
const { server, created, api, peakRss } = await startLoadServer('calls-soak', SCALE);
const from = created.numbers.sandbox[0]!;
const concurrent = sampleConcurrentCalls(api);

let exitCode = 1;
try {
  const sub = await api('POST', '/v1/webhooks', { url: receiver.url, events: ['call.*'] });
  if (sub.status !== 200) throw new Error(`subscribing failed: ${JSON.stringify(sub.body)}`);

  console.log(`Placing ${CALLS} sandbox calls (${PARALLEL} requests in flight, SWITCHBOARD_SIM_TIME_SCALE=${SCALE}: each call lasts ${6 * Number(SCALE)} s)...`);
  const { ids, seconds: placeSeconds, refused } = await startCalls(CALLS, PARALLEL, overdue,
    () => api('POST', '/v1/calls', { from, to: '+14155550100', record: false }));
  console.log(`placed ${ids.length} calls in ${placeSeconds.toFixed(1)} s (${(ids.length / placeSeconds).toFixed(0)} calls/s)${refused}`);

  // Wait until no call is active and every call's four events have arrived.
  const active = await waitUntilAllEnded(api, () => ids.every((id) => receiver.hasAll(id, EXPECTED)), overdue);
  concurrent.stop();

  let completed = 0;
  let cursor: string | null = null;
  for (let page = 0; page < CALLS / 100 + 2; page++) {
    const r = await api('GET', `/v1/calls?status=completed&limit=100${cursor ? `&starting_after=${cursor}` : ''}`);
    completed += r.body.data.length;
    cursor = r.body.next_cursor;
    if (!cursor) break;
  }
  const missing = ids.filter((id) => !receiver.hasAll(id, EXPECTED));

  console.log('');
  console.log(`calls placed                 ${ids.length} / ${CALLS}`);
  console.log(`peak concurrent calls        ${concurrent.peak()} (sampled every 250 ms from GET /v1/account)`);
  console.log(`calls completed (GET list)   ${completed}`);
  console.log(`calls with all 4 events      ${ids.length - missing.length} (webhook deliveries: ${receiver.distinct()} distinct events)`);
  console.log(`server peak RSS (VmHWM)      ${peakRss()} MiB`);
  console.log(`total time                   ${((Date.now() - started) / 1000).toFixed(1)} s${overdue() ? ' (DEADLINE REACHED)' : ''}`);
  const ok = ids.length === CALLS && completed === CALLS && missing.length === 0 && active === 0;
  console.log(ok ? '\nOK: every call completed with its events.' : `\nFAILED: ${missing.length} calls missing events, e.g. ${missing.slice(0, 3).join(', ')}`);
  exitCode = ok ? 0 : 1;
} finally {
  concurrent.stop();
  await server.stop();
  receiver.close();
}
process.exit(exitCode);

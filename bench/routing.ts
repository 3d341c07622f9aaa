// `npm run bench:routing`: routing from a queue to workers under ROUTING_CALLERS (default 200)
// waiting sandbox callers and ROUTING_WORKERS (default 50) workers, on a spawned `switchboard
// serve` (SQLite, or PostgreSQL with DATABASE_URL). The callers join one routed queue while
// every worker is offline; then all workers are set available at once, each takes a caller, and
// the bench hangs up every connected caller so its worker (no wrap-up) is offered the next,
// until every caller was offered. Reports offers per second over the whole run and the time
// from a worker becoming available to its offer (its phone ringing: the offer places the
// worker's call in the same transaction), from the events' own timestamps. Checks that each
// caller was offered exactly once. Bounded: gives up after ROUTING_DEADLINE_SECONDS.
import { createServer } from 'node:http';
import { startLoadServer, startCalls } from './lib/call-load.ts';
import { closeNow, listenLocal, readJson } from './lib/local-http.ts';

const CALLERS = Number(process.env.ROUTING_CALLERS ?? 200);
const WORKERS = Number(process.env.ROUTING_WORKERS ?? 50);
const DEADLINE_MS = Number(process.env.ROUTING_DEADLINE_SECONDS ?? 600) * 1000;
const STAYS_UP = '+15005550004';
const started = Date.now();
const overdue = () => Date.now() - started > DEADLINE_MS;

interface Event { id: string; type: string; created_at: string; data: { object: any } }
const events = new Map<string, Event>();
const receiver = createServer(async (req, res) => {
  const event = await readJson(req) as Event;
  events.set(event.id, event);
  res.writeHead(200).end();
});
const receiverUrl = await listenLocal(receiver);
const { server, api } = await startLoadServer('routing', '1');
const ofType = (type: string) => [...events.values()].filter((e) => e.type === type);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

let exitCode = 1;
try {
  const sub = await api('POST', '/v1/webhooks', { url: receiverUrl, events: ['worker.*'] });
  if (sub.status !== 200) throw new Error(`subscribing failed: ${JSON.stringify(sub.body)}`);
  const from = (await api('GET', '/v1/numbers?limit=1')).body.data[0].phone_number;
  const made = await api('POST', '/v1/queues', { name: 'bench', max_size: 1000, wait_flow: [{ pause: { seconds: 600 } }], routing: { required_skills: ['bench'] } });
  if (made.status !== 200) throw new Error(`creating the queue failed: ${JSON.stringify(made.body)}`);
  const queue = made.body;
  const workers: string[] = [];
  for (let i = 0; i < WORKERS; i++) workers.push((await api('POST', '/v1/workers', { name: `w${i}`, skills: ['bench'], reach: STAYS_UP, wrap_up_seconds: 0 })).body.id);

  console.log(`Placing ${CALLERS} callers into a routed queue (${WORKERS} workers offline)...`);
  const { ids: callers, refused } = await startCalls(CALLERS, 16, overdue,
    () => api('POST', '/v1/calls', { from, to: STAYS_UP, flow: [{ enqueue: { queue: 'bench' } }, { hangup: {} }] }));
  if (refused) throw new Error(`callers refused${refused}`);
  for (let size = 0; !overdue() && size < CALLERS; await new Promise((r) => setTimeout(r, 200))) {
    size = (await api('GET', `/v1/queues/${queue.id}`)).body.current_size;
    if (process.env.ROUTING_VERBOSE) console.log(`waiting: ${size}`);
  }

  const t0 = Date.now();
  await Promise.all(workers.map((id) => api('PATCH', `/v1/workers/${id}`, { status: 'available' })));
  const hungUp = new Set<string>();
  while (!overdue() && hungUp.size < callers.length) {
    const talking = ofType('worker.connected').map((e) => e.data.object.current_call_id as string);
    // The caller each connected worker's call took: the offer named it.
    const byLeg = new Map(ofType('worker.offered').map((e) => [e.data.object.offer.call_id, e.data.object.offer.caller_call_id as string]));
    const toHangUp = talking.map((leg) => byLeg.get(leg)).filter((c): c is string => !!c && !hungUp.has(c));
    await Promise.all(toHangUp.map(async (c) => {
      hungUp.add(c);
      await api('POST', `/v1/calls/${c}/hangup`, {});
    }));
    if (toHangUp.length === 0) await new Promise((r) => setTimeout(r, 50));
  }
  const offers = ofType('worker.offered');
  const lastOffer = Math.max(...offers.map((e) => Date.parse(e.created_at)));
  const offeredCallers = offers.map((e) => e.data.object.offer.caller_call_id as string);
  const once = new Set(offeredCallers).size === offeredCallers.length && offeredCallers.length === callers.length;

  // Available -> offered: each offer against the same worker's last move to available before it.
  const available = ofType('worker.status_changed').filter((e) => e.data.object.status === 'available');
  const latencies = offers.map((offer) => {
    const at = Date.parse(offer.created_at);
    const before = available.filter((e) => e.data.object.id === offer.data.object.id && Date.parse(e.created_at) <= at)
      .map((e) => Date.parse(e.created_at));
    return before.length ? at - Math.max(...before) : NaN;
  }).filter((n) => !Number.isNaN(n));

  console.log(`database: ${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'}; ${CALLERS} callers, ${WORKERS} workers`);
  console.log(`offers: ${offers.length} in ${((lastOffer - t0) / 1000).toFixed(1)} s = ${(offers.length / ((lastOffer - t0) / 1000)).toFixed(1)} offers/s (each caller offered once: ${once})`);
  console.log(`available -> offered (worker's phone rung): p50 ${percentile(latencies, 50)} ms, p95 ${percentile(latencies, 95)} ms, max ${Math.max(...latencies)} ms over ${latencies.length} offers`);
  exitCode = once ? 0 : 1;
} finally {
  await server.stop();
  closeNow(receiver);
}
process.exit(exitCode);

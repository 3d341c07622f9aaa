// `npm run bench:metrics-hot-path`: the CPU each instrumentation point adds, measured in
// isolation (a million calls each, this process's CPU time), so the figure holds on a machine
// too loaded for `BENCH_METRICS=1 npm run bench` to resolve a few percent. Each point runs
// exactly what the server runs: the same metric objects, labels and calls.
import { performance } from 'node:perf_hooks';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpMetricsLogController } from '../src/platform/http-metrics.ts';
import { callsTotal, dbTransactionSeconds, messagesTotal, webhookDeliveries } from '../src/platform/metrics.ts';

const N = Number(process.env.BENCH_OPS ?? 1_000_000);
const ROUNDS = 5;

/** Median CPU µs per call of `op` over ROUNDS rounds of N calls. */
function cost(op: (i: number) => void): number {
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const before = process.cpuUsage();
    for (let i = 0; i < N; i++) op(i);
    const used = process.cpuUsage(before);
    rounds.push((used.user + used.system) / N);
  }
  return rounds.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!;
}

// A request and reply as Fastify hands them to its log controller, for GET /v1/account.
const controller = new HttpMetricsLogController();
const request = { method: 'GET', routeOptions: { url: '/v1/account' } } as unknown as FastifyRequest;
const reply = { statusCode: 200, elapsedTime: 0, log: { info() {}, error() {} } } as unknown as FastifyReply & { elapsedTime: number };

// What app.ts does per transaction.
const transactionSeconds = dbTransactionSeconds.child('', () => ({}));
const openedAt = performance.now();

const points: Array<[string, (i: number) => void]> = [
  // What Fastify calls per request with metrics on (http-metrics.ts), down to its log line.
  ['per request: HTTP counter and duration histogram', (i) => {
    reply.elapsedTime = (i % 50) / 10;
    controller.requestCompleted(null, request, reply);
  }],
  // The transaction's opening time is read with metrics off too (its deadline's watch).
  ['per transaction: a clock read and the histogram', () => transactionSeconds.observe((performance.now() - openedAt) / 1000)],
  ['per call status change: switchboard_calls_total', () => callsTotal.inc({ mode: 'sandbox', direction: 'outbound', status: 'ringing' })],
  ['per message status change: switchboard_messages_total', () => messagesTotal.inc({ channel: 'sms', status: 'sent' })],
  ['per webhook attempt: switchboard_webhook_deliveries_total', () => webhookDeliveries.inc({ outcome: 'succeeded' })],
];

console.log(`Metrics hot path: ${N.toLocaleString('en-US')} calls per point, median of ${ROUNDS} rounds, CPU µs per call.\n`);
for (const [name, op] of points) {
  cost(op); // warm-up: let the JIT settle
  console.log(`${name.padEnd(60)} ${cost(op).toFixed(3)} µs`);
}

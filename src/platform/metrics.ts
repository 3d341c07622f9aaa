// The process's Prometheus metrics: one prom-client Registry, so every part of the server
// counts into the same place and GET /metrics (metrics-endpoint.ts) exposes them all. This
// file is the catalogue: every metric Switchboard exports is defined here, once, and
// docs/observability.md and the Grafana dashboard in docs/ name exactly these.
//
// Counters are bumped where the state change happens (after its transaction commits, so a
// rolled-back change is never counted); gauges that describe the database (active calls, ready
// jobs) are read from it when scraped (scrape-gauges.ts), never kept up to date on a hot path.
// Everything is per process: several nodes are summed by Prometheus (docs/observability.md).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { RequestCounter, RequestHistogram } from './request-series.ts';

export const registry = new Registry();

/**
 * Transactions rolled back because they outlived SWITCHBOARD_TRANSACTION_TIMEOUT_MS.
 * `scope`: `request` (an idempotent write's request-wide transaction) or `transaction`.
 */
export const transactionTimeouts = new Counter({
  name: 'switchboard_db_transaction_timeouts_total',
  help: 'Database transactions rolled back because they outlived the transaction deadline (SWITCHBOARD_TRANSACTION_TIMEOUT_MS).',
  labelNames: ['engine', 'scope'] as const,
  registers: [registry],
});

/** The counter's total over every label: what /readyz reports. */
export async function transactionTimeoutCount(): Promise<number> {
  const metric = await transactionTimeouts.get();
  return metric.values.reduce((sum, v) => sum + v.value, 0);
}

/** Observed for every transaction, so kept as plain numbers too (request-series.ts). */
export const dbTransactionSeconds = new RequestHistogram({
  name: 'switchboard_db_transaction_seconds',
  help: 'How long database transactions stayed open, from BEGIN to the end of COMMIT or ROLLBACK.',
  labelNames: [],
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

/**
 * `route` is the route's template (`/v1/calls/:id`), never the raw path, so ids do not explode
 * the series. Updated on every request, so kept as plain numbers (request-series.ts says why).
 */
export const httpRequests = new RequestCounter({
  name: 'switchboard_http_requests_total',
  help: 'HTTP requests answered, by method, route template and status code.',
  labelNames: ['method', 'route', 'status'],
  registers: [registry],
});

export const httpRequestSeconds = new RequestHistogram({
  name: 'switchboard_http_request_duration_seconds',
  help: 'Time from receiving a request to sending the last byte of its answer, by method and route template.',
  labelNames: ['method', 'route'],
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

/** One per call entering a status: `status="queued"` counts calls created, `status="completed"` calls completed. */
export const callsTotal = new Counter({
  name: 'switchboard_calls_total',
  help: 'Calls entering each status (queued: created), by mode, direction and status.',
  labelNames: ['mode', 'direction', 'status'] as const,
  registers: [registry],
});

export const callsActive = new Gauge({
  name: 'switchboard_calls_active',
  help: 'Calls queued, ringing or in progress in the whole store (every node sees the same figure), by mode.',
  labelNames: ['mode'] as const,
  registers: [registry],
});

export const sipResponses = new Counter({
  name: 'switchboard_sip_responses_total',
  help: 'SIP responses this node sent or received (retransmissions excluded), by status code and direction.',
  labelNames: ['code', 'direction'] as const,
  registers: [registry],
});

export const rtpPackets = new Counter({
  name: 'switchboard_rtp_packets_total',
  help: 'RTP packets of live call legs, counted when each leg\'s media ends, by direction (received, sent).',
  labelNames: ['direction'] as const,
  registers: [registry],
});

export const rtpPacketsLost = new Counter({
  name: 'switchboard_rtp_packets_lost_total',
  help: 'RTP packets live call legs expected and never received (sequence gaps), counted when each leg\'s media ends.',
  registers: [registry],
});

/** One per message entering a status, like calls: `status="queued"` counts messages accepted. */
export const messagesTotal = new Counter({
  name: 'switchboard_messages_total',
  help: 'Messages entering each status (queued: accepted, received: inbound), by channel and status.',
  labelNames: ['channel', 'status'] as const,
  registers: [registry],
});

export const smppSubmits = new Counter({
  name: 'switchboard_smpp_submit_total',
  help: 'submit_sm requests to SMSCs, by link and result (accepted, throttled, rejected, error).',
  labelNames: ['link', 'result'] as const,
  registers: [registry],
});

export const webhookDeliveries = new Counter({
  name: 'switchboard_webhook_deliveries_total',
  help: 'Webhook delivery attempts by outcome: succeeded, retry (failed, another attempt scheduled), dead (failed its last attempt), failed (stopped: 410 Gone, endpoint disabled or deleted, URL not allowed).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const webhookDeliverySeconds = new Histogram({
  name: 'switchboard_webhook_delivery_seconds',
  help: 'How long webhook endpoints took to answer an attempt (request sent to response read, or to the failure).',
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.8, 1, 2.5, 5, 10],
  registers: [registry],
});

export const jobsReady = new Gauge({
  name: 'switchboard_jobs_ready',
  help: 'Jobs due now and not yet claimed, in the whole store, by kind.',
  labelNames: ['kind'] as const,
  registers: [registry],
});

export const jobLagSeconds = new Gauge({
  name: 'switchboard_job_lag_seconds',
  help: 'How long the oldest ready job has been due (0 when none waits): the worker pool\'s backlog, in the whole store.',
  registers: [registry],
});

export const queueCallersWaiting = new Gauge({
  name: 'switchboard_queue_callers_waiting',
  help: 'Callers in a call queue now (waiting, or held for a dequeue), in the whole store, by mode.',
  labelNames: ['mode'] as const,
  registers: [registry],
});

export const queueLongestWaitSeconds = new Gauge({
  name: 'switchboard_queue_longest_wait_seconds',
  help: 'How long the caller waiting longest in any queue has waited, in real seconds (0 when none waits), by mode.',
  labelNames: ['mode'] as const,
  registers: [registry],
});

export const conferencesActive = new Gauge({
  name: 'switchboard_conferences_active',
  help: 'Conferences not yet ended (waiting for a moderator or in progress), in the whole store, by mode.',
  labelNames: ['mode'] as const,
  registers: [registry],
});

export const conferenceParticipants = new Gauge({
  name: 'switchboard_conference_participants',
  help: 'Calls in a conference now (joined, not yet left), in the whole store, by mode.',
  labelNames: ['mode'] as const,
  registers: [registry],
});

let defaultsOn = false;

/** prom-client's process and Node metrics (CPU, memory, event-loop lag, GC): only when metrics are on. */
export function collectProcessMetrics(): void {
  if (defaultsOn) return; // once per process, however many servers it builds (tests build several)
  defaultsOn = true;
  collectDefaultMetrics({ register: registry });
}

/** Every metric name this server exports besides prom-client's defaults (docs and dashboard tests check against it). */
export function switchboardMetricNames(): string[] {
  return registry.getMetricsAsArray().map((m) => (m as unknown as { name: string }).name).filter((n) => n.startsWith('switchboard_'));
}

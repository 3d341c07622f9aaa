// Counts every answered request into switchboard_http_requests_total and
// switchboard_http_request_duration_seconds, when metrics are on.
//
// Fastify tells its log controller about every response once the last byte is sent
// (`requestCompleted`, after any onResponse hooks), whether or not a line is logged. Counting
// there instead of in an onResponse hook of our own keeps a GET's hot path as it is with
// metrics off: with a global onResponse hook, Fastify runs its hook chain (three closures
// and a callback) for every request, where a GET otherwise has no onResponse hook at all.
// The duration is Fastify's own (reply.elapsedTime: request received to the response's
// 'finish'), the same clock reads it makes with metrics off.
//
// The series for one (route, method, status) are found through nested Maps keyed by the
// strings Fastify already holds (the route's template, the method, the status number), so a
// request allocates nothing and hashes no new string; then a counter bump and a histogram
// bucket search (request-series.ts).
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { httpRequestSeconds, httpRequests } from './metrics.ts';
import type { CounterChild, HistogramChild } from './request-series.ts';

/** Requests that matched no route share one label: raw paths (ids, probes) would be unbounded series. */
const UNMATCHED = 'unmatched';

/** One route and method's series: its duration histogram, and a counter per status code. */
interface RouteSeries {
  seconds: HistogramChild;
  byStatus: Map<number, CounterChild>;
}

export class HttpMetricsLogController extends LogController {
  private readonly routes = new Map<string, Map<string, RouteSeries>>();

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>): void {
    this.count(request, reply);
    super.requestCompleted(error, request, reply, metadata);
  }

  private count(request: FastifyRequest, reply: FastifyReply): void {
    const method = request.method;
    const route = request.routeOptions.url ?? UNMATCHED;
    const series = this.series(route, method);
    const status = reply.statusCode;
    let counter = series.byStatus.get(status);
    if (counter === undefined) {
      counter = httpRequests.child(`${method} ${status} ${route}`, () => ({ method, route, status: String(status) }));
      series.byStatus.set(status, counter);
    }
    counter.value++;
    series.seconds.observe(reply.elapsedTime / 1000);
  }

  private series(route: string, method: string): RouteSeries {
    let byMethod = this.routes.get(route);
    if (byMethod === undefined) this.routes.set(route, (byMethod = new Map()));
    let series = byMethod.get(method);
    if (series === undefined) {
      series = { seconds: httpRequestSeconds.child(`${method} ${route}`, () => ({ method, route })), byStatus: new Map() };
      byMethod.set(method, series);
    }
    return series;
  }
}

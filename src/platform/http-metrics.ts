// Counts every answered request into switchboard_http_requests_total and
// switchboard_http_request_duration_seconds. Installed only when metrics are on, as one
// onResponse hook: it runs after the answer is sent, so it adds no latency to it.
//
// The series for one (method, route, status) are found by one string key and kept: a
// request costs one Map lookup, a counter bump and a histogram bucket search
// (request-series.ts).
import type { App } from './app-type.ts';
import { httpRequestSeconds, httpRequests } from './metrics.ts';

/** Requests that matched no route share one label: raw paths (ids, probes) would be unbounded series. */
const UNMATCHED = 'unmatched';

export function registerHttpMetrics(app: App): void {
  app.addHook('onResponse', (request, reply, done) => {
    const method = request.method;
    const route = request.routeOptions.url ?? UNMATCHED;
    const status = reply.statusCode;
    httpRequests.child(`${method} ${status} ${route}`, () => ({ method, route, status: String(status) })).value++;
    httpRequestSeconds.child(`${method} ${route}`, () => ({ method, route })).observe(reply.elapsedTime / 1000);
    done();
  });
}

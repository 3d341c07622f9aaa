// Counts every answered request into switchboard_http_requests_total and
// switchboard_http_request_duration_seconds. Installed only when metrics are on, as one
// onResponse hook: it runs after the answer is sent, so it adds no latency to it.
//
// prom-client hashes a label object on every inc()/observe(); the children for one
// (method, route, status) are looked up once and kept, so a request costs one Map lookup, a
// counter bump and a histogram bucket search.
import type { App } from './app-type.ts';
import { httpRequestSeconds, httpRequests } from './metrics.ts';

/** Requests that matched no route share one label: raw paths (ids, probes) would be unbounded series. */
const UNMATCHED = 'unmatched';

interface Children {
  requests: ReturnType<typeof httpRequests.labels>;
  seconds: ReturnType<typeof httpRequestSeconds.labels>;
}

export function registerHttpMetrics(app: App): void {
  const children = new Map<string, Children>();
  const childrenOf = (method: string, route: string, status: number): Children => {
    const key = `${method} ${status} ${route}`;
    let found = children.get(key);
    if (!found) {
      found = {
        requests: httpRequests.labels({ method, route, status: String(status) }),
        seconds: httpRequestSeconds.labels({ method, route }),
      };
      children.set(key, found);
    }
    return found;
  };
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED;
    const { requests, seconds } = childrenOf(request.method, route, reply.statusCode);
    requests.inc();
    seconds.observe(reply.elapsedTime / 1000);
    done();
  });
}

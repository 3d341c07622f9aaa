// GET /metrics in Prometheus' text format, off unless the operator turns it on
// (SWITCHBOARD_METRICS_PORT / --metrics-port, SWITCHBOARD_METRICS_TOKEN):
//
//   - with a port, it is served by a listener of its own (metrics-listener.ts) and only there,
//     so it can stay on a private interface out of the API's load balancer;
//   - with a token, a scrape must send `Authorization: Bearer <token>`, on either listener;
//     with a token and no port, the API's own listener serves it.
//
// The token is the operator's, never an API key: the figures are the whole server's, every
// account's together, which no customer's key may open (config.ts refuses a key-shaped token).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { MetricsConfig } from '../config.ts';
import type { App } from './app-type.ts';
import { registry } from './metrics.ts';
import { Problem } from './problems.ts';

/** A gauge read from the store when scraped (active calls, ready jobs): one query, not a hot-path update. */
export interface ScrapeCollector {
  name: string;
  collect(): Promise<void>;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether an Authorization header carries exactly the token; compared in constant time. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer +(\S+)\s*$/i.exec(header ?? '');
  return match !== null && timingSafeEqual(digest(match[1]!), digest(token));
}

export const WWW_AUTHENTICATE = 'Bearer realm="metrics"';

export function tokenProblem(header: string | undefined): Problem {
  return new Problem('invalid_metrics_token', header
    ? 'The bearer token is not the metrics token (SWITCHBOARD_METRICS_TOKEN). API keys do not open /metrics.'
    : 'GET /metrics needs `Authorization: Bearer <SWITCHBOARD_METRICS_TOKEN>`.', { headers: { 'www-authenticate': WWW_AUTHENTICATE } });
}

/** Reads the store-backed gauges, then renders every metric of the registry. */
export class MetricsScrape {
  readonly contentType = registry.contentType;

  constructor(private readonly collectors: ScrapeCollector[], private readonly log: App['log']) {}

  async render(): Promise<string> {
    // A gauge whose query fails keeps its last value: the scrape still answers with the rest.
    await Promise.all(this.collectors.map((c) => c.collect().catch((err: unknown) => this.log.warn({ err, gauge: c.name }, 'metrics: reading a gauge from the database failed'))));
    return registry.metrics();
  }
}

/** The API listener's GET /metrics: only with a token and no listener of its own. */
export function registerMetricsRoute(app: App, config: MetricsConfig, scrape: MetricsScrape): void {
  const token = config.token;
  if (token === undefined || config.port !== undefined) return;
  app.get('/metrics', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    if (!bearerMatches(request.headers.authorization, token)) throw tokenProblem(request.headers.authorization);
    const text = await scrape.render();
    return reply.header('content-type', scrape.contentType).header('cache-control', 'no-store').send(text);
  });
}

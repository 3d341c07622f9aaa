// The metrics listener of its own (SWITCHBOARD_METRICS_PORT / --metrics-port): a bare
// node:http server that answers GET /metrics and nothing else, so a scrape never passes
// through the API's authentication, rate limits or route table, and the port can be kept on a
// private interface. Refusals are RFC 9457 problems like the API's.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MetricsConfig } from '../config.ts';
import { bearerMatches, tokenProblem, type MetricsScrape } from './metrics-endpoint.ts';
import { newId } from './ids.ts';
import { Problem } from './problems.ts';

export interface MetricsListener {
  url: string;
  close(): Promise<void>;
}

function sendProblem(res: ServerResponse, problem: Problem): void {
  res.writeHead(problem.status, { 'content-type': 'application/problem+json', ...problem.headers });
  res.end(JSON.stringify(problem.body(newId('request'))));
}

async function answer(req: IncomingMessage, res: ServerResponse, config: MetricsConfig, scrape: MetricsScrape): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  if (path !== '/metrics') return sendProblem(res, new Problem('route_not_found', 'This listener serves GET /metrics only.'));
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return sendProblem(res, new Problem('method_not_allowed', `${req.method} is not allowed on /metrics; use GET.`, { headers: { allow: 'GET, HEAD' } }));
  }
  if (config.token !== undefined && !bearerMatches(req.headers.authorization, config.token)) return sendProblem(res, tokenProblem(req.headers.authorization));
  const text = await scrape.render();
  res.writeHead(200, { 'content-type': scrape.contentType, 'cache-control': 'no-store' });
  res.end(req.method === 'HEAD' ? undefined : text);
}

export async function startMetricsListener(config: MetricsConfig & { port: number }, scrape: MetricsScrape, log: { warn(obj: object, msg: string): void }): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    answer(req, res, config, scrape).catch((err: unknown) => {
      log.warn({ err }, 'metrics: a scrape failed');
      if (!res.headersSent) sendProblem(res, new Problem('internal_error', 'The metrics could not be rendered.'));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    url: `http://${host}:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    }),
  };
}

// A customer's voice application on 127.0.0.1: answers Switchboard's flow webhooks (answer_url,
// voice_url, action_url, redirect) with whatever each path is scripted to answer, and keeps
// every request, its signature verified with the `standardwebhooks` package.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface FlowRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
  verified: boolean;
  at: number;
}

/** What a path answers: a flow (sent as JSON), or a raw answer, optionally after a delay. */
export type FlowAnswer = unknown[] | { status?: number; raw?: string; delayMs?: number; json?: unknown };

export interface FlowServer {
  url: string;
  secrets: string[];
  requests: FlowRequest[];
  /** Answers by path; a function sees the request. */
  routes: Map<string, FlowAnswer | ((req: FlowRequest) => FlowAnswer)>;
  waitForRequests(path: string, count?: number, timeoutMs?: number): Promise<FlowRequest[]>;
  close(): Promise<void>;
}

export async function startFlowServer(): Promise<FlowServer> {
  const state = { secrets: [] as string[], requests: [] as FlowRequest[], routes: new Map() as FlowServer['routes'] };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const verified = state.secrets.some((secret) => {
        try {
          new Webhook(secret).verify(text, req.headers as Record<string, string>);
          return true;
        } catch {
          return false;
        }
      });
      const path = (req.url ?? '/').split('?')[0]!;
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        // Not a flow request (a WebSocket handshake, a probe): refused, not thrown.
        res.writeHead(400, { 'content-type': 'text/plain' }).end('not a JSON request');
        return;
      }
      const request: FlowRequest = { path, headers: req.headers, body, verified, at: Date.now() };
      state.requests.push(request);
      const route = state.routes.get(path);
      const answer = typeof route === 'function' ? route(request) : route;
      const send = () => {
        if (answer === undefined) {
          res.writeHead(404, { 'content-type': 'text/plain' }).end('no such path');
        } else if (Array.isArray(answer)) {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
        } else {
          const body = answer.raw ?? JSON.stringify(answer.json ?? []);
          res.writeHead(answer.status ?? 200, { 'content-type': answer.raw !== undefined ? 'text/html' : 'application/json' }).end(body);
        }
      };
      const delay = !Array.isArray(answer) && answer ? answer.delayMs : undefined;
      if (delay) setTimeout(send, delay);
      else send();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    async waitForRequests(path: string, count = 1, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const hits = state.requests.filter((r) => r.path === path);
        if (hits.length >= count) return hits;
        if (Date.now() > deadline) throw new Error(`${path} got ${hits.length} of ${count} requests; all: ${state.requests.map((r) => r.path).join(', ')}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  });
}

// A real webhook receiver on 127.0.0.1. Every delivery is verified with the
// `standardwebhooks` package (never with our own signing code) against the secrets the
// test registered; tests then wait for the events they expect.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedEvent {
  id: string;
  type: string;
  created_at: string;
  mode: string;
  sequence: number;
  data: { object: any };
}

export interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
  /** The secrets (by index in `secrets`) whose signature verified. */
  verifiedWith: number[];
  event: ReceivedEvent;
}

/** What the receiver answers: a status (and optional headers), per delivery. */
export type Responder = (delivery: Omit<Delivery, 'verifiedWith'>, count: number) => { status: number; headers?: Record<string, string> };

export interface WebhookReceiver {
  url: string;
  deliveries: Delivery[];
  /** Secrets to verify against; a delivery verifying with none of them fails the test run. */
  secrets: string[];
  unverified: Delivery[];
  respond: Responder;
  events(): ReceivedEvent[];
  waitFor(predicate: (events: ReceivedEvent[]) => boolean, timeoutMs?: number): Promise<ReceivedEvent[]>;
  waitForEvent(type: string, resourceId?: string, timeoutMs?: number): Promise<ReceivedEvent>;
  close(): Promise<void>;
}

export async function startReceiver(opts: { secrets?: string[]; path?: string } = {}): Promise<WebhookReceiver> {
  const receiver = {
    deliveries: [] as Delivery[],
    unverified: [] as Delivery[],
    secrets: opts.secrets ?? [],
    respond: (() => ({ status: 200 })) as Responder,
  };
  const waiters = new Set<() => void>();
  let count = 0;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const event = parseOrNull(body);
      // Not a delivery (a WebSocket handshake a test's stream URL made, a probe): refused, not thrown.
      if (event === null) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('not a JSON delivery');
        return;
      }
      const base = { headers: req.headers, body, receivedAt: Date.now(), event: event as ReceivedEvent };
      count++;
      const verifiedWith: number[] = [];
      receiver.secrets.forEach((secret, i) => {
        try {
          new Webhook(secret).verify(body, req.headers as Record<string, string>);
          verifiedWith.push(i);
        } catch {
          /* not signed with this secret */
        }
      });
      const answer = receiver.respond(base, count);
      const delivery = { ...base, verifiedWith };
      if (answer.status >= 200 && answer.status < 300) {
        if (verifiedWith.length === 0) receiver.unverified.push(delivery);
        else receiver.deliveries.push(delivery);
      }
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...(answer.headers ?? {}) });
      res.end(answer.status < 300 ? 'ok' : 'nope');
      for (const w of waiters) w();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const events = () => receiver.deliveries.map((d) => d.event);
  // 30 s by default: an upper bound, not a latency check (it resolves the moment the events are
  // there). A low-lane file runs at nice 19 beside the real-time files and can be starved for
  // seconds at a time; at 10 s the routing files failed their first runs in CI on that alone.
  async function waitFor(predicate: (events: ReceivedEvent[]) => boolean, timeoutMs = 30_000): Promise<ReceivedEvent[]> {
    if (receiver.unverified.length > 0) throw new Error(`a delivery failed signature verification: ${receiver.unverified[0]!.body.slice(0, 200)}`);
    if (predicate(events())) return events();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (receiver.unverified.length > 0) {
          done();
          reject(new Error(`a delivery failed signature verification: ${receiver.unverified[0]!.body.slice(0, 200)}`));
        } else if (predicate(events())) {
          done();
          resolve(events());
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out after ${timeoutMs} ms; ${failuresIn(events())}received: ${events().map((e) => e.type).join(', ') || 'nothing'}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
    });
  }

  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}${opts.path ?? '/hooks'}`,
    events,
    waitFor,
    async waitForEvent(type: string, resourceId?: string, timeoutMs?: number) {
      const match = (e: ReceivedEvent) => e.type === type && (!resourceId || e.data.object?.id === resourceId);
      const all = await waitFor((evs) => evs.some(match), timeoutMs);
      return all.find(match)!;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  });
}

/**
 * The calls that failed among the events, with why, put first in a timeout's message: CI shows
 * only the first line of it, and a failed call is usually the reason the wait timed out.
 */
function failuresIn(events: ReceivedEvent[]): string {
  const failed = events.filter((e) => e.type === 'call.failed').map((e) => {
    const call = e.data.object as { id: string; hangup_cause?: string | null; failure?: { carrier_code?: unknown; message?: string } | null };
    return `${call.id} (${[call.hangup_cause, call.failure?.carrier_code, call.failure?.message].filter((v) => v != null).join(', ')})`;
  });
  return failed.length > 0 ? `failed calls: ${failed.join('; ')}; ` : '';
}

function parseOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

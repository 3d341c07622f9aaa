// What the call load benches (bench:calls-soak, bench:flows) share: a spawned server with an
// enterprise account whose rate limit is out of the way, its API client, a webhook receiver
// that counts each call's event types, a sampler of concurrent calls, the bounded loop that
// starts the calls, and the wait until they are all over.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { cli, createAccount, freshDataDir, startSwitchboard } from './spawn.ts';
import { closeNow, listenLocal, readJson } from './local-http.ts';

export type Api = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

/** `switchboard serve` on a fresh data dir (SQLite, or PostgreSQL with DATABASE_URL) with the simulator at `scale`. */
export async function startLoadServer(tag: string, scale: string) {
  const dataDir = freshDataDir(tag);
  const created = createAccount(dataDir, 'enterprise');
  cli(['accounts', 'update', created.account.id, '--rate-limit', '1000000000', '--data-dir', dataDir]);
  const server = await startSwitchboard(dataDir, {
    SWITCHBOARD_SIM_TIME_SCALE: scale, SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: 'true', SWITCHBOARD_WORKER_POLL_MS: '50',
  });
  const key = created.keys.sandbox;
  // Every write carries a fresh Idempotency-Key, as a careful client's would.
  const api: Api = async (method, path, body) => {
    const res = await fetch(server.url + path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json', 'idempotency-key': randomUUID() } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: await res.json() as any };
  };
  /** The server's peak RSS (VmHWM) in MiB, or '?'. */
  const peakRss = () => {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.child.pid}/status`, 'utf8'))?.[1];
    return kb ? (Number(kb) / 1024).toFixed(0) : '?';
  };
  return { server, created, api, peakRss };
}

/**
 * A webhook receiver that only counts: the event types each call got, de-duplicated by event
 * id (deliveries are at least once). A flow event counts for the call its object names in call_id.
 */
export async function startCallEventCounter() {
  const received = new Map<string, Set<string>>();
  const seenEvents = new Set<string>();
  const receiver = createServer(async (req, res) => {
    const event = await readJson(req);
    if (!seenEvents.has(event.id)) {
      seenEvents.add(event.id);
      const id = (event.data.object.call_id ?? event.data.object.id) as string;
      if (id?.startsWith('call_')) (received.get(id) ?? received.set(id, new Set()).get(id)!).add(event.type);
    }
    res.writeHead(200).end('ok');
  });
  const url = `${await listenLocal(receiver)}/hooks`;
  return {
    url,
    /** Distinct events delivered. */
    distinct: () => seenEvents.size,
    hasAll: (callId: string, types: string[]) => types.every((type) => received.get(callId)?.has(type)),
    close: () => closeNow(receiver),
  };
}

/** Samples GET /v1/account's concurrent_calls every 250 ms; the peak seen. */
export function sampleConcurrentCalls(api: Api) {
  let peak = 0;
  const sampler = setInterval(() => {
    void api('GET', '/v1/account').then((r) => { peak = Math.max(peak, r.body.usage?.concurrent_calls ?? 0); }, () => {});
  }, 250);
  return { peak: () => peak, stop: () => clearInterval(sampler) };
}

/** Starts up to `total` calls with `parallel` requests in flight until `overdue`; the ids started and the refusals. */
export async function startCalls(total: number, parallel: number, overdue: () => boolean, start: () => ReturnType<Api>) {
  const ids: string[] = [];
  const failures: string[] = [];
  let next = 0;
  const placeStart = Date.now();
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < total && !overdue()) {
      next++;
      const r = await start();
      if (r.status === 200) ids.push(r.body.id);
      else failures.push(`${r.status} ${r.body.code}`);
    }
  }));
  const refused = failures.length ? `; ${failures.length} refused: ${failures.slice(0, 3).join(', ')}` : '';
  return { ids, seconds: (Date.now() - placeStart) / 1000, refused };
}

/** Polls until no call is active and `complete()` holds, or `overdue`; the last active count. */
export async function waitUntilAllEnded(api: Api, complete: () => boolean, overdue: () => boolean): Promise<number> {
  let active = Infinity;
  while (!overdue()) {
    active = (await api('GET', '/v1/account')).body.usage.concurrent_calls;
    if (active === 0 && complete()) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  return active;
}

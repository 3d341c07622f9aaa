// Starts a real Switchboard server on 127.0.0.1 (port 0) over a fresh store, and gives the
// test an HTTP client for it. Tests talk to it only through HTTP, like a customer would.
import { loadConfig, type Config } from '../../src/config.ts';
import { startServer, type Server } from '../../src/main.ts';
import type { PlanName } from '../../src/modules/accounts/plans.ts';
import { createTestStore, type TestStore } from './database.ts';
import type { RateLimiter } from '../../src/platform/rate-limiter.ts';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  key?: string | undefined;
  body?: unknown;
  /** Raw body text, sent as is (for malformed-JSON tests). */
  raw?: string;
  headers?: Record<string, string>;
  idempotencyKey?: string;
}

export interface CreatedAccount {
  account: { id: string; plan: string; trial_ends_at: string | null };
  keys: { sandbox: string; live: string };
  numbers: { sandbox: string[] };
}

export interface TestServer {
  url: string;
  store: TestStore;
  server: Server;
  config: Config;
  request<T = any>(method: string, path: string, opts?: RequestOptions): Promise<ApiResponse<T>>;
  createAccount(plan?: PlanName, name?: string): Promise<CreatedAccount>;
  /** An HTTP client bound to one key. */
  as(key: string): {
    get<T = any>(path: string, opts?: Omit<RequestOptions, 'key'>): Promise<ApiResponse<T>>;
    post<T = any>(path: string, body?: unknown, opts?: Omit<RequestOptions, 'key' | 'body'>): Promise<ApiResponse<T>>;
    patch<T = any>(path: string, body?: unknown, opts?: Omit<RequestOptions, 'key' | 'body'>): Promise<ApiResponse<T>>;
    delete<T = any>(path: string, opts?: Omit<RequestOptions, 'key'>): Promise<ApiResponse<T>>;
  };
  close(): Promise<void>;
}

/** Settings tests usually want: fast simulator and retries, private webhook targets allowed. */
export const TEST_ENV: Record<string, string> = {
  SWITCHBOARD_SIM_TIME_SCALE: '0.01',
  SWITCHBOARD_WEBHOOK_RETRY_SCHEDULE: '0.2,0.5,1',
  SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: 'true',
  SWITCHBOARD_WORKER_POLL_MS: '50',
  // Any query made inside a transaction on the plain database fails the test at once.
  SWITCHBOARD_TRANSACTION_GUARD: 'true',
  // scripts/test.mjs gives every test's servers a long transaction deadline (a loaded machine
  // is slow, not broken); in-process servers take it from there like the spawned ones.
  ...(process.env.SWITCHBOARD_TRANSACTION_TIMEOUT_MS ? { SWITCHBOARD_TRANSACTION_TIMEOUT_MS: process.env.SWITCHBOARD_TRANSACTION_TIMEOUT_MS } : {}),
};

export async function startTestServer(env: Record<string, string> = {}, opts: { limiter?: RateLimiter } = {}): Promise<TestServer> {
  const store = await createTestStore();
  const config = loadConfig({ ...TEST_ENV, ...env }, { host: '127.0.0.1', port: 0, dataDir: store.dataDir });
  config.databaseUrl = store.databaseUrl;
  const server = await startServer(config, { logger: false, ...opts });
  const url = server.url;

  async function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    if (opts.idempotencyKey) headers['idempotency-key'] = opts.idempotencyKey;
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    const res = await fetch(url + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    if (/json/.test(res.headers.get('content-type') ?? '') && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed as T };
  }

  return {
    url,
    store,
    server,
    config,
    request,
    async createAccount(plan = 'scale', name) {
      return (await server.built.services.accounts.create({ plan, name })) as CreatedAccount;
    },
    as(key) {
      return {
        get: (path, opts) => request('GET', path, { ...opts, key }),
        post: (path, body, opts) => request('POST', path, { ...opts, key, body }),
        patch: (path, body, opts) => request('PATCH', path, { ...opts, key, body }),
        delete: (path, opts) => request('DELETE', path, { ...opts, key }),
      };
    },
    async close() {
      await server.close();
      await store.drop();
    },
  };
}

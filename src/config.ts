// One typed configuration, read from environment variables and CLI flags.
// Every setting here is listed in the README's settings table.
import { resolve } from 'node:path';
import { exponentialSchedule } from './modules/webhooks/retry.ts';
import { parsePublicUrl } from './platform/public-url.ts';

export interface LlmConfig {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  timeoutMs: number;
}

export interface Config {
  host: string;
  port: number;
  /** SWITCHBOARD_PUBLIC_URL: the base of every URL the API returns; unset: http://<host>:<port>. */
  publicUrl: string | undefined;
  dataDir: string;
  /** postgres://... selects PostgreSQL; otherwise SQLite in dataDir. */
  databaseUrl: string | undefined;
  logLevel: string;
  /** Fastify trustProxy: false, true, a hop count, or a comma-separated list of CIDRs. */
  trustProxy: boolean | number | string;
  /** Seconds between webhook attempts after the first (which is immediate). */
  webhookRetrySchedule: number[];
  webhookTimeoutMs: number;
  /** A call flow's webhook (answer_url, voice_url, action_url, redirect) not answered within this falls back (a caller waits in silence meanwhile). */
  flowWebhookTimeoutMs: number;
  webhookAllowPrivate: boolean;
  /** Multiplies every simulated carrier delay (0.01 makes a 5 s call last 50 ms). */
  simTimeScale: number;
  /** Extra non-business days for porting, YYYY-MM-DD. */
  holidays: string[];
  workerConcurrency: number;
  /** Slots of the webhook-delivery lane, apart from workerConcurrency's (src/jobs/queue.ts). */
  webhookWorkerConcurrency: number;
  /** How long a node trusts a cached API-key lookup or active-call count; changes made on this node clear them at once. */
  keyCacheTtlMs: number;
  /** Where rate-limit buckets live: `database` (shared by every node; PostgreSQL only) or `memory` (this node's). Unset: database on PostgreSQL, memory on SQLite. */
  rateLimitStore: 'database' | 'memory' | undefined;
  /** Fail fast when code queries the database inside a transaction instead of its trx (tests, development). */
  transactionGuard: boolean;
  /**
   * SWITCHBOARD_TRANSACTION_TIMEOUT_MS: the longest a database transaction may stay open.
   * Past it the transaction is rolled back and its request answers 503 transaction_timeout.
   */
  transactionTimeoutMs: number;
  /** Fault injection for tests: honour `X-Switchboard-Failpoint` headers (crash-before-response, hold-transaction:<ms>; never in production). */
  testFailpoints: boolean;
  /** Tests only, with testFailpoints: the live messaging ledger kills the process in the middle of its first batch of two or more writes of this kind. */
  testCrashInBatch: 'sending' | 'part' | 'receipt' | null;
  workerPollMs: number;
  /** How long a claimed job is leased before another worker may take it over (PostgreSQL). */
  jobLeaseMs: number;
  /** Key for signing secrets at rest (AES-256-GCM); unset: a key file generated in dataDir. */
  secretKey: string | undefined;
  llm: LlmConfig | undefined;
  /** YAML or JSON file configuring live carriers (SMPP binds, SIP trunks, ...); unset: none. */
  carriersFile: string | undefined;
  /** GET /metrics (Prometheus): off unless a port or a token is set (docs/observability.md). */
  metrics: MetricsConfig;
}

export interface MetricsConfig {
  /** SWITCHBOARD_METRICS_PORT / --metrics-port: serve /metrics on a listener of its own, and only there. */
  port: number | undefined;
  /** SWITCHBOARD_METRICS_HOST: the address of that listener (default: the API's host). */
  host: string;
  /** SWITCHBOARD_METRICS_TOKEN: a scrape must send `Authorization: Bearer <token>` (on either listener). */
  token: string | undefined;
}

/** Whether this server counts and serves metrics at all: off by default, so it costs nothing. */
export function metricsEnabled(metrics: MetricsConfig): boolean {
  return metrics.port !== undefined || metrics.token !== undefined;
}

type Env = Record<string, string | undefined>;

function number(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw new Error(`${name} must be a number, got "${raw}"`);
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new Error(`${name} must be true or false, got "${raw}"`);
}

function crashInBatch(raw: string | undefined): Config['testCrashInBatch'] {
  if (raw === undefined || raw === '') return null;
  if (raw === 'sending' || raw === 'part' || raw === 'receipt') return raw;
  throw new Error(`SWITCHBOARD_TEST_CRASH_IN_BATCH must be sending, part or receipt, got "${raw}"`);
}

function list(env: Env, name: string): string[] {
  return (env[name] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

function trustProxy(raw: string | undefined): boolean | number | string {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw;
}

function rateLimitStore(raw: string | undefined): 'database' | 'memory' | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'database' || raw === 'memory') return raw;
  throw new Error(`SWITCHBOARD_RATE_LIMIT_STORE must be database or memory, got "${raw}"`);
}

/** After the immediate first attempt: 5 s x 4^k capped at 10 h, nine retries (see webhooks/retry.ts). */
export const DEFAULT_RETRY_SCHEDULE = exponentialSchedule();

export interface Flags {
  host?: string;
  port?: number;
  dataDir?: string;
  metricsPort?: number;
}

/**
 * The scrape token is an operator's secret of its own: an API key belongs to a customer account
 * and must never open the whole server's figures, so a key-shaped token is refused.
 */
function metricsToken(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (/^sb_(live|test)_/.test(raw)) throw new Error('SWITCHBOARD_METRICS_TOKEN must not be an API key (sb_live_/sb_test_): choose a secret of its own');
  if (raw.length < 16) throw new Error('SWITCHBOARD_METRICS_TOKEN must be at least 16 characters');
  return raw;
}

function metricsConfig(env: Env, flags: Flags, host: string): MetricsConfig {
  const port = flags.metricsPort ?? (env.SWITCHBOARD_METRICS_PORT ? number(env, 'SWITCHBOARD_METRICS_PORT', 0) : undefined);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw new Error(`SWITCHBOARD_METRICS_PORT must be a port number, got "${port}"`);
  return { port, host: env.SWITCHBOARD_METRICS_HOST || host, token: metricsToken(env.SWITCHBOARD_METRICS_TOKEN) };
}

export function loadConfig(env: Env = process.env, flags: Flags = {}): Config {
  const schedule = list(env, 'SWITCHBOARD_WEBHOOK_RETRY_SCHEDULE').map((s) => {
    const n = Number(s);
    if (!Number.isFinite(n) || n < 0) throw new Error(`SWITCHBOARD_WEBHOOK_RETRY_SCHEDULE has a bad entry "${s}"`);
    return n;
  });
  const llmBase = env.SWITCHBOARD_LLM_BASE_URL;
  const host = flags.host ?? env.SWITCHBOARD_HOST ?? '127.0.0.1';
  return {
    host,
    port: flags.port ?? number(env, 'SWITCHBOARD_PORT', number(env, 'PORT', 8080)),
    publicUrl: env.SWITCHBOARD_PUBLIC_URL ? parsePublicUrl(env.SWITCHBOARD_PUBLIC_URL) : undefined,
    dataDir: resolve(flags.dataDir ?? env.SWITCHBOARD_DATA_DIR ?? './data'),
    databaseUrl: env.DATABASE_URL || undefined,
    logLevel: env.SWITCHBOARD_LOG_LEVEL ?? 'info',
    trustProxy: trustProxy(env.SWITCHBOARD_TRUST_PROXY),
    webhookRetrySchedule: schedule.length > 0 ? schedule : DEFAULT_RETRY_SCHEDULE,
    webhookTimeoutMs: number(env, 'SWITCHBOARD_WEBHOOK_TIMEOUT_MS', 10_000),
    flowWebhookTimeoutMs: number(env, 'SWITCHBOARD_FLOW_WEBHOOK_TIMEOUT_MS', 5_000),
    webhookAllowPrivate: bool(env, 'SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE', false),
    simTimeScale: number(env, 'SWITCHBOARD_SIM_TIME_SCALE', 1),
    holidays: list(env, 'SWITCHBOARD_HOLIDAYS'),
    workerConcurrency: number(env, 'SWITCHBOARD_WORKER_CONCURRENCY', 64),
    webhookWorkerConcurrency: number(env, 'SWITCHBOARD_WEBHOOK_WORKER_CONCURRENCY', 64),
    keyCacheTtlMs: number(env, 'SWITCHBOARD_KEY_CACHE_TTL_MS', 1000),
    rateLimitStore: rateLimitStore(env.SWITCHBOARD_RATE_LIMIT_STORE),
    transactionGuard: bool(env, 'SWITCHBOARD_TRANSACTION_GUARD', false),
    transactionTimeoutMs: number(env, 'SWITCHBOARD_TRANSACTION_TIMEOUT_MS', 5_000),
    testFailpoints: bool(env, 'SWITCHBOARD_TEST_FAILPOINTS', false),
    testCrashInBatch: crashInBatch(env.SWITCHBOARD_TEST_CRASH_IN_BATCH),
    workerPollMs: number(env, 'SWITCHBOARD_WORKER_POLL_MS', 200),
    jobLeaseMs: number(env, 'SWITCHBOARD_JOB_LEASE_MS', 30_000),
    secretKey: env.SWITCHBOARD_SECRET_KEY || undefined,
    llm: llmBase
      ? {
          baseUrl: llmBase,
          apiKey: env.SWITCHBOARD_LLM_API_KEY,
          model: env.SWITCHBOARD_LLM_MODEL ?? 'gpt-4o-mini',
          timeoutMs: number(env, 'SWITCHBOARD_LLM_TIMEOUT_MS', 8000),
        }
      : undefined,
    carriersFile: env.SWITCHBOARD_CARRIERS_FILE ? resolve(env.SWITCHBOARD_CARRIERS_FILE) : undefined,
    metrics: metricsConfig(env, flags, host),
  };
}

// What every module is given: configuration, the database, the clock, the job queue and
// sandbox test clocks. Built once in app.ts; services take the parts they need.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Database } from '../store/db.ts';
import type { Clock } from './clock.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { SandboxClocks } from '../jobs/sandbox-clocks.ts';
import type { Mode } from '../store/platform-tables.ts';
import type { AccountRow } from '../store/platform-tables.ts';
import type { Scope } from './scopes.ts';
import type { TtlCache } from './ttl-cache.ts';
import type { PublicUrl } from './public-url.ts';
import type { RateLimitDecision, RateLimitPolicy, RateLimiter } from './rate-limiter.ts';

export interface Platform {
  config: Config;
  database: Database;
  /** Real time. Per-request code uses `request.auth.clock`, which includes a sandbox test clock. */
  clock: Clock;
  jobs: JobQueue;
  sandboxClocks: SandboxClocks;
  /** Cached API-key lookups; cleared by any key, account or test-clock change. */
  keyCache: TtlCache<unknown>;
  /** The base of every absolute URL the API returns (SWITCHBOARD_PUBLIC_URL). */
  publicUrl: PublicUrl;
  log: FastifyBaseLogger;
  /** The API's rate limiter: the console's sign-in spends from the same per-address buckets. */
  limiter: RateLimiter;
  /** What a caller without a valid key may spend per address (bucket `ip:<address>`). */
  anonymousRateLimit: RateLimitPolicy;
}

/** Who is calling: resolved from the API key by the auth hook. */
export interface AuthContext {
  account: AccountRow;
  mode: Mode;
  keyId: string;
  scopes: string[];
  /** The account's clock in this mode: real time, or the sandbox test clock. */
  clock: Clock;
  /** This request's rate-limit decision (also sent as headers). */
  rateLimit: RateLimitDecision;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext;
  }
  interface FastifyContextConfig {
    /** Every /v1 route declares the scope it needs, or `public: true`. */
    scope?: Scope;
    public?: boolean;
    /**
     * How a write keeps its Idempotency-Key. `request-transaction` (the default): the claim,
     * everything the handler changes and the stored answer are one transaction. `handler`: for
     * a handler that must not run inside one transaction (it runs jobs, each in its own); it
     * gets the key as `request.idempotencyKey` and makes its effect happen once per key itself.
     * A stored answer is still replayed, and a new one stored, the same way. `service-transaction`:
     * for a hot write whose change is one transaction of its service (POST /v1/calls,
     * POST /v1/messages, POST /v1/numbers/{id}/sms): the handler answers through `answerOnce` (answer-once.ts), which has
     * the service store the rendered answer as the last statement of that very transaction.
     */
    idempotency?: 'request-transaction' | 'service-transaction' | 'handler';
  }
}

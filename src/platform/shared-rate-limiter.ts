// Token buckets in the PostgreSQL database every node shares (table rate_limit_buckets,
// migration 0023), so an account spends one budget however many nodes answer it and every
// node's headers tell the same standing.
//
// One statement per request: an upsert that refills the bucket for the time since its last
// use and takes a token, computed in SQL from the database clock (the one clock all nodes
// share) under the row lock the upsert holds, so two nodes never both spend the last token.
//
// If the database does not answer within `timeoutMs` (unreachable, overloaded), the request
// is not held: this node fails open to its own in-memory buckets for `localForMs`, logs it
// once, then tries the database again. Meanwhile each node allows the plan on its own.
import { CompiledQuery, type Kysely } from 'kysely';
import { MemoryRateLimiter, bucketDecision, type RateLimitDecision, type RateLimitPolicy, type RateLimiter } from './rate-limiter.ts';

export interface SharedRateLimiterOptions {
  /** How long a request waits for the database before it is decided locally. */
  timeoutMs?: number;
  /** After a failure, how long this node decides locally before asking the database again. */
  localForMs?: number;
}

interface Log {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

interface BucketRow {
  tokens: number;
  granted: number;
}

// $1 key, $2 capacity (= per minute), $3 cost. A new bucket starts full. `granted` records what
// this take got, because PostgreSQL 15's RETURNING sees only the new row, not the tokens before.
const TAKE = `
INSERT INTO rate_limit_buckets AS b (key, tokens, granted, updated_at)
VALUES ($1, CASE WHEN $2::float8 >= $3::float8 THEN $2::float8 - $3::float8 ELSE $2::float8 END,
        CASE WHEN $2::float8 >= $3::float8 THEN $3::int ELSE 0 END, clock_timestamp())
ON CONFLICT (key) DO UPDATE SET
  tokens = CASE WHEN ${refilled('excluded.updated_at')} >= $3::float8
    THEN ${refilled('excluded.updated_at')} - $3::float8 ELSE ${refilled('excluded.updated_at')} END,
  granted = CASE WHEN ${refilled('excluded.updated_at')} >= $3::float8 THEN $3::int ELSE 0 END,
  updated_at = excluded.updated_at
RETURNING tokens, granted`;

// $1 key, $2 capacity: what the bucket holds now, spending nothing (no row: full).
const PEEK = `SELECT ${refilled('clock_timestamp()')} AS tokens, 0 AS granted FROM rate_limit_buckets b WHERE key = $1`;

/** SQL for the bucket's tokens refilled up to `now` at capacity per minute, never above capacity. */
function refilled(now: string): string {
  return `least($2::float8, b.tokens + greatest(0, extract(epoch from ${now} - b.updated_at)::float8) * $2::float8 / 60)`;
}

// A bucket idle for two minutes is full again (it refills in one), so its row says nothing.
// Bounded per run; the outer condition is rechecked on a row another node just updated.
const SWEEP_BATCH = 1000;
const SWEEP = `
DELETE FROM rate_limit_buckets WHERE key IN (
  SELECT key FROM rate_limit_buckets WHERE updated_at < clock_timestamp() - interval '2 minutes' LIMIT ${SWEEP_BATCH}
) AND updated_at < clock_timestamp() - interval '2 minutes'`;

export class SharedRateLimiter implements RateLimiter {
  private readonly local = new MemoryRateLimiter();
  private readonly timeoutMs: number;
  private readonly localForMs: number;
  /** Until then (Date.now()), decide locally without asking the database. */
  private localUntilMs = 0;
  /** Set while the database was failing, so its return is logged once. */
  private degraded = false;
  private sweepAtMs = 0;

  constructor(private readonly db: Kysely<any>, private readonly log: Log, opts: SharedRateLimiterOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? 1000;
    this.localForMs = opts.localForMs ?? 5000;
  }

  consume(key: string, policy: RateLimitPolicy, nowMs: number): RateLimitDecision | Promise<RateLimitDecision> {
    const cost = 1;
    return this.ask(TAKE, [key, policy.perMinute, cost], policy, cost, () => this.local.consume(key, policy, nowMs));
  }

  peek(key: string, policy: RateLimitPolicy, nowMs: number): RateLimitDecision | Promise<RateLimitDecision> {
    return this.ask(PEEK, [key, policy.perMinute], policy, 0, () => this.local.peek(key, policy, nowMs));
  }

  private ask(query: string, params: unknown[], policy: RateLimitPolicy, cost: number, locally: () => RateLimitDecision): RateLimitDecision | Promise<RateLimitDecision> {
    const now = Date.now();
    if (now < this.localUntilMs) return locally();
    if (now >= this.sweepAtMs) this.sweep(now);
    const answer = this.db.executeQuery<BucketRow>(CompiledQuery.raw(query, params)).then(({ rows }) => {
      if (this.degraded && Date.now() >= this.localUntilMs) this.recovered();
      const row = rows[0];
      // Peek of a bucket nobody used lately: full.
      if (!row) return bucketDecision(policy.perMinute, policy.perMinute, true, 0);
      return bucketDecision(policy.perMinute, Number(row.tokens), Number(row.granted) >= cost, cost);
    });
    return within(answer, this.timeoutMs).catch((err: unknown) => {
      this.failOpen(err);
      return locally();
    });
  }

  private failOpen(err: unknown): void {
    const now = Date.now();
    if (now >= this.localUntilMs) {
      this.log.warn({ err, localForMs: this.localForMs }, 'rate limits: the database did not answer; this node limits with its own buckets for now');
    }
    this.localUntilMs = now + this.localForMs;
    this.degraded = true;
  }

  private recovered(): void {
    this.degraded = false;
    this.log.info({}, 'rate limits: the database answers again; buckets are shared by every node once more');
  }

  /** Fire and forget: a sweep that fails or lags costs nothing but rows. A full batch means more wait: sooner again. */
  private sweep(now: number): void {
    this.sweepAtMs = now + 60_000;
    this.db.executeQuery(CompiledQuery.raw(SWEEP, [])).then(
      (r) => { if (Number(r.numAffectedRows ?? 0) >= SWEEP_BATCH) this.sweepAtMs = Date.now() + 1000; },
      (err: unknown) => this.log.info({ err }, 'rate limits: sweeping idle buckets failed; the next sweep retries'),
    );
  }
}

/** The promise's answer, or a rejection once `ms` pass first. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(
      (value) => { clearTimeout(timer); resolve(value); },
      (err: unknown) => { clearTimeout(timer); reject(err); },
    );
  });
}

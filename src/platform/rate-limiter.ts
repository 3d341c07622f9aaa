// Token buckets per account and mode (and per client IP before authentication).
// The interface is async-capable: on PostgreSQL the buckets live in the shared database
// (shared-rate-limiter.ts) so several nodes spend one budget; SQLite is one node and keeps
// them here, in memory, answering synchronously.

export interface RateLimitPolicy {
  /** Sustained requests per minute; the bucket also holds this many (the burst). */
  perMinute: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Whole requests left after this one. */
  remaining: number;
  /** Whole seconds until the bucket is full again. */
  resetSeconds: number;
  /** When refused: whole seconds until one request is allowed. */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  consume(key: string, policy: RateLimitPolicy, nowMs: number): RateLimitDecision | Promise<RateLimitDecision>;
  peek(key: string, policy: RateLimitPolicy, nowMs: number): RateLimitDecision | Promise<RateLimitDecision>;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/** The answer for a bucket of `capacity` holding `tokens` after a take of `cost` was (or was not) allowed. */
export function bucketDecision(capacity: number, tokens: number, allowed: boolean, cost: number): RateLimitDecision {
  const perSecond = capacity / 60;
  return {
    allowed,
    limit: capacity,
    remaining: Math.floor(tokens),
    resetSeconds: Math.ceil((capacity - tokens) / perSecond),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((cost - tokens) / perSecond)),
  };
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private sweepAtMs = 0;

  consume(key: string, policy: RateLimitPolicy, nowMs: number): RateLimitDecision {
    return this.take(key, policy, nowMs, 1);
  }

  peek(key: string, policy: RateLimitPolicy, nowMs: number): RateLimitDecision {
    return this.take(key, policy, nowMs, 0);
  }

  private take(key: string, policy: RateLimitPolicy, nowMs: number, cost: number): RateLimitDecision {
    const capacity = policy.perMinute;
    const perMs = capacity / 60_000;
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { tokens: capacity, updatedMs: nowMs };
      this.buckets.set(key, bucket);
    }
    bucket.tokens = Math.min(capacity, bucket.tokens + (nowMs - bucket.updatedMs) * perMs);
    bucket.updatedMs = nowMs;
    const allowed = bucket.tokens >= cost;
    if (allowed) bucket.tokens -= cost;
    if (nowMs >= this.sweepAtMs) this.sweep(nowMs);
    return bucketDecision(capacity, bucket.tokens, allowed, cost);
  }

  /** Full buckets carry no information; dropping them keeps memory bounded. */
  private sweep(nowMs: number): void {
    this.sweepAtMs = nowMs + 60_000;
    for (const [key, bucket] of this.buckets) {
      if (nowMs - bucket.updatedMs > 60 * 60_000) this.buckets.delete(key);
    }
  }
}

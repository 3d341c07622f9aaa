// A rate limiter for tests that send hundreds of requests without a key from one address:
// account buckets behave as in production; the per-IP bucket for anonymous requests is wide.
import { MemoryRateLimiter, type RateLimiter } from '../../src/platform/rate-limiter.ts';

export function generousAnonymousLimiter(): RateLimiter {
  const inner = new MemoryRateLimiter();
  const wide = (key: string, perMinute: number) => ({ perMinute: key.startsWith('ip:') ? 1_000_000 : perMinute });
  return {
    consume: (key, policy, now) => inner.consume(key, wide(key, policy.perMinute), now),
    peek: (key, policy, now) => inner.peek(key, wide(key, policy.perMinute), now),
  };
}

/** Every bucket wide (account and address): for fuzzing, where 429s would hide every other answer. */
export function generousLimiter(): RateLimiter {
  const inner = new MemoryRateLimiter();
  const wide = { perMinute: 1_000_000 };
  return {
    consume: (key, _policy, now) => inner.consume(key, wide, now),
    peek: (key, _policy, now) => inner.peek(key, wide, now),
  };
}

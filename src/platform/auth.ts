// Authentication, authorization and rate limiting, in one onRequest hook so that every
// response (401, 404 and 429 included) carries the rate-limit headers.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';
import type { Platform } from './context.ts';
import { Problem } from './problems.ts';
import { sendProblem } from './errors.ts';
import { grants, type Scope } from './scopes.ts';
import { constantTimeEqual, sha256Hex, KEY_BODY_LENGTH } from './secrets.ts';
import type { RateLimitDecision, RateLimiter } from './rate-limiter.ts';
import { offsetClock } from './clock.ts';
import { rateLimitHeaders, type AnonymousRateHeaders } from './framework-errors.ts';
import type { TtlCache } from './ttl-cache.ts';
import { limitsOf } from './plans.ts';
import type { AccountRow, ApiKeyRow } from '../store/platform-tables.ts';

const KEY_PATTERN = new RegExp(`^sb_(test|live)_[0-9A-Za-z]{${KEY_BODY_LENGTH}}$`);

export interface AuthOptions {
  limiter: RateLimiter;
  /** Requests per minute per client IP for requests without a valid key. */
  anonymousPerMinute: number;
}

function setRateHeaders(reply: FastifyReply, d: RateLimitDecision): void {
  reply.headers(rateLimitHeaders(d));
}

function rateLimited(d: RateLimitDecision, who: string): Problem {
  return new Problem('rate_limited', `${who} is limited to ${d.limit} requests per minute; retry in ${d.retryAfterSeconds} s.`, {
    headers: { 'retry-after': String(d.retryAfterSeconds) },
  });
}

const cidrCache = new Map<string, Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>>();

function parseCidrs(json: string): Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> {
  let parsed = cidrCache.get(json);
  if (!parsed) {
    parsed = (JSON.parse(json) as string[]).map((c) => ipaddr.parseCIDR(c));
    if (cidrCache.size > 10_000) cidrCache.clear();
    cidrCache.set(json, parsed);
  }
  return parsed;
}

export function ipAllowed(allowedJson: string, ip: string): boolean {
  const ranges = parseCidrs(allowedJson);
  if (ranges.length === 0) return true;
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.process(ip); // IPv4-mapped IPv6 becomes IPv4
  } catch {
    return false;
  }
  return ranges.some(([range, bits]) => address.kind() === range.kind() && address.match([range, bits] as any));
}

type KeyLookup = ApiKeyRow & { account: AccountRow; offset_ms: number | null; scopeList: string[] };

/** A cached lookup answers synchronously: most requests never leave this tick for auth. */
function findKey(platform: Platform, secret: string, nowMs: number): KeyLookup | undefined | Promise<KeyLookup | undefined> {
  const hash = sha256Hex(secret);
  const cache = platform.keyCache as TtlCache<KeyLookup>;
  return cache.get(hash, nowMs) ?? loadKey(platform, hash, nowMs);
}

async function loadKey(platform: Platform, hash: string, nowMs: number): Promise<KeyLookup | undefined> {
  const row = await platform.database.db
    .selectFrom('api_keys as k')
    .innerJoin('accounts as a', 'a.id', 'k.account_id')
    .leftJoin('sandbox_clocks as c', (j) => j.onRef('c.account_id', '=', 'k.account_id').on('k.mode', '=', 'sandbox'))
    .selectAll('k')
    .select([
      'a.name as a_name', 'a.plan as a_plan', 'a.rate_limit_per_minute as a_rate', 'a.concurrent_calls_limit as a_concurrent',
      'a.trial_ends_at as a_trial_ends_at', 'a.created_at as a_created_at', 'a.updated_at as a_updated_at', 'c.offset_ms',
    ])
    .where('k.secret_hash', '=', hash)
    .executeTakeFirst();
  if (!row || !constantTimeEqual(row.secret_hash, hash)) return undefined;
  const found: KeyLookup = {
    ...row,
    account: {
      id: row.account_id, name: row.a_name, plan: row.a_plan, rate_limit_per_minute: row.a_rate,
      concurrent_calls_limit: row.a_concurrent, trial_ends_at: row.a_trial_ends_at,
      created_at: row.a_created_at, updated_at: row.a_updated_at,
    },
    offset_ms: row.offset_ms === null ? null : Number(row.offset_ms),
    scopeList: JSON.parse(row.scopes) as string[],
  };
  (platform.keyCache as TtlCache<KeyLookup>).set(hash, found, nowMs);
  return found;
}

/** Runs `next` on a value now, or once it resolves: the hot path stays synchronous when it can. */
function then<T>(value: T | Promise<T>, next: (value: T) => Pending): Pending {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** What the auth steps return: nothing (go on), the reply (answered early), or either later. */
type Pending = void | FastifyReply | Promise<unknown>;

/** Returns the rate-limit headers of an anonymous caller, for answers given before routing. */
export function registerAuth(app: FastifyInstance, platform: Platform, opts: AuthOptions): AnonymousRateHeaders {
  app.decorateRequest('auth', null as any);
  const anonymous = { perMinute: opts.anonymousPerMinute };

  /** Public routes and non-API paths spend nothing, but still show the caller's IP bucket. */
  function showAnonymousLimit(request: FastifyRequest, reply: FastifyReply): Pending {
    const d = opts.limiter.peek(`ip:${request.ip}`, anonymous, platform.clock.now().getTime());
    return then(d, (decision) => { setRateHeaders(reply, decision); });
  }

  /** Requests without a valid key spend from their IP's bucket, then get their problem. */
  function refuse(request: FastifyRequest, reply: FastifyReply, problem: Problem): Pending {
    return then(opts.limiter.consume(`ip:${request.ip}`, anonymous, platform.clock.now().getTime()), (d) => {
      setRateHeaders(reply, d);
      if (!d.allowed) return sendProblem(request, reply, rateLimited(d, 'Your address'));
      if (problem.status === 401) reply.header('www-authenticate', 'Bearer realm="switchboard"');
      return sendProblem(request, reply, problem);
    });
  }

  // Who may pass is decided by the route the router matched, never by the URL text: the
  // router decodes "%76" and absolute-form targets, so the text is not what it matched.
  // Every route declares a scope or `public` (app.ts refuses any other at registration).
  // A request that matched no route reaches only the 404/405 handler, which reads nothing;
  // it is authenticated when it brings a key, so its rate-limit headers are its own.
  function authenticate(request: FastifyRequest, reply: FastifyReply): Pending {
    const config = request.routeOptions.config;
    if (config.public) return showAnonymousLimit(request, reply);
    const header = request.headers.authorization;
    if (request.is404 && !header) return showAnonymousLimit(request, reply);

    if (!header) {
      return refuse(request, reply, new Problem('missing_api_key', 'Send your API key as "Authorization: Bearer sb_test_..." (sandbox) or "sb_live_..." (live).'));
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const secret = match?.[1];
    if (!secret || !KEY_PATTERN.test(secret)) {
      return refuse(request, reply, new Problem('invalid_api_key', 'The Authorization header must be "Bearer " followed by an sb_test_ or sb_live_ key.'));
    }
    const now = platform.clock.now();
    return then(findKey(platform, secret, now.getTime()), (key) => admit(request, reply, key, now, config.scope));
  }

  /** `needed`: the route's scope (only the 404/405 handler has none). */
  function admit(request: FastifyRequest, reply: FastifyReply, key: KeyLookup | undefined, now: Date, needed: Scope | undefined): Pending {
    if (!key) return refuse(request, reply, new Problem('invalid_api_key', 'No API key matches the one provided.'));
    if (key.status === 'revoked') return refuse(request, reply, new Problem('api_key_revoked', `API key ${key.id} was revoked.`));
    if (key.expires_at !== null && key.expires_at <= now.toISOString()) {
      return refuse(request, reply, new Problem('api_key_expired', `API key ${key.id} expired at ${key.expires_at} after being rotated; use its replacement.`));
    }
    const limits = limitsOf(key.account);
    const decision = opts.limiter.consume(`${key.account_id}:${key.mode}`, { perMinute: limits.requests_per_minute }, now.getTime());
    return then(decision, (d) => authorize(request, reply, key, d, now, needed));
  }

  function authorize(request: FastifyRequest, reply: FastifyReply, key: KeyLookup, d: RateLimitDecision, now: Date, needed: Scope | undefined): Pending {
    setRateHeaders(reply, d);
    if (!d.allowed) return sendProblem(request, reply, rateLimited(d, `Account ${key.account_id} (${key.mode})`));

    if (!ipAllowed(key.allowed_ips, request.ip)) {
      return sendProblem(request, reply, new Problem('ip_not_allowed', `Requests from ${request.ip} are not allowed for key ${key.id}.`));
    }
    if (key.mode === 'live' && key.account.plan === 'trial' && key.account.trial_ends_at !== null && key.account.trial_ends_at <= now.toISOString()) {
      return sendProblem(request, reply, new Problem('trial_expired', `The trial ended at ${key.account.trial_ends_at}. Choose a plan to keep using live mode; sandbox keys keep working.`));
    }

    request.auth = {
      account: key.account,
      mode: key.mode,
      keyId: key.id,
      scopes: key.scopeList,
      clock: key.offset_ms ? offsetClock(platform.clock, key.offset_ms) : platform.clock,
      rateLimit: d,
    };

    if (!needed) {
      if (request.is404) return;
      // Unreachable by construction (app.ts); refusing keeps it default-deny regardless.
      return sendProblem(request, reply, new Problem('insufficient_scope', 'This endpoint declares no scope, so no key may use it.'));
    }
    if (!grants(key.scopeList, needed)) {
      return sendProblem(request, reply, new Problem('insufficient_scope', `This request needs the "${needed}" scope, which key ${key.id} does not have.`, {
        extensions: { required_scope: needed },
      }));
    }
  }

  // A callback hook rather than an async one: with a cached key and the in-memory limiter,
  // authentication finishes without a promise. A hook that answered early (a problem) must
  // not call done(); a promise settles only once its answer is written, so done() is safe.
  app.addHook('onRequest', (request, reply, done) => {
    let pending: Pending;
    try {
      pending = authenticate(request, reply);
    } catch (err) {
      return done(err as Error);
    }
    if (pending === reply) return;
    if (pending instanceof Promise) pending.then(() => done(), done);
    else done();
  });

  return (ip) => {
    const d = opts.limiter.peek(`ip:${ip}`, anonymous, platform.clock.now().getTime());
    return d instanceof Promise ? d.then(rateLimitHeaders) : rateLimitHeaders(d);
  };
}

// The HTTP core every generated method goes through: auth, User-Agent, timeouts, retries
// with exponential backoff and jitter, Idempotency-Key on writes (one key reused by every
// retry of a request), problem bodies turned into typed errors, response metadata.
import { randomUUID } from 'node:crypto';
import { APIConnectionError, APITimeoutError, errorFor } from './errors.js';
import { SDK_VERSION } from './version.js';

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

export const DEFAULTS = Object.freeze({
  baseUrl: 'http://127.0.0.1:8080',
  timeout: 30_000,
  maxRetries: 2,
  initialRetryDelay: 500,
  maxRetryDelay: 8_000,
  maxRetryAfter: 60_000,
});

export class Transport {
  constructor(options = {}) {
    const env = typeof process !== 'undefined' ? process.env : {};
    this.apiKey = options.apiKey ?? env.SWITCHBOARD_API_KEY;
    if (!this.apiKey) throw new TypeError('Switchboard: pass apiKey or set SWITCHBOARD_API_KEY');
    this.baseUrl = (options.baseUrl ?? env.SWITCHBOARD_BASE_URL ?? DEFAULTS.baseUrl).replace(/\/+$/, '');
    this.timeout = options.timeout ?? DEFAULTS.timeout;
    this.maxRetries = options.maxRetries ?? DEFAULTS.maxRetries;
    this.initialRetryDelay = options.initialRetryDelay ?? DEFAULTS.initialRetryDelay;
    this.maxRetryDelay = options.maxRetryDelay ?? DEFAULTS.maxRetryDelay;
    this.maxRetryAfter = options.maxRetryAfter ?? DEFAULTS.maxRetryAfter;
    this.fetch = options.fetch ?? globalThis.fetch;
    this.headers = options.headers ?? {};
    this.userAgent = `switchboard-node/${SDK_VERSION} node/${typeof process !== 'undefined' ? process.version : 'unknown'}`;
  }

  /**
   * Sends one API request (retrying as configured) and returns `{ data, response }`.
   * `responseType` is 'json' or 'binary'.
   */
  async request({ method, path, query, body, responseType = 'json' }, options = {}) {
    const url = new URL(this.baseUrl + path);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      url.searchParams.set(name, String(value));
    }
    const headers = {
      accept: responseType === 'json' ? 'application/json' : '*/*',
      authorization: `Bearer ${this.apiKey}`,
      'user-agent': this.userAgent,
      ...this.headers,
      ...(options.headers ?? {}),
    };
    let payload;
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    if (WRITE_METHODS.has(method)) headers['idempotency-key'] = options.idempotencyKey ?? `sdk-node-${randomUUID()}`;

    const maxRetries = options.maxRetries ?? this.maxRetries;
    const timeout = options.timeout ?? this.timeout;
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0) headers['x-switchboard-retry-count'] = String(attempt);
      let outcome;
      try {
        outcome = await this.once(method, url, headers, payload, responseType, timeout, options.signal);
      } catch (err) {
        if (err instanceof APIConnectionError && !err.aborted && attempt < maxRetries) {
          await sleep(this.backoff(attempt, null), options.signal);
          continue;
        }
        throw err;
      }
      if (outcome.ok) return outcome;
      const error = errorFor(outcome.response.status, outcome.problem, outcome.response.headers);
      if (attempt < maxRetries && retryable(error)) {
        await sleep(this.backoff(attempt, outcome.response.headers.get('retry-after')), options.signal);
        continue;
      }
      throw error;
    }
  }

  async once(method, url, headers, payload, responseType, timeout, signal) {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; controller.abort(); }, timeout);
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const res = await this.fetch(url, { method, headers, body: payload, signal: controller.signal });
      const response = describe(res);
      if (res.ok) {
        const data = responseType === 'binary'
          ? new Uint8Array(await res.arrayBuffer())
          : parseJson(await res.text());
        return { ok: true, data, response };
      }
      const text = await res.text();
      const problem = /json/.test(res.headers.get('content-type') ?? '') ? parseJson(text) : text;
      return { ok: false, problem, response };
    } catch (err) {
      if (timedOut) throw new APITimeoutError(`${method} ${url.pathname} timed out after ${timeout} ms`);
      const connection = new APIConnectionError(`${method} ${url.pathname} failed: ${err?.cause?.code ?? err?.message ?? err}`, err);
      connection.aborted = Boolean(signal?.aborted);
      throw connection;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Milliseconds before retry number `attempt + 1`: Retry-After when given (capped), else exponential with jitter. */
  backoff(attempt, retryAfter) {
    const fromHeader = parseRetryAfter(retryAfter);
    if (fromHeader !== null) return Math.min(fromHeader, this.maxRetryAfter);
    const ceiling = Math.min(this.maxRetryDelay, this.initialRetryDelay * 2 ** attempt);
    return ceiling / 2 + Math.random() * (ceiling / 2);
  }
}

function retryable(error) {
  const { status } = error;
  return status === 408 || status === 429 || status >= 500 || (status === 409 && error.code === 'idempotency_key_in_progress');
}

function parseRetryAfter(value) {
  if (value === null || value === undefined || value === '') return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

function parseJson(text) {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The metadata callers can read from any result: status, headers, request id, rate limit. */
function describe(res) {
  const number = (name) => {
    const v = res.headers.get(name);
    return v === null ? undefined : Number(v);
  };
  return {
    status: res.status,
    headers: res.headers,
    requestId: res.headers.get('x-request-id') ?? undefined,
    idempotentReplayed: res.headers.get('idempotent-replayed') === 'true',
    rateLimit: { remaining: number('x-switchboard-ratelimit-remaining'), reset: number('x-switchboard-ratelimit-reset') },
  };
}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new APIConnectionError('request aborted'));
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => { clearTimeout(timer); reject(new APIConnectionError('request aborted')); }, { once: true });
  });
}

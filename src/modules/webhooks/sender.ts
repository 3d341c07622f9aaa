// The HTTP side of a delivery: pooled keep-alive connections (one undici Agent per URL
// policy), a hard timeout, no redirects (a 3xx is a failed attempt), and a capped read of
// the response body so a hostile receiver cannot make us buffer megabytes.
import type * as Undici from 'undici';
import { lazyRequire } from '../../platform/lazy-require.ts';
import type { Mode } from '../../store/platform-tables.ts';
import { guardedLookup, type UrlPolicyConfig } from './url-policy.ts';

/** Loaded on first use (see platform/lazy-require.ts). */
const undici = lazyRequire<typeof Undici>('undici');

/** Bytes of the response kept as the attempt's excerpt. */
export const EXCERPT_BYTES = 4096;
/** Bytes read (and discarded) beyond the excerpt before we drop the connection instead. */
const DRAIN_LIMIT = 64 * 1024;
/** The longest Retry-After we honour; longer values are clamped. */
const MAX_RETRY_AFTER_SECONDS = 24 * 60 * 60;

export interface SendResult {
  statusCode: number | null;
  latencyMs: number;
  excerpt: string | null;
  error: string | null;
  /** Parsed Retry-After, in seconds, when the receiver sent one. */
  retryAfterSeconds: number | null;
}

export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return null;
  const trimmed = raw.trim();
  let seconds: number;
  if (/^\d+$/.test(trimmed)) seconds = Number(trimmed);
  else {
    const at = Date.parse(trimmed);
    if (Number.isNaN(at)) return null;
    seconds = Math.max(0, (at - nowMs) / 1000);
  }
  return Math.min(seconds, MAX_RETRY_AFTER_SECONDS);
}

export class WebhookSender {
  private readonly agents = new Map<string, Undici.Agent>();

  constructor(private readonly config: UrlPolicyConfig & { webhookTimeoutMs: number }) {}

  private agentFor(mode: Mode, protocol: string): Undici.Agent {
    const key = `${mode}:${protocol}`;
    let agent = this.agents.get(key);
    if (!agent) {
      agent = new (undici().Agent)({
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 60_000,
        maxRedirections: 0,
        headersTimeout: this.config.webhookTimeoutMs,
        bodyTimeout: this.config.webhookTimeoutMs,
        connect: { timeout: this.config.webhookTimeoutMs, lookup: guardedLookup(mode, protocol, this.config) as any },
      });
      this.agents.set(key, agent);
    }
    return agent;
  }

  async send(url: URL, mode: Mode, headers: Record<string, string>, body: string, nowMs: () => number): Promise<SendResult> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    try {
      const res = await undici().request(url, {
        method: 'POST',
        headers,
        body,
        dispatcher: this.agentFor(mode, url.protocol),
        signal: AbortSignal.timeout(this.config.webhookTimeoutMs),
      });
      const excerpt = await readCapped(res.body);
      return {
        statusCode: res.statusCode,
        latencyMs: latency(),
        excerpt,
        error: null,
        retryAfterSeconds: parseRetryAfter(res.headers['retry-after'], nowMs()),
      };
    } catch (err) {
      return { statusCode: null, latencyMs: latency(), excerpt: null, error: describe(err), retryAfterSeconds: null };
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map((a) => a.close()));
    this.agents.clear();
  }
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let total = 0;
  for await (const chunk of body) {
    if (keptBytes < EXCERPT_BYTES) {
      const part = chunk.subarray(0, EXCERPT_BYTES - keptBytes);
      kept.push(part);
      keptBytes += part.length;
    }
    total += chunk.length;
    if (total > DRAIN_LIMIT) {
      body.destroy(); // give up the connection rather than read an unbounded body
      break;
    }
  }
  return Buffer.concat(kept).toString('utf8');
}

function describe(err: unknown): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT') return 'timeout: no complete answer within the timeout';
  const code = e.code ?? e.cause?.code;
  const message = e.message ?? e.cause?.message ?? String(err);
  return (code ? `${code}: ${message}` : message).slice(0, 500);
}

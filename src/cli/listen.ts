// `switchboard listen --forward-to URL`: receive webhooks on a laptop, like `stripe listen`.
// Opens a listen session with an API key, holds its event stream open (reconnecting with
// Last-Event-ID), forwards each delivery byte for byte with its original signature headers to
// the local URL, and posts back what the local receiver answered, so the server records the
// attempt (and retries or dead-letters it) as for any webhook endpoint. Talks to the server
// only through its public HTTP API.
import { parse, required, UsageError } from './args.ts';
import { commandUsage } from './usage.ts';

/** Bytes of the local receiver's answer reported back (the server keeps the same excerpt). */
const EXCERPT_BYTES = 4096;
const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 10_000;

interface DeliveryEvent {
  dispatch_id: string;
  delivery_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  timeout_ms: number;
  headers: Record<string, string>;
  body: string;
}

interface ForwardResult {
  status_code: number | null;
  latency_ms: number;
  response_excerpt: string | null;
  error: string | null;
  retry_after: string | null;
}

export async function listenCommand(argv: string[], out: (s: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { values } = parse(argv, {
    'forward-to': { type: 'string' }, events: { type: 'string' }, 'api-key': { type: 'string' }, 'api-url': { type: 'string' }, json: { type: 'boolean' },
  });
  const forwardTo = required(values, 'forward-to');
  const apiKey = (values['api-key'] as string | undefined) ?? env.SWITCHBOARD_API_KEY;
  if (!apiKey) throw new UsageError(`an API key is needed: --api-key or SWITCHBOARD_API_KEY\n${commandUsage('listen')}`);
  const apiUrl = ((values['api-url'] as string | undefined) ?? env.SWITCHBOARD_BASE_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
  const events = typeof values.events === 'string' ? values.events.split(',').map((s) => s.trim()).filter(Boolean) : ['*'];
  const json = Boolean(values.json);
  const log = (human: string, record: Record<string, unknown>) => out(json ? JSON.stringify(record) + '\n' : `${new Date().toISOString()}  ${human}\n`);

  const api = async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(apiUrl + path, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).catch((err: { message?: string; cause?: { message?: string } }) => {
      throw new ListenError(`cannot reach ${apiUrl}: ${err.cause?.message ?? err.message}`, 0);
    });
    const text = await res.text();
    const parsed = text ? JSON.parse(text) : null;
    if (!res.ok) throw new ListenError(`${method} ${path}: ${res.status} ${parsed?.code ?? ''} ${parsed?.detail ?? text}`.trim(), res.status);
    return parsed;
  };

  const session = await api('POST', '/v1/webhooks/listen', { forward_to: forwardTo, events });
  log(`Ready! Forwarding ${events.join(', ')} to ${forwardTo} (session ${session.id}). Your webhook signing secret is ${session.secret} (^C to quit)`,
    { type: 'ready', session_id: session.id, secret: session.secret, events: session.events, forward_to: forwardTo });

  const stopper = new AbortController();
  const stop = () => stopper.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);

  const forward = async (d: DeliveryEvent): Promise<void> => {
    log(`--> ${d.event_type} [${d.event_id}] attempt ${d.attempt}`, { type: 'delivery', ...pick(d) });
    const result = await forwardOnce(forwardTo, d);
    log(result.status_code !== null
      ? `<-- [${result.status_code}] POST ${forwardTo} [${d.event_id}] ${result.latency_ms} ms`
      : `<-- [ERR] POST ${forwardTo} [${d.event_id}] ${result.error}`,
    { type: 'result', ...pick(d), status_code: result.status_code, latency_ms: result.latency_ms, error: result.error });
    try {
      await api('POST', `/v1/webhooks/${session.id}/listen/results`, { dispatch_id: d.dispatch_id, ...result });
    } catch (err) {
      // Too late (the server timed the attempt out) or the server went away: the server
      // counts the attempt as failed and retries it, so this is only worth a line.
      log(`could not report the result of ${d.event_id}: ${(err as Error).message}`, { type: 'report_failed', ...pick(d), error: (err as Error).message });
    }
  };

  let lastEventId: string | undefined;
  let wait = RECONNECT_MIN_MS;
  try {
    while (!stopper.signal.aborted) {
      try {
        await readStream(`${apiUrl}/v1/webhooks/${session.id}/listen`, apiKey, lastEventId, stopper.signal, (event, data, id) => {
          wait = RECONNECT_MIN_MS;
          if (id) lastEventId = id;
          if (event === 'delivery') void forward(JSON.parse(data) as DeliveryEvent);
        });
      } catch (err) {
        if (stopper.signal.aborted) break;
        if (err instanceof ListenError && err.status >= 400 && err.status < 500 && err.status !== 429) throw err;
        log(`stream interrupted (${(err as Error).message}); reconnecting in ${wait} ms`, { type: 'reconnecting', error: (err as Error).message, in_ms: wait });
      }
      if (stopper.signal.aborted) break;
      await sleep(wait, stopper.signal);
      wait = Math.min(wait * 2, RECONNECT_MAX_MS);
    }
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    // The session is this run's: delete it so nothing more is delivered to it.
    await api('DELETE', `/v1/webhooks/${session.id}`).catch(() => undefined);
    log(`session ${session.id} ended`, { type: 'ended', session_id: session.id });
  }
}

export class ListenError extends Error {
  constructor(message: string, readonly status: number) {
    super(message);
  }
}

const pick = (d: DeliveryEvent) => ({ event_id: d.event_id, event_type: d.event_type, delivery_id: d.delivery_id, dispatch_id: d.dispatch_id, attempt: d.attempt });

/** POSTs the delivery's exact bytes and headers to the local receiver, as the server would have. */
async function forwardOnce(url: string, d: DeliveryEvent): Promise<ForwardResult> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  try {
    const res = await fetch(url, {
      method: 'POST', headers: d.headers, body: Buffer.from(d.body, 'utf8'), redirect: 'manual', signal: AbortSignal.timeout(d.timeout_ms),
    });
    const excerpt = await readCapped(res);
    return { status_code: res.status, latency_ms: latency(), response_excerpt: excerpt, error: null, retry_after: res.headers.get('retry-after') };
  } catch (err) {
    const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
    const error = e.name === 'TimeoutError' ? `timeout: no answer within ${d.timeout_ms} ms`
      : e.cause?.code ? `${e.cause.code}: ${e.cause.message ?? e.message}` : String(e.message ?? err);
    return { status_code: null, latency_ms: latency(), response_excerpt: null, error: error.slice(0, 500), retry_after: null };
  }
}

async function readCapped(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const kept: Uint8Array[] = [];
  let size = 0;
  while (size < EXCERPT_BYTES) {
    const { done, value } = await reader.read();
    if (done) break;
    kept.push(value.subarray(0, EXCERPT_BYTES - size));
    size += Math.min(value.length, EXCERPT_BYTES - size);
  }
  await reader.cancel().catch(() => undefined);
  return new TextDecoder().decode(Buffer.concat(kept));
}

/** Reads one server-sent-events response until it ends; calls `onEvent` per event. */
async function readStream(url: string, apiKey: string, lastEventId: string | undefined, signal: AbortSignal,
  onEvent: (event: string, data: string, id: string | undefined) => void): Promise<void> {
  const res = await fetch(url, {
    headers: { authorization: `Bearer ${apiKey}`, accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
    signal,
  });
  if (!res.ok || !res.body) {
    const problem = await res.json().catch(() => null) as { code?: string; detail?: string } | null;
    throw new ListenError(`GET stream: ${res.status} ${problem?.code ?? ''} ${problem?.detail ?? ''}`.trim(), res.status);
  }
  const decoder = new TextDecoder();
  let buffered = '';
  let event = 'message';
  let data: string[] = [];
  let id: string | undefined;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline).replace(/\r$/, '');
      buffered = buffered.slice(newline + 1);
      if (line === '') {
        if (data.length > 0) onEvent(event, data.join('\n'), id);
        event = 'message';
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'id') id = value;
    }
  }
  throw new Error('the server closed the stream');
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

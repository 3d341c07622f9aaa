// The in-process meeting point of listen sessions (`switchboard listen`): the delivery worker
// hands it one attempt at a time (`send`), the hub writes it down the session's open event
// stream(s) and waits for the listener to post back what its local receiver answered
// (`answer`). The worker records that answer like any HTTP attempt, so retries and dead
// letters work as for any endpoint. A dispatch not yet answered is kept, so a listener that
// reconnects (with Last-Event-ID) receives what it had not seen yet.
//
// Streams and waits live in this process: a session's stream and the worker delivering to it
// must be on one node (docs/webhooks.md says so). On another node the attempt fails with "no
// listener connected" and is retried like any failed attempt.
import type { SendResult } from './sender.ts';
import { parseRetryAfter } from './sender.ts';

export interface DispatchInput {
  webhookId: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  /** The attempt number this dispatch is (1 for the first). */
  attempt: number;
  /** The exact headers (signature included) and body an HTTP delivery would have sent. */
  headers: Record<string, string>;
  body: string;
}

export interface Dispatch extends DispatchInput {
  id: string;
}

/** What the listener reports about one dispatch. */
export interface ListenAnswer {
  statusCode: number | null;
  latencyMs: number;
  excerpt: string | null;
  error: string | null;
  retryAfter: string | null;
}

/** One open event stream; `write` takes whole SSE frames. */
export interface ListenStream {
  write(frame: string): void;
  end(): void;
}

interface Waiting {
  dispatch: Dispatch;
  resolve: (result: SendResult) => void;
  timer: NodeJS.Timeout;
}

export const NO_LISTENER = 'no listener is connected to this listen session';
/** Time a listener has, beyond the forward itself, to report the result back. */
export const REPORT_MARGIN_MS = 2000;

export class ListenHub {
  private readonly streams = new Map<string, Set<ListenStream>>();
  /** Unanswered dispatches by id; a Map keeps them in dispatch order. */
  private readonly waiting = new Map<string, Waiting>();
  /** Dispatch ids are `<boot>-<sequence>`: ordered within this process, unknown to the next one. */
  private readonly boot = Date.now().toString(36);
  private sequence = 0;
  private closed = false;

  private readonly answerWithinMs: number;

  /** @param forwardTimeoutMs how long the listener's forward may take (the webhook timeout). */
  constructor(private readonly forwardTimeoutMs: number, private readonly nowMs: () => number = Date.now) {
    this.answerWithinMs = forwardTimeoutMs + REPORT_MARGIN_MS;
  }

  connected(webhookId: string): boolean {
    return (this.streams.get(webhookId)?.size ?? 0) > 0;
  }

  /**
   * Adds a stream to a session and sends it the session's unanswered dispatches: all of them,
   * or only those after `lastEventId` when it names a dispatch of this process. Returns the
   * function that removes the stream.
   */
  attach(webhookId: string, stream: ListenStream, lastEventId: string | undefined): () => void {
    let set = this.streams.get(webhookId);
    if (!set) this.streams.set(webhookId, (set = new Set()));
    set.add(stream);
    const after = this.sequenceOf(lastEventId);
    for (const w of this.waiting.values()) {
      if (w.dispatch.webhookId === webhookId && this.sequenceOf(w.dispatch.id) > after) stream.write(frame(w.dispatch, this.forwardTimeoutMs));
    }
    return () => {
      set.delete(stream);
      if (set.size === 0 && this.streams.get(webhookId) === set) this.streams.delete(webhookId);
    };
  }

  /** Sends one attempt down the session's streams and resolves with the listener's answer. */
  send(input: DispatchInput): Promise<SendResult> {
    if (this.closed || !this.connected(input.webhookId)) {
      return Promise.resolve({ statusCode: null, latencyMs: 0, excerpt: null, error: NO_LISTENER, retryAfterSeconds: null });
    }
    const dispatch: Dispatch = { ...input, id: `${this.boot}-${String(++this.sequence).padStart(12, '0')}` };
    return new Promise<SendResult>((resolve) => {
      const started = performance.now();
      const timer = setTimeout(() => this.finish(dispatch.id, {
        statusCode: null, latencyMs: Math.round(performance.now() - started), excerpt: null, retryAfterSeconds: null,
        error: `timeout: the listener reported no result within ${this.answerWithinMs} ms`,
      }), this.answerWithinMs);
      this.waiting.set(dispatch.id, { dispatch, resolve, timer });
      for (const stream of this.streams.get(input.webhookId) ?? []) stream.write(frame(dispatch, this.forwardTimeoutMs));
    });
  }

  /** The listener's report on a dispatch; the dispatch of another session or one no longer waiting is refused (false). */
  answer(webhookId: string, dispatchId: string, answer: ListenAnswer): { deliveryId: string } | null {
    const w = this.waiting.get(dispatchId);
    if (!w || w.dispatch.webhookId !== webhookId) return null;
    this.finish(dispatchId, {
      statusCode: answer.statusCode,
      latencyMs: answer.latencyMs,
      excerpt: answer.excerpt,
      error: answer.error,
      retryAfterSeconds: parseRetryAfter(answer.retryAfter ?? undefined, this.nowMs()),
    });
    return { deliveryId: w.dispatch.deliveryId };
  }

  /** Shutdown: ends every stream, and every waiting attempt fails (its retry comes after restart). */
  close(): void {
    this.closed = true;
    for (const set of this.streams.values()) for (const stream of set) stream.end();
    this.streams.clear();
    for (const id of [...this.waiting.keys()]) {
      this.finish(id, { statusCode: null, latencyMs: 0, excerpt: null, retryAfterSeconds: null, error: 'the server shut down before the listener answered' });
    }
  }

  private finish(id: string, result: SendResult): void {
    const w = this.waiting.get(id);
    if (!w) return;
    this.waiting.delete(id);
    clearTimeout(w.timer);
    w.resolve(result);
  }

  /** The sequence number of a dispatch id of this process; 0 (before all) for anything else. */
  private sequenceOf(id: string | undefined): number {
    if (!id) return 0;
    const [boot, seq] = id.split('-');
    return boot === this.boot && seq && /^\d+$/.test(seq) ? Number(seq) : 0;
  }
}

/** One dispatch as an SSE event. JSON.stringify escapes newlines, so `data` is one line. */
export function frame(d: Dispatch, forwardTimeoutMs: number): string {
  const data = {
    dispatch_id: d.id, delivery_id: d.deliveryId, event_id: d.eventId, event_type: d.eventType, attempt: d.attempt,
    timeout_ms: forwardTimeoutMs, headers: d.headers, body: d.body,
  };
  return `id: ${d.id}\nevent: delivery\ndata: ${JSON.stringify(data)}\n\n`;
}

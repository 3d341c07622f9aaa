// HTTP surface of listen sessions: create, the server-sent-events stream, and results.
import { PassThrough } from 'node:stream';
import { Type } from 'typebox';
import type { App } from '../../platform/app-type.ts';
import { IdParams, problemResponses } from '../../platform/schemas.ts';
import { Problem } from '../../platform/problems.ts';
import { CreateListenSessionBody, ListenResultBody, ListenResultSchema, ListenStreamHeaders } from './listen-schema.ts';
import { presentSession, type ListenService } from './listen.ts';
import type { ListenHub } from './listen-hub.ts';
import type { PublicUrl } from '../../platform/public-url.ts';

/** A comment line this often keeps proxies and the listener's read timeout from closing an idle stream. */
export const HEARTBEAT_MS = 15_000;
/** How long an EventSource-style client waits before reconnecting. */
const RECONNECT_MS = 2000;

export function listenRoutes(app: App, listen: ListenService, hub: ListenHub, publicUrl: PublicUrl): void {
  // Not "Webhooks": that is the document's own section of the events we send (`webhooks`).
  const tags = ['Webhook endpoints'];

  app.post('/v1/webhooks/listen', {
    config: { scope: 'webhooks:write' },
    schema: {
      operationId: 'createWebhookListenSession', tags, body: CreateListenSessionBody,
      summary: 'Start a listen session (`switchboard listen`): a subscription delivered down an event stream instead of to a URL',
      response: { 200: Type.Ref('WebhookListenSession'), ...problemResponses() },
    },
  }, async (request) => {
    const { row, secret } = await listen.create({ accountId: request.auth.account.id, mode: request.auth.mode, clock: request.auth.clock }, request.body);
    return presentSession(row, secret, publicUrl);
  });

  app.get('/v1/webhooks/:id/listen', {
    config: { scope: 'webhooks:write' },
    schema: {
      operationId: 'streamWebhookListenSession', tags, params: IdParams, headers: ListenStreamHeaders,
      summary: "A listen session's deliveries as server-sent events (`delivery`: the signed headers and raw body to forward); resumable with Last-Event-ID",
      response: {
        200: { description: 'text/event-stream: a `ready` event, then one `delivery` event per attempt.', content: { 'text/event-stream': { schema: { type: 'string' } } } } as any,
        ...problemResponses('not_found'),
      },
    },
  }, async (request, reply) => {
    const session = await listen.session(request.auth.account.id, request.auth.mode, request.params.id);
    const stream = new PassThrough();
    const ready = { session_id: session.id, events: JSON.parse(session.events), forward_to: session.url };
    stream.write(`retry: ${RECONNECT_MS}\nevent: ready\ndata: ${JSON.stringify(ready)}\n\n`);
    const detach = hub.attach(session.id, { write: (f) => stream.write(f), end: () => stream.end() }, request.headers['last-event-id']);
    await listen.seen(session.id);
    const heartbeat = setInterval(() => stream.write(': keep-alive\n\n'), HEARTBEAT_MS);
    reply.raw.on('close', () => {
      clearInterval(heartbeat);
      detach();
      stream.end();
      listen.seen(session.id).catch((err) => request.log.warn({ err }, 'could not stamp the listener going away'));
    });
    return reply.type('text/event-stream; charset=utf-8').header('cache-control', 'no-store').header('x-accel-buffering', 'no').send(stream);
  });

  app.post('/v1/webhooks/:id/listen/results', {
    config: { scope: 'webhooks:write' },
    schema: {
      operationId: 'reportWebhookListenResult', tags, params: IdParams, body: ListenResultBody,
      summary: 'Report what the local receiver answered to one delivery event; it is recorded as that delivery\'s attempt',
      response: { 200: ListenResultSchema, ...problemResponses('not_found') },
    },
  }, async (request) => {
    const session = await listen.session(request.auth.account.id, request.auth.mode, request.params.id);
    const b = request.body;
    const answered = hub.answer(session.id, b.dispatch_id, {
      statusCode: b.status_code, latencyMs: b.latency_ms, excerpt: b.response_excerpt ?? null, error: b.error ?? null, retryAfter: b.retry_after ?? null,
    });
    if (!answered) {
      throw new Problem('not_found', `No delivery event "${b.dispatch_id}" of listen session ${session.id} is waiting for a result: it was answered already, `
        + 'it timed out (then it counts as a failed attempt and is retried), or another server process sent it.');
    }
    return { object: 'webhook_listen_result' as const, dispatch_id: b.dispatch_id, delivery_id: answered.deliveryId };
  });
}

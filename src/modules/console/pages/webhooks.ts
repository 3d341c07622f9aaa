// Webhooks: endpoints (and a form creating one, its signing secret shown once), each with its
// deliveries (the request sent: the event; and every attempt's response), a test event and
// secret rotation; and the dead letters, with replay.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../services.ts';
import type { EventService } from '../../events/service.ts';
import { presentEndpoint } from '../../webhooks/service.ts';
import type { Delivery } from '../../webhooks/deliveries.ts';
import { html, type Html } from '../html.ts';
import { csrfField } from '../csrf.ts';
import { sendHtml, signedInPage } from '../layout.ts';
import { may, owner, requireScope } from '../access.ts';
import type { ConsoleSession } from '../sessions.ts';
import { PAGE_SIZE, json, pageOf, table, time } from '../views.ts';
import { secretOnce } from './secret-once.ts';
import { field } from '../form-body.ts';
import { invalidField } from '../../../platform/problems.ts';

function action(session: ConsoleSession, path: string, label: string, opts: { danger?: boolean; confirm?: string } = {}): Html {
  return html`<form class="inline" method="post" action="${path}"${opts.confirm ? html` data-confirm="${opts.confirm}"` : ''}>${csrfField(session.csrfToken)}<button type="submit"${opts.danger ? html` class="danger"` : ''}>${label}</button></form>`;
}

async function deliveryView(d: Delivery, events: EventService, session: ConsoleSession): Promise<Html> {
  const event = await events.get(session.account.id, session.mode, d.event_id).catch(() => null);
  return html`<section class="card" data-testid="delivery"><h3>${d.event_type} <span class="muted">${d.id}</span></h3>
<p>${d.status} · ${d.attempt_count} attempt(s) · to ${d.url} · created ${time(d.created_at)}</p>
<details><summary>Request body (event ${d.event_id})</summary>${event ? json({ id: event.id, type: event.type, created_at: event.created_at, data: { object: JSON.parse(event.data) } }) : html`<p class="muted">The event is no longer stored.</p>`}</details>
${table(['#', 'Sent', 'Response', 'Latency', 'Body or error'], d.attempts.map((a) => html`<tr data-testid="attempt"><td>${a.attempt}</td><td>${time(a.attempted_at)}</td><td>${a.status_code ?? '–'}</td><td>${a.latency_ms} ms</td><td>${a.error ? html`<pre>${a.error}</pre>` : a.response_excerpt ? html`<pre>${a.response_excerpt}</pre>` : ''}</td></tr>`), 'Not attempted yet.')}</section>`;
}

function createForm(session: ConsoleSession): Html {
  return html`<h2>Add an endpoint</h2><form method="post" action="/console/webhooks" class="card" data-testid="create-endpoint">${csrfField(session.csrfToken)}
<label>URL <input name="url" type="url" required maxlength="${LIMITS.url}" placeholder="${session.mode === 'live' ? 'https://example.com/hooks' : 'http://localhost:3000/hooks'}"></label>
<label>Events <input name="events" maxlength="${LIMITS.events}" placeholder="* (every event), or e.g. call.*, message.delivered"></label>
<label>Description <input name="description" maxlength="${LIMITS.description}"></label>
<button type="submit">Add endpoint</button></form>`;
}

/** The API's own bounds (CreateWebhookBody), checked here because a form does not go through its schema. */
const LIMITS = { url: 2048, description: 500, events: 100 * 81, eventPattern: 80, eventCount: 100 };

function createInput(body: unknown): { url: string; events: string[] | undefined; description: string | undefined } {
  const url = field(body, 'url');
  if (!url) throw invalidField('url', 'is required.', 'required');
  if (url.length > LIMITS.url) throw invalidField('url', `must be at most ${LIMITS.url} characters.`, 'too_long');
  const description = field(body, 'description');
  if (description && description.length > LIMITS.description) throw invalidField('description', `must be at most ${LIMITS.description} characters.`, 'too_long');
  const events = field(body, 'events')?.split(/[\s,]+/).filter((e) => e !== '');
  if (events && events.length > LIMITS.eventCount) throw invalidField('events', `may list at most ${LIMITS.eventCount} event types.`, 'too_large');
  const long = events?.findIndex((e) => e.length > LIMITS.eventPattern) ?? -1;
  if (long >= 0) throw invalidField(`events.${long}`, `must be at most ${LIMITS.eventPattern} characters.`, 'too_long');
  return { url, events, description };
}

export function webhookRoutes(scope: FastifyInstance, services: Services, events: EventService): void {
  const deliveries = () => services.webhooks.deliveries;

  async function endpointsPage(request: FastifyRequest, reply: FastifyReply, extra: { secret?: Html; notice?: string } = {}) {
    const session = request.consoleSession;
    requireScope(session, 'webhooks:read');
    const { rows } = pageOf(await services.webhooks.list(session.account.id, session.mode, { limit: PAGE_SIZE }));
    const body = html`${extra.secret ?? ''}<p><a href="/console/webhooks/dead-letters">Dead letters</a></p>
${table(['Endpoint', 'URL', 'Events', 'Enabled', 'Created'], rows.map(presentEndpoint).map((e) => html`<tr data-testid="endpoint-row"><td><a href="/console/webhooks/${e.id}">${e.id}</a></td><td>${e.url}${e.description ? html`<div class="muted">${e.description}</div>` : ''}</td><td>${e.events.join(', ')}</td><td>${e.enabled ? 'yes' : html`no <span class="muted">${e.disabled_reason ?? ''}</span>`}</td><td>${time(e.created_at)}</td></tr>`), 'No endpoints yet.')}
${may(session, 'webhooks:write') ? createForm(session) : ''}`;
    return sendHtml(reply, signedInPage(session, { title: 'Webhooks', body, current: '/console/webhooks', notice: extra.notice }));
  }

  scope.get('/webhooks', (request, reply) => endpointsPage(request, reply));

  scope.post('/webhooks', async (request, reply) => {
    const session = request.consoleSession;
    requireScope(session, 'webhooks:write');
    const { row, secret } = await services.webhooks.create(owner(session), createInput(request.body));
    return endpointsPage(request, reply, { notice: `Endpoint ${row.id} was added.`, secret: secretOnce('Its signing secret.', secret) });
  });

  scope.get('/webhooks/dead-letters', async (request, reply) => {
    const session = request.consoleSession;
    requireScope(session, 'webhooks:read');
    const { rows } = pageOf(await deliveries().list(session.account.id, session.mode, { status: 'dead' }, { limit: PAGE_SIZE }));
    const replayed = (request.query as { replayed?: string }).replayed;
    const body = table(['Delivery', 'Event', 'URL', 'Attempts', 'Last error', 'Dead since', ''], (await deliveries().present(rows)).map((d) => html`<tr data-testid="dead-letter"><td>${d.id}</td><td>${d.event_type}</td><td>${d.url}</td><td>${d.attempt_count}</td><td>${d.last_status_code ?? ''} ${d.last_error ?? ''}</td><td>${time(d.dead_lettered_at)}</td><td>${may(session, 'webhooks:write') ? action(session, `/console/webhooks/dead-letters/${d.id}/replay`, 'Replay') : ''}</td></tr>`), 'No dead letters.');
    return sendHtml(reply, signedInPage(session, { title: 'Dead letters', body, current: '/console/webhooks', notice: replayed ? `Delivery ${replayed} was queued again.` : undefined }));
  });

  scope.post('/webhooks/dead-letters/:id/replay', async (request, reply) => {
    const session = request.consoleSession;
    requireScope(session, 'webhooks:write');
    const row = await deliveries().replay(session.account.id, session.mode, (request.params as { id: string }).id);
    return reply.code(303).header('location', `/console/webhooks/dead-letters?replayed=${encodeURIComponent(row.id)}`).send();
  });

  async function endpointPage(request: FastifyRequest, reply: FastifyReply, extra: { notice?: string; secret?: Html } = {}) {
    const session = request.consoleSession;
    requireScope(session, 'webhooks:read');
    const id = (request.params as { id: string }).id;
    const endpoint = presentEndpoint(await services.webhooks.get(session.account.id, session.mode, id));
    const { rows } = pageOf(await deliveries().list(session.account.id, session.mode, { webhookId: id }, { limit: 20 }), 20);
    const views = await Promise.all((await deliveries().present(rows)).map((d) => deliveryView(d, events, session)));
    const actions = may(session, 'webhooks:write')
      ? html`<p>${action(session, `/console/webhooks/${id}/test`, 'Send a test event')} ${action(session, `/console/webhooks/${id}/rotate-secret`, 'Rotate the signing secret', { confirm: 'The old secret keeps signing for 24 hours. Rotate?' })}</p>`
      : html``;
    const body = html`${extra.secret ?? ''}<p>${endpoint.url}</p><p class="muted">Events: ${endpoint.events.join(', ')} · ${endpoint.enabled ? 'enabled' : 'disabled'}${endpoint.previous_secret_expires_at ? html` · previous secret valid until ${time(endpoint.previous_secret_expires_at)}` : ''}</p>
${actions}<h2>Recent deliveries</h2>${views.length ? views : html`<p class="muted">No deliveries yet.</p>`}`;
    return sendHtml(reply, signedInPage(session, { title: `Webhook ${endpoint.id}`, body, current: '/console/webhooks', notice: extra.notice }));
  }

  scope.get('/webhooks/:id', (request, reply) => endpointPage(request, reply, {
    notice: (request.query as { sent?: string }).sent ? 'A webhook.test event was sent; its delivery appears below.' : undefined,
  }));

  scope.post('/webhooks/:id/test', async (request, reply) => {
    const session = request.consoleSession;
    requireScope(session, 'webhooks:write');
    const id = (request.params as { id: string }).id;
    await services.webhooks.sendTest(owner(session), id);
    return reply.code(303).header('location', `/console/webhooks/${encodeURIComponent(id)}?sent=1`).send();
  });

  scope.post('/webhooks/:id/rotate-secret', async (request, reply) => {
    const session = request.consoleSession;
    requireScope(session, 'webhooks:write');
    const { secret } = await services.webhooks.rotateSecret(owner(session), (request.params as { id: string }).id);
    return endpointPage(request, reply, { secret: secretOnce('The new signing secret.', secret) });
  });
}

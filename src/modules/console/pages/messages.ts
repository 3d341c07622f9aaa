// Messages: the list (filters by status, direction, number and day) and a message's page with
// its body, its status history (its events) and, while it is still queued, a cancel button.
import type { FastifyInstance } from 'fastify';
import { MESSAGE_STATUSES } from '../../messages/tables.ts';
import { normalisePhoneQuery, presentMessage } from '../../messages/service.ts';
import type { Services } from '../../services.ts';
import type { EventService } from '../../events/service.ts';
import { html } from '../html.ts';
import { csrfField } from '../csrf.ts';
import { sendHtml, signedInPage } from '../layout.ts';
import { may, requireScope } from '../access.ts';
import { PAGE_SIZE, dayBounds, filterForm, json, nextLink, oneOf, pageOf, pick, table, time } from '../views.ts';

const FILTERS = ['status', 'direction', 'number', 'date', 'starting_after'] as const;
const DIRECTIONS = ['inbound', 'outbound'] as const;

export function messageRoutes(scope: FastifyInstance, services: Services, events: EventService): void {
  scope.get('/messages', async (request, reply) => {
    const session = request.consoleSession;
    requireScope(session, 'messages:read');
    const f = pick(request.query, FILTERS);
    const fetched = await services.messages.list(session.account.id, session.mode, {
      limit: PAGE_SIZE, startingAfter: f.starting_after, status: oneOf(f.status, MESSAGE_STATUSES),
      direction: oneOf(f.direction, DIRECTIONS), number: f.number ? normalisePhoneQuery(f.number) : undefined, ...dayBounds(f.date),
    });
    const { rows, next } = pageOf(fetched);
    const body = html`${filterForm('/console/messages', [
      { name: 'status', label: 'Status', options: MESSAGE_STATUSES },
      { name: 'direction', label: 'Direction', options: DIRECTIONS },
      { name: 'number', label: 'Number', placeholder: '+14155550100' },
      { name: 'date', label: 'Day (UTC)', type: 'date' },
    ], f)}
${table(['Message', 'Status', 'Channel', 'From', 'To', 'Body', 'Created'], rows.map((m) => html`<tr data-testid="message-row"><td><a href="/console/messages/${m.id}">${m.id}</a></td><td>${m.status}</td><td>${m.channel}</td><td>${m.from_number}</td><td>${m.to_number}</td><td class="hide-narrow">${(m.body ?? '').slice(0, 80)}</td><td>${time(m.created_at)}</td></tr>`), 'No messages match.')}
${nextLink('/console/messages', { ...f, starting_after: undefined }, next)}`;
    return sendHtml(reply, signedInPage(session, { title: 'Messages', body, current: '/console/messages' }));
  });

  scope.get('/messages/:id', async (request, reply) => {
    const session = request.consoleSession;
    requireScope(session, 'messages:read');
    const id = (request.params as { id: string }).id;
    const message = presentMessage(await services.messages.get(session.account.id, session.mode, id));
    const history = (await events.list(session.account.id, session.mode, { resourceId: id }, { limit: 100 })).reverse();
    const cancel = message.status === 'queued' && may(session, 'messages:write')
      ? html`<form method="post" action="/console/messages/${message.id}/cancel" data-confirm="Cancel this message?">${csrfField(session.csrfToken)}<button class="danger" type="submit">Cancel message</button></form>`
      : html``;
    const body = html`<div class="cards">
<div class="card"><div class="label">status</div><div class="figure" data-testid="message-status">${message.status}</div>${message.status_reason ? html`<div class="muted">${message.status_reason}</div>` : ''}</div>
<div class="card"><div class="label">${message.direction} ${message.channel}</div><div>${message.from} → ${message.to}</div></div>
<div class="card"><div class="label">segments</div><div>${message.segments} (${message.encoding})</div></div></div>
${cancel}
<h2>Body</h2><pre data-testid="message-body">${message.body ?? ''}</pre>
${message.failure ? html`<h2>Failure</h2>${json(message.failure)}` : ''}
<h2>Status history</h2>${table(['Time', 'Event'], history.map((e) => html`<tr><td>${time(e.created_at)}</td><td>${e.type}</td></tr>`), 'No events yet.')}
<h2>Metadata</h2><div data-testid="message-metadata">${json(message.metadata)}</div>`;
    return sendHtml(reply, signedInPage(session, { title: `Message ${message.id}`, body, current: '/console/messages' }));
  });

  scope.post('/messages/:id/cancel', async (request, reply) => {
    const session = request.consoleSession;
    requireScope(session, 'messages:write');
    const id = (request.params as { id: string }).id;
    await services.messages.cancel(session.account.id, session.mode, session.clock, id);
    return reply.code(303).header('location', `/console/messages/${id}`).send();
  });
}

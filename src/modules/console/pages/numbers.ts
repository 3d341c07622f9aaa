// Numbers and ports: the account's numbers (release one), and its port orders with each
// number's progress and the firm order commitment date.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';
import { presentNumber } from '../../numbers/service.ts';
import { html } from '../html.ts';
import { csrfField } from '../csrf.ts';
import { sendHtml, signedInPage } from '../layout.ts';
import { may, requireScope } from '../access.ts';
import { PAGE_SIZE, pageOf, table, time } from '../views.ts';

export function numberRoutes(scope: FastifyInstance, services: Services): void {
  scope.get('/numbers', async (request, reply) => {
    const session = request.consoleSession;
    requireScope(session, 'numbers:read');
    const { account, mode } = session;
    const { rows } = pageOf(await services.numbers.list(account.id, mode, { limit: PAGE_SIZE }));
    const ports = await services.ports.list(account.id, mode, { limit: PAGE_SIZE });
    const canWrite = may(session, 'numbers:write');
    const body = html`${table(['Number', 'Name', 'Capabilities', 'Status', 'Answered by', ''], rows.map(presentNumber).map((n) => html`<tr data-testid="number-row"><td>${n.phone_number}${n.temporary ? html` <span class="muted">temporary</span>` : ''}</td><td>${n.friendly_name ?? ''}</td><td>${n.capabilities.join(', ')}</td><td>${n.status}</td><td>${n.agent_id ?? n.webhook_url ?? ''}</td><td>${canWrite && n.status === 'active'
      ? html`<form class="inline" method="post" action="/console/numbers/${n.id}/release" data-confirm="Release ${n.phone_number}? It stops receiving calls and messages.">${csrfField(session.csrfToken)}<button class="danger" type="submit">Release</button></form>` : ''}</td></tr>`), 'No numbers.')}
<h2>Ports</h2>${table(['Port', 'Status', 'Numbers', 'Losing carrier', 'FOC date', 'Created'], pageOf(ports.rows).rows.map(ports.present).map((p) => html`<tr data-testid="port-row"><td>${p.id}</td><td>${p.status}</td><td>${p.phone_numbers.map((n) => html`<div>${n.phone_number} <span class="muted">${n.status}</span></div>`)}</td><td>${p.losing_carrier}</td><td>${time(p.foc_date)}</td><td>${time(p.created_at)}</td></tr>`), 'No port orders.')}`;
    return sendHtml(reply, signedInPage(session, { title: 'Numbers and ports', body, current: '/console/numbers' }));
  });

  scope.post('/numbers/:id/release', async (request, reply) => {
    const session = request.consoleSession;
    requireScope(session, 'numbers:write');
    await services.numbers.release(session.account.id, session.mode, session.clock, (request.params as { id: string }).id);
    return reply.code(303).header('location', '/console/numbers').send();
  });
}

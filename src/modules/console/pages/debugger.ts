// The debugger: what went wrong for this account, newest first, in one place: the problems the
// API answered (code, request id, path, time), failed webhook deliveries with their last
// response, calls and messages the carrier failed, and flows whose webhook failed.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';
import type { EventService } from '../../events/service.ts';
import { presentMessage } from '../../messages/service.ts';
import { html, type Html } from '../html.ts';
import { sendHtml, signedInPage } from '../layout.ts';
import { may } from '../access.ts';
import type { ConsoleSession } from '../sessions.ts';
import type { ProblemLog } from '../problems.ts';
import { table, time } from '../views.ts';

const SHOWN = 50;

async function sections(session: ConsoleSession, services: Services, events: EventService, problems: ProblemLog): Promise<Html[]> {
  const { account, mode } = session;
  const out: Html[] = [];
  const rows = await problems.list(account.id, mode, SHOWN);
  out.push(html`<h2>API problems</h2>${table(['Time', 'Status', 'Code', 'Request', 'Path'], rows.map((p) => html`<tr data-testid="problem-row"><td>${time(p.created_at)}</td><td>${p.status}</td><td>${p.code}</td><td>${p.request_id}</td><td>${p.method} ${p.path}</td></tr>`), 'No problems answered to this account.')}`);

  if (may(session, 'webhooks:read')) {
    const deliveries = services.webhooks.deliveries;
    const failed = [
      ...await deliveries.list(account.id, mode, { status: 'dead' }, { limit: SHOWN }),
      ...await deliveries.list(account.id, mode, { status: 'failed' }, { limit: SHOWN }),
    ].sort((a, b) => (a.id < b.id ? 1 : -1)).slice(0, SHOWN);
    out.push(html`<h2>Failed webhook deliveries</h2>${table(['Last attempt', 'Status', 'Event', 'URL', 'Last response'], failed.map((d) => html`<tr data-testid="failed-delivery"><td>${time(d.last_attempt_at)}</td><td>${d.status}</td><td>${d.event_type}</td><td>${d.webhook_id ? html`<a href="/console/webhooks/${d.webhook_id}">${d.url}</a>` : d.url}</td><td>${d.last_status_code ?? ''} ${d.last_error ?? ''}</td></tr>`), 'No failed deliveries.')}`);
  }
  if (may(session, 'calls:read')) {
    const { rows: calls, present } = await services.calls.list(account.id, mode, { limit: SHOWN, status: 'failed' });
    out.push(html`<h2>Failed calls</h2>${table(['Time', 'Call', 'To', 'Why'], calls.slice(0, SHOWN).map(present).map((c) => html`<tr data-testid="failed-call"><td>${time(c.created_at)}</td><td><a href="/console/calls/${c.id}">${c.id}</a></td><td>${c.to}</td><td>${c.hangup_cause ?? ''} ${c.hangup_reason ?? ''}</td></tr>`), 'No failed calls.')}`);
    const flows = await events.list(account.id, mode, { type: 'call.flow.failed' }, { limit: SHOWN });
    out.push(html`<h2>Failed flows</h2>${table(['Time', 'Call', 'What failed'], flows.slice(0, SHOWN).map((e) => {
      const object = JSON.parse(e.data) as { cause?: string; detail?: string; url?: string | null };
      return html`<tr data-testid="failed-flow"><td>${time(e.created_at)}</td><td><a href="/console/calls/${e.resource_id}">${e.resource_id}</a></td><td>${[object.cause, object.url, object.detail].filter(Boolean).join(' · ')}</td></tr>`;
    }), 'No failed flows.')}`);
  }
  if (may(session, 'messages:read')) {
    const messages = (await services.messages.list(account.id, mode, { limit: SHOWN, status: 'failed' })).slice(0, SHOWN).map(presentMessage);
    out.push(html`<h2>Failed messages</h2>${table(['Time', 'Message', 'To', 'Error'], messages.map((m) => html`<tr data-testid="failed-message"><td>${time(m.created_at)}</td><td><a href="/console/messages/${m.id}">${m.id}</a></td><td>${m.to}</td><td>${m.error_code ?? ''} ${m.error_message ?? ''}</td></tr>`), 'No failed messages.')}`);
  }
  return out;
}

export function debuggerRoutes(scope: FastifyInstance, services: Services, events: EventService, problems: ProblemLog): void {
  scope.get('/debugger', async (request, reply) => {
    const session = request.consoleSession;
    const body = html`${await sections(session, services, events, problems)}`;
    return sendHtml(reply, signedInPage(session, { title: 'Debugger', body, current: '/console/debugger' }));
  });
}

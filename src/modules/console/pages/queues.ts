// The queues live board: every queue with its callers waiting, the longest and average wait,
// who is waiting in it (next first) and, for a routed queue, the workers who could take them;
// then the workers themselves (queue-workers.ts). The board refreshes itself with htmx every
// few seconds (the page stays put; only the board is swapped). Names come from users and go
// through html`` like every other field.
import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../../platform/context.ts';
import type { Services } from '../../services.ts';
import { routingOf } from '../../queues/routing.ts';
import { html, type Html } from '../html.ts';
import { sendHtml, signedInPage } from '../layout.ts';
import { requireScope } from '../access.ts';
import type { ConsoleSession } from '../sessions.ts';
import { PAGE_SIZE, pageOf, table, time } from '../views.ts';
import { BOARD_WORKERS, queueWorkers, workersSection } from './queue-workers.ts';

const REFRESH_SECONDS = 3;

async function board(platform: Platform, services: Services, session: ConsoleSession): Promise<Html> {
  const { account, mode, clock } = session;
  const listed = await services.queues.list(account.id, mode, clock, { limit: PAGE_SIZE });
  const routings = new Map(listed.rows.map((row) => [row.id, routingOf(row.routing)]));
  const queues = pageOf(listed.rows).rows.map(listed.present);
  const workerRows = await services.workers.list(account.id, mode, { limit: BOARD_WORKERS });
  const workers = pageOf(workerRows, BOARD_WORKERS).rows;
  const sections = await Promise.all(queues.map(async (q) => {
    const members = q.current_size > 0 ? (await services.queues.members(account.id, mode, clock, q.id)).data : [];
    return html`<section class="card" id="${q.id}" data-testid="queue-card"><h3 data-testid="queue-name">${q.name}</h3>
<div class="cards"><div><div class="label">callers waiting</div><div class="figure" data-testid="queue-waiting">${q.current_size}</div></div>
<div><div class="label">longest wait</div><div class="figure" data-testid="queue-longest">${q.oldest_wait_seconds} s</div></div>
<div><div class="label">average wait</div><div class="figure">${q.average_wait_seconds} s</div></div>
<div><div class="label">max size</div><div class="figure">${q.max_size}</div></div></div>
${queueWorkers(routings.get(q.id) ?? null, workers)}
${table(['#', 'Call', 'Status', 'Priority', 'Waiting', 'Joined'], members.map((m) => html`<tr data-testid="queue-member"><td>${m.position ?? '–'}</td><td><a href="/console/calls/${m.call_id}">${m.call_id}</a></td><td>${m.status}</td><td>${m.priority}</td><td>${m.wait_seconds} s</td><td>${time(m.enqueued_at)}</td></tr>`), 'Nobody is waiting.')}</section>`;
  }));
  const more = listed.rows.length > PAGE_SIZE ? html`<p class="muted">Showing the first ${PAGE_SIZE} queues.</p>` : html``;
  return html`<div id="queues-board" hx-get="/console/queues/board" hx-trigger="every ${REFRESH_SECONDS}s" hx-swap="outerHTML" data-testid="queues-board">
${sections.length ? sections : html`<p class="muted">No queues: create one with POST /v1/queues.</p>`}${more}
${workersSection(platform, mode, clock, workers, workerRows.length > BOARD_WORKERS)}</div>`;
}

export function queueRoutes(scope: FastifyInstance, services: Services, platform: Platform): void {
  scope.get('/queues', async (request, reply) => {
    const session = request.consoleSession;
    requireScope(session, 'calls:read');
    const body = html`<p class="muted">Live: refreshes every ${REFRESH_SECONDS} s. Waits are in the mode's seconds (simulated in the sandbox).</p>${await board(platform, services, session)}`;
    return sendHtml(reply, signedInPage(session, { title: 'Queues', body, current: '/console/queues' }));
  });

  scope.get('/queues/board', async (request, reply) => {
    const session = request.consoleSession;
    requireScope(session, 'calls:read');
    return sendHtml(reply, await board(platform, services, session));
  });
}

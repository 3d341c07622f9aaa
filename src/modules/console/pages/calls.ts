// Calls: the list (filters by status, direction, number and day) and a call's page: its
// timeline of events, its flow log, transfers, conference and queue history (call-history.ts),
// metadata, and its recordings with a player and the transcript. The recording's audio is streamed from the recordings service to the session.
import type { FastifyInstance } from 'fastify';
import { CALL_STATUSES } from '../../../telephony/call-ref.ts';
import { normalisePhoneQuery } from '../../messages/service.ts';
import { flowLogOf } from '../../calls/flows/state.ts';
import type { Services } from '../../services.ts';
import type { EventService } from '../../events/service.ts';
import type { RecordingRow } from '../../recordings/tables.ts';
import type { TranscriptSegment } from '../../../telephony/transcript.ts';
import { html, queryString, type Html } from '../html.ts';
import type { ConsoleSession } from '../sessions.ts';
import { sendHtml, signedInPage } from '../layout.ts';
import { caller, may, requireScope } from '../access.ts';
import { csrfField } from '../csrf.ts';
import { conferenceHistory, queueHistory } from './call-history.ts';
import { PAGE_SIZE, dayBounds, filterForm, json, nextLink, oneOf, pageOf, pick, table, time } from '../views.ts';

const FILTERS = ['status', 'direction', 'number', 'date', 'starting_after'] as const;
const DIRECTIONS = ['inbound', 'outbound'] as const;
const REFRESH_SECONDS = 3;

function transcript(row: RecordingRow): Html {
  if (row.transcript === null) return html`<p class="muted">No transcript.</p>`;
  const segments = JSON.parse(row.transcript) as TranscriptSegment[];
  if (segments.length === 0) return html`<p class="muted">Nothing was said.</p>`;
  return html`<ol class="transcript" data-testid="transcript">${segments.map((s) => html`<li><span class="muted">${s.start.toFixed(1)} s · ${s.speaker}</span> ${s.text}</li>`)}</ol>`;
}

function redactButton(session: ConsoleSession, row: RecordingRow): Html {
  if (!may(session, 'recordings:write') || row.status !== 'ready' || row.redacted) return html``;
  return html`<form method="post" action="/console/recordings/${row.id}/redact" data-confirm="Redact card numbers, SSNs, phone numbers and e-mail addresses from the audio and transcript? This cannot be undone.">${csrfField(session.csrfToken)}<button type="submit">Redact PII</button></form>`;
}

function recording(session: ConsoleSession, row: RecordingRow, mayListen: boolean): Html {
  const player = row.status === 'ready' && mayListen
    ? html`<audio controls preload="none" src="/console/recordings/${row.id}/media" data-testid="recording-player"></audio>`
    : html`<p class="muted">Audio ${row.status === 'ready' ? 'needs the recordings:read scope' : `is ${row.status}`}.</p>`;
  return html`<section class="card" data-testid="recording"><h3>Recording ${row.id}</h3>
<p>${row.status}${row.duration_ms !== null ? html` · ${(row.duration_ms / 1000).toFixed(1)} s` : ''}${row.redacted ? ' · redacted' : ''}</p>${player}${transcript(row)}${redactButton(session, row)}</section>`;
}

export function callRoutes(scope: FastifyInstance, services: Services, events: EventService): void {
  /** The list itself: the first page refreshes itself with htmx every few seconds, so new calls appear. */
  async function callsTable(session: ConsoleSession, f: Record<string, string | undefined>): Promise<Html> {
    const { rows: fetched, present } = await services.calls.list(session.account.id, session.mode, {
      limit: PAGE_SIZE, startingAfter: f.starting_after, status: oneOf(f.status, CALL_STATUSES),
      direction: oneOf(f.direction, DIRECTIONS), number: f.number ? normalisePhoneQuery(f.number) : undefined, ...dayBounds(f.date),
    });
    const { rows, next } = pageOf(fetched);
    const live = f.starting_after ? html`` : html` hx-get="/console/calls/rows${queryString(f)}" hx-trigger="every ${REFRESH_SECONDS}s" hx-swap="outerHTML"`;
    return html`<div id="calls-table"${live}>${table(['Call', 'Status', 'Direction', 'From', 'To', 'Duration', 'Created'], rows.map((row) => {
      const call = present(row);
      return html`<tr data-testid="call-row"><td><a href="/console/calls/${call.id}">${call.id}</a></td><td>${call.status}</td><td>${call.direction}</td><td>${call.from}</td><td>${call.to}</td><td>${call.duration_seconds ?? '–'}</td><td>${time(call.created_at)}</td></tr>`;
    }), 'No calls match.')}
${nextLink('/console/calls', { ...f, starting_after: undefined }, next)}</div>`;
  }

  scope.get('/calls', async (request, reply) => {
    const session = request.consoleSession;
    requireScope(session, 'calls:read');
    const f = pick(request.query, FILTERS);
    const body = html`${filterForm('/console/calls', [
      { name: 'status', label: 'Status', options: CALL_STATUSES },
      { name: 'direction', label: 'Direction', options: DIRECTIONS },
      { name: 'number', label: 'Number', placeholder: '+14155550100' },
      { name: 'date', label: 'Day (UTC)', type: 'date' },
    ], f)}
${await callsTable(session, f)}`;
    return sendHtml(reply, signedInPage(session, { title: 'Calls', body, current: '/console/calls' }));
  });

  scope.get('/calls/rows', async (request, reply) => {
    const session = request.consoleSession;
    requireScope(session, 'calls:read');
    return sendHtml(reply, await callsTable(session, pick(request.query, FILTERS)));
  });

  scope.get('/calls/:id', async (request, reply) => {
    const session = request.consoleSession;
    requireScope(session, 'calls:read');
    const id = (request.params as { id: string }).id;
    const { account, mode } = session;
    const call = await services.calls.get(account.id, mode, id);
    const row = await services.calls.flowOf(account.id, mode, id);
    const timeline = (await events.list(account.id, mode, { resourceId: id }, { limit: 200 })).reverse();
    const recordings = may(session, 'recordings:read') ? await services.recordings.list(account.id, mode, { limit: 20, callId: id }) : [];
    const flowLog = flowLogOf(row);
    const body = html`<div class="cards">
<div class="card"><div class="label">status</div><div class="figure">${call.status}</div></div>
<div class="card"><div class="label">${call.direction}</div><div>${call.from} → ${call.to}</div></div>
<div class="card"><div class="label">duration</div><div>${call.duration_seconds ?? '–'} s</div></div>
<div class="card"><div class="label">hangup</div><div>${call.hangup_cause ?? '–'} ${call.hangup_reason ? html`<span class="muted">${call.hangup_reason}</span>` : ''}</div></div></div>
<h2>Timeline</h2>${table(['Time', 'Event'], timeline.map((e) => html`<tr data-testid="timeline-event"><td>${time(e.created_at)}</td><td>${e.type}</td></tr>`), 'No events yet.')}
<h2>Flow log</h2>${table(['#', 'Verb', 'Started', 'Ended', 'Result'], flowLog.map((entry) => html`<tr><td>${entry.index}</td><td>${entry.verb}</td><td>${time(entry.started_at)}</td><td>${time(entry.ended_at)}</td><td>${entry.result ? json(entry.result) : ''}</td></tr>`), 'This call ran no flow.')}
<h2>Transfers</h2>${table(['To', 'Status', 'Requested', 'Settled'], call.transfers.map((t) => html`<tr><td>${t.to}</td><td>${t.status}</td><td>${time(t.requested_at)}</td><td>${time(t.settled_at)}</td></tr>`), 'No transfers.')}
<h2>Conference</h2>${await conferenceHistory(services, session, id)}
<h2>Queues</h2>${await queueHistory(services, session, id)}
<h2>Recordings</h2>${may(session, 'recordings:read') ? (recordings.length ? recordings.slice(0, 20).map((r) => recording(session, r, true)) : html`<p class="muted">No recordings.</p>`) : html`<p class="muted">Needs the recordings:read scope.</p>`}
<h2>Metadata</h2><div data-testid="call-metadata">${json(call.metadata)}</div>`;
    return sendHtml(reply, signedInPage(session, { title: `Call ${call.id}`, body, current: '/console/calls' }));
  });

  scope.post('/recordings/:id/redact', async (request, reply) => {
    const session = request.consoleSession;
    requireScope(session, 'recordings:write');
    const redacted = await services.recordings.redact(caller(session), (request.params as { id: string }).id);
    return reply.code(303).header('location', `/console/calls/${encodeURIComponent(redacted.call_id)}`).send();
  });

  scope.get('/recordings/:id/media', async (request, reply) => {
    const session = request.consoleSession;
    requireScope(session, 'recordings:read');
    const { stream, size } = await services.recordings.mediaOf(session.account.id, session.mode, (request.params as { id: string }).id);
    return reply.type('audio/wav').header('content-length', String(size)).send(stream);
  });
}

// A call's page: its conference seat and its stays in queues, read through the conferences
// and queues services. Names come from users (queue and conference names), so they go through
// html`` like every other field.
import type { Services } from '../../services.ts';
import { html, type Html } from '../html.ts';
import type { ConsoleSession } from '../sessions.ts';
import { caller } from '../access.ts';
import { table, time } from '../views.ts';

export async function conferenceHistory(services: Services, session: ConsoleSession, callId: string): Promise<Html> {
  const seats = await services.conferences.seatsOf(caller(session), callId);
  return table(['Conference', 'Status', 'Joined', 'Left', 'Why it left', 'Muted', 'Held'], seats.map((s) => html`<tr data-testid="conference-seat">
<td><span data-testid="conference-name">${s.conference_name}</span><div class="muted">${s.conference_id} · ${s.conference_status}</div></td><td>${s.status}</td>
<td>${time(s.joined_at)}</td><td>${time(s.left_at)}</td><td>${s.left_reason ?? '–'}</td><td>${s.muted ? 'yes' : 'no'}</td><td>${s.hold ? 'yes' : 'no'}</td></tr>`), 'This call was in no conference.');
}

export async function queueHistory(services: Services, session: ConsoleSession, callId: string): Promise<Html> {
  const stays = await services.queues.staysOf(session.account.id, session.mode, session.clock, callId);
  return table(['Queue', 'Status', 'Result', 'Waited', 'Joined', 'Left', 'Taken by'], stays.map((s) => html`<tr data-testid="queue-stay">
<td><a href="/console/queues#${s.queue_id}" data-testid="queue-name">${s.queue_name}</a><div class="muted">${s.queue_id}</div></td><td>${s.status}</td><td>${s.result ?? '–'}</td>
<td>${s.wait_seconds} s</td><td>${time(s.enqueued_at)}</td><td>${time(s.left_at)}</td>
<td>${s.bridged_call_id ? html`<a href="/console/calls/${s.bridged_call_id}">${s.bridged_call_id}</a>` : s.dequeued_to ?? '–'}</td></tr>`), 'This call waited in no queue.');
}

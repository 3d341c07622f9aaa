// The workers on the queues live board: how many are in each status, who could take each
// routed queue's callers, and every worker's status, skills, current call and time in that
// status. Worker names are free text from the API, so they (like everything else) only ever
// reach the page through html``.
import type { Platform } from '../../../platform/context.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { Mode } from '../../../store/platform-tables.ts';
import type { QueueRouting } from '../../queues/routing.ts';
import { secondsBetween } from '../../queues/members.ts';
import { chooseWorkers } from '../../workers/routing.ts';
import { presentWorker } from '../../workers/presenter.ts';
import { WORKER_STATUSES, type WorkerRow, type WorkerStatus } from '../../workers/tables.ts';
import { html, type Html } from '../html.ts';
import { table, time } from '../views.ts';

/** Workers one board shows: a team's worth. Beyond it the board says the counts are partial. */
export const BOARD_WORKERS = 200;

/** Seconds as a person reads a stretch of time on a board: the two largest units. */
export function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}

function countByStatus(workers: readonly WorkerRow[]): Record<WorkerStatus, number> {
  const counts = Object.fromEntries(WORKER_STATUSES.map((s) => [s, 0])) as Record<WorkerStatus, number>;
  for (const w of workers) counts[w.status] += 1;
  return counts;
}

function statusCounts(counts: Record<WorkerStatus, number>, testId: string): Html {
  return html`<div class="cards" data-testid="${testId}">${WORKER_STATUSES.map((s) => html`<div><div class="label">${s.replace('_', ' ')}</div><div class="figure" data-status="${s}">${counts[s]}</div></div>`)}</div>`;
}

/**
 * Who a routed queue can offer its callers to, by status (the same choice routing makes:
 * its worker_ids, with all its required skills). A queue without routing is served by
 * dequeues in flows, not by workers, so it shows nothing here.
 */
export function queueWorkers(routing: QueueRouting | null, workers: readonly WorkerRow[]): Html {
  if (!routing) return html``;
  const skills = routing.required_skills.length ? html` (skills: ${routing.required_skills.join(', ')})` : html``;
  const named = routing.worker_ids ? html`, of the ${routing.worker_ids.length} it names` : html``;
  return html`<h4>Workers who can take its callers${skills}${named}</h4>${statusCounts(countByStatus(chooseWorkers(workers, routing)), 'queue-workers')}`;
}

// Busy workers first (what a supervisor watches), then those who can take a caller now.
const BOARD_ORDER: Record<WorkerStatus, number> = { busy: 0, wrap_up: 1, available: 2, offline: 3 };

/** Every worker of the mode (up to BOARD_WORKERS): counts by status, then one row each. */
export function workersSection(platform: Platform, mode: Mode, clock: Clock, workers: readonly WorkerRow[], truncated: boolean): Html {
  const now = clock.now().toISOString();
  const ordered = [...workers].sort((a, b) => BOARD_ORDER[a.status] - BOARD_ORDER[b.status] || a.name.localeCompare(b.name));
  // The board shows no softphone registrations: none are read for it.
  const rows = ordered.map((row) => presentWorker(row, [])).map((w) => html`<tr data-testid="worker-row" id="${w.id}"><td data-testid="worker-name">${w.name}</td><td data-testid="worker-status">${w.status}</td><td data-testid="worker-skills">${w.skills.join(', ')}</td><td data-testid="worker-call">${w.current_call_id ? html`<a href="/console/calls/${w.current_call_id}">${w.current_call_id}</a>` : html`<span class="muted">–</span>`}</td><td data-testid="worker-in-status" title="${w.status_changed_at}">${duration(secondsBetween(platform, mode, w.status_changed_at, now))}</td><td>${time(w.status_changed_at)}</td></tr>`);
  const partial = truncated ? html`<p class="muted">Showing the first ${BOARD_WORKERS} workers; the counts cover them only.</p>` : html``;
  return html`<section class="card" id="workers" data-testid="workers-card"><h3>Workers</h3>${statusCounts(countByStatus(workers), 'workers-by-status')}
${table(['Name', 'Status', 'Skills', 'Current call', 'In status', 'Since'], rows, 'No workers: create them with POST /v1/workers.')}${partial}</section>`;
}

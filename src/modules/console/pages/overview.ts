// The overview: today's volumes and failures (UTC day, from the analytics service), dead
// letters waiting for a replay, and the plan's limits. Each figure appears only when the key
// may read its resource, as with the API's analytics routes.
import type { FastifyInstance } from 'fastify';
import { limitsOf } from '../../../platform/plans.ts';
import type { AnalyticsService } from '../../analytics/service.ts';
import { windowOf } from '../../analytics/range.ts';
import { html, type Html } from '../html.ts';
import { sendHtml, signedInPage } from '../layout.ts';
import { may } from '../access.ts';
import type { ConsoleSession } from '../sessions.ts';

function card(label: string, figure: string | number, testId: string): Html {
  return html`<div class="card" data-testid="${testId}"><div class="figure">${figure}</div><div class="label">${label}</div></div>`;
}

function percent(ratio: number | null): string {
  return ratio === null ? '–' : `${Math.round(ratio * 1000) / 10}%`;
}

function today(session: ConsoleSession) {
  const now = session.clock.now();
  const start = `${now.toISOString().slice(0, 10)}T00:00:00.000Z`;
  return windowOf({ start, end: now.toISOString(), interval: 'day' }, now);
}

async function figures(session: ConsoleSession, analytics: AnalyticsService): Promise<Html[]> {
  const { account, mode } = session;
  const window = today(session);
  const sections: Html[] = [];
  if (may(session, 'calls:read')) {
    const t = (await analytics.calls(account.id, mode, window, undefined)).totals as any;
    const failed = t.by_status.failed + t.by_status.busy + t.by_status.no_answer;
    sections.push(html`<h2>Calls today</h2><div class="cards">${card('attempted', t.attempted, 'calls-attempted')}${card('answered', t.answered, 'calls-answered')}${card('failed, busy or unanswered', failed, 'calls-failed')}${card('answer-seizure ratio', percent(t.answer_seizure_ratio), 'calls-asr')}</div>`);
  }
  if (may(session, 'messages:read')) {
    const t = (await analytics.messages(account.id, mode, window, undefined)).totals as any;
    sections.push(html`<h2>Messages today</h2><div class="cards">${card('sent', t.outbound, 'messages-sent')}${card('received', t.inbound, 'messages-received')}${card('failed', t.by_status.failed ?? 0, 'messages-failed')}${card('delivery rate', percent(t.delivery_rate), 'messages-rate')}</div>`);
  }
  if (may(session, 'webhooks:read')) {
    const t = (await analytics.webhooks(account.id, mode, window, undefined)).totals as any;
    sections.push(html`<h2>Webhooks today</h2><div class="cards">${card('deliveries', t.deliveries, 'webhooks-deliveries')}${card('dead letters', t.dead_lettered, 'webhooks-dead')}${card('success rate', percent(t.success_rate), 'webhooks-rate')}</div>
<p><a href="/console/webhooks/dead-letters">Dead letters waiting for a replay</a></p>`);
  }
  return sections;
}

function plan(session: ConsoleSession): Html {
  const limits = limitsOf(session.account);
  const trial = session.account.trial_ends_at;
  return html`<h2>Plan</h2><div class="cards">${card('plan', session.account.plan, 'plan-name')}${card('requests per minute', limits.requests_per_minute, 'plan-rpm')}${card('concurrent calls', limits.concurrent_calls ?? 'unlimited', 'plan-concurrent')}${trial ? card('trial ends', trial.slice(0, 10), 'plan-trial') : ''}</div>`;
}

export function overviewRoutes(scope: FastifyInstance, analytics: AnalyticsService): void {
  scope.get('/', async (request, reply) => {
    const session = request.consoleSession;
    const body = html`${await figures(session, analytics)}${plan(session)}<p class="muted">Figures cover today (UTC) in ${session.mode} mode.</p>`;
    return sendHtml(reply, signedInPage(session, { title: 'Overview', body, current: '/console' }));
  });
}

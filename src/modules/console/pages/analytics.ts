// Analytics charts: the last 30 UTC days of calls, messages and webhook deliveries, from the
// analytics service (the figures GET /v1/analytics/* answers), drawn by uPlot in the browser.
// The numbers reach the page as JSON in a data attribute (escaped like any attribute), which
// console.js reads: no inline script.
import type { FastifyInstance } from 'fastify';
import type { AnalyticsService } from '../../analytics/service.ts';
import { windowOf } from '../../analytics/range.ts';
import { html, type Html } from '../html.ts';
import { sendHtml, signedInPage } from '../layout.ts';
import { may } from '../access.ts';

interface Series { label: string; values: number[] }

function chart(title: string, testId: string, buckets: Array<{ start: string }>, series: Series[]): Html {
  const data = { title, x: buckets.map((b) => Date.parse(b.start) / 1000), series };
  return html`<div class="chart" data-testid="${testId}" data-chart="${JSON.stringify(data)}"></div>`;
}

export function analyticsRoutes(scope: FastifyInstance, analytics: AnalyticsService): void {
  scope.get('/analytics', async (request, reply) => {
    const session = request.consoleSession;
    const { account, mode } = session;
    const window = windowOf({ interval: 'day' }, session.clock.now());
    const charts: Html[] = [];
    if (may(session, 'calls:read')) {
      const a = await analytics.calls(account.id, mode, window, undefined);
      charts.push(chart('Calls per day', 'chart-calls', a.data, [
        { label: 'attempted', values: a.data.map((b) => b.attempted) }, { label: 'answered', values: a.data.map((b) => b.answered) }]));
    }
    if (may(session, 'messages:read')) {
      const a = await analytics.messages(account.id, mode, window, undefined);
      charts.push(chart('Messages per day', 'chart-messages', a.data, [
        { label: 'sent', values: a.data.map((b) => b.outbound) }, { label: 'received', values: a.data.map((b) => b.inbound) }]));
    }
    if (may(session, 'webhooks:read')) {
      const a = await analytics.webhooks(account.id, mode, window, undefined);
      charts.push(chart('Webhook deliveries per day', 'chart-webhooks', a.data, [
        { label: 'deliveries', values: a.data.map((b) => b.deliveries) }, { label: 'dead letters', values: a.data.map((b) => b.dead_lettered) }]));
    }
    const body = html`${charts.length ? charts : html`<p class="muted">This key may read no figures.</p>`}<p class="muted">The last 30 days (UTC) in ${mode} mode; the same figures as GET /v1/analytics/calls, /messages and /webhooks.</p>`;
    return sendHtml(reply, signedInPage(session, { title: 'Analytics', body, current: '/console/analytics' }));
  });
}

// docs/grafana-dashboard.json and docs/observability.md against the metrics the server
// really exports (the catalogue in src/platform/metrics.ts plus prom-client's defaults): the
// dashboard parses, every query names only exported metrics, and every Switchboard metric is
// both charted and documented.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { collectProcessMetrics, registry, switchboardMetricNames } from '../../src/platform/metrics.ts';

const read = (p: string) => readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8');

/** Every series name a scrape can carry: histograms also as _bucket, _sum and _count. */
function exportedSeries(): Set<string> {
  collectProcessMetrics();
  const names = new Set<string>();
  for (const metric of registry.getMetricsAsArray() as unknown as Array<{ name: string; type: string }>) {
    names.add(metric.name);
    if (metric.type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(metric.name + suffix);
  }
  return names;
}

const PROMQL_WORDS = new Set([
  'sum', 'max', 'min', 'avg', 'count', 'topk', 'bottomk', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset',
  'rate', 'irate', 'increase', 'delta', 'histogram_quantile', 'clamp_min', 'clamp_max', 'abs', 'time', 'vector', 'scalar', 'le',
]);

/** The metric names a PromQL expression reads: label matchers, groupings, ranges and strings taken out first. */
function metricsOf(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, '');
  return [...bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)].map((m) => m[0]).filter((word) => !PROMQL_WORDS.has(word));
}

function panelsOf(dashboard: any): any[] {
  return (dashboard.panels as any[]).flatMap((p) => [p, ...(p.panels ?? [])]);
}

test('the Grafana dashboard parses and every query names a metric Switchboard exports', () => {
  const dashboard = JSON.parse(read('docs/grafana-dashboard.json'));
  const exported = exportedSeries();
  const exprs = panelsOf(dashboard).flatMap((p) => (p.targets ?? []).map((t: any) => t.expr as string));
  assert.ok(exprs.length >= 20, 'the dashboard has its queries');
  const unknown = exprs.flatMap((expr) => metricsOf(expr).filter((name) => !exported.has(name)).map((name) => `${name} in ${expr}`));
  assert.deepEqual(unknown, []);
  const ids = panelsOf(dashboard).map((p) => p.id);
  assert.equal(new Set(ids).size, ids.length, 'panel ids are unique');
});

test('every Switchboard metric is charted on the dashboard and documented with its labels', () => {
  const dashboardText = read('docs/grafana-dashboard.json');
  const doc = read('docs/observability.md');
  const names = switchboardMetricNames();
  assert.ok(names.length >= 15);
  assert.deepEqual(names.filter((name) => !dashboardText.includes(name)), [], 'charted');
  assert.deepEqual(names.filter((name) => !doc.includes(`| \`${name}\` |`)), [], 'a row of the metrics table');
  for (const metric of registry.getMetricsAsArray() as unknown as Array<{ name: string; labelNames: string[] }>) {
    if (!metric.name.startsWith('switchboard_')) continue;
    const row = doc.split('\n').find((line) => line.startsWith(`| \`${metric.name}\` |`))!;
    for (const label of metric.labelNames) assert.ok(row.includes(`\`${label}\``), `${metric.name}'s row names its label ${label}`);
  }
});

test('the metrics the issue names are all exported', () => {
  const names = new Set(switchboardMetricNames());
  for (const name of [
    'switchboard_http_requests_total', 'switchboard_http_request_duration_seconds', 'switchboard_calls_total', 'switchboard_calls_active',
    'switchboard_sip_responses_total', 'switchboard_rtp_packets_total', 'switchboard_rtp_packets_lost_total', 'switchboard_messages_total',
    'switchboard_smpp_submit_total', 'switchboard_webhook_deliveries_total', 'switchboard_webhook_delivery_seconds', 'switchboard_jobs_ready',
    'switchboard_job_lag_seconds', 'switchboard_db_transaction_seconds',
  ]) assert.ok(names.has(name), name);
});

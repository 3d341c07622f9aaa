// The per-request series (src/platform/request-series.ts) print as prom-client's own Counter and
// Histogram would: one line per label set, cumulative buckets up to +Inf, then _sum and _count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Histogram, Registry } from 'prom-client';
import { RequestCounter, RequestHistogram } from '../../src/platform/request-series.ts';

test('a request histogram and counter scrape exactly like prom-client\'s', async () => {
  const ours = new Registry();
  const theirs = new Registry();
  const buckets = [0.01, 0.1, 1];
  const histogram = new RequestHistogram({ name: 't_seconds', help: 'h', labelNames: ['route'], buckets, registers: [ours] });
  const reference = new Histogram({ name: 't_seconds', help: 'h', labelNames: ['route'], buckets, registers: [theirs] });
  for (const [route, value] of [['/a', 0.005], ['/a', 0.01], ['/a', 0.5], ['/a', 3], ['/b', 0.05]] as const) {
    histogram.child(route, () => ({ route })).observe(value);
    reference.observe({ route }, value);
  }
  assert.equal(await ours.metrics(), await theirs.metrics());

  const counter = new RequestCounter({ name: 't_total', help: 'c', labelNames: ['status'], registers: [ours] });
  counter.child('200', () => ({ status: '200' })).value++;
  counter.child('200', () => ({ status: '200' })).value++;
  counter.child('404', () => ({ status: '404' })).value++;
  const text = await ours.metrics();
  assert.match(text, /# TYPE t_total counter\nt_total\{status="200"\} 2\nt_total\{status="404"\} 1/);
});

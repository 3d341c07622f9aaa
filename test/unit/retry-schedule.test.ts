// The default webhook retry schedule is exponential, capped and jittered (spec section 6).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_RETRY_SCHEDULE, loadConfig } from '../../src/config.ts';
import { RETRY_CAP_SECONDS, decide } from '../../src/modules/webhooks/retry.ts';

test('each wait is four times the one before until the 10 h cap', () => {
  assert.equal(DEFAULT_RETRY_SCHEDULE[0], 5);
  for (let k = 1; k < DEFAULT_RETRY_SCHEDULE.length; k++) {
    const prev = DEFAULT_RETRY_SCHEDULE[k - 1]!;
    assert.equal(DEFAULT_RETRY_SCHEDULE[k], Math.min(RETRY_CAP_SECONDS, prev * 4), `entry ${k}`);
  }
  assert.equal(Math.max(...DEFAULT_RETRY_SCHEDULE), RETRY_CAP_SECONDS);
  assert.equal(DEFAULT_RETRY_SCHEDULE.length, 9);
  const totalHours = DEFAULT_RETRY_SCHEDULE.reduce((a, b) => a + b, 0) / 3600;
  assert.ok(totalHours > 27 && totalHours < 28, `about 28 h of retries, got ${totalHours}`);
});

test('jitter takes up to 20 % off a wait and never exceeds the schedule (so never the cap)', () => {
  const at = (r: number, attempt: number) => {
    const o = decide({ statusCode: 500, retryAfterSeconds: null, attemptInRound: attempt, schedule: DEFAULT_RETRY_SCHEDULE, random: () => r });
    assert.equal(o.kind, 'retry');
    return (o as { delaySeconds: number }).delaySeconds;
  };
  assert.equal(at(0, 1), 5);
  assert.equal(at(0.999999, 1) < 5 && at(0.999999, 1) > 3.99, true);
  assert.equal(at(0, 9), RETRY_CAP_SECONDS);
  assert.ok(at(0.5, 9) < RETRY_CAP_SECONDS);
  // A spread of random draws gives a spread of waits: no synchronised wave.
  const waits = new Set([0.1, 0.4, 0.7].map((r) => at(r, 4)));
  assert.equal(waits.size, 3);
});

test('after the last retry the delivery is dead; Retry-After on 429 still wins', () => {
  assert.deepEqual(decide({ statusCode: 500, retryAfterSeconds: null, attemptInRound: 10, schedule: DEFAULT_RETRY_SCHEDULE }), { kind: 'dead' });
  const o = decide({ statusCode: 429, retryAfterSeconds: 60, attemptInRound: 1, schedule: DEFAULT_RETRY_SCHEDULE });
  assert.deepEqual(o, { kind: 'retry', delaySeconds: 60 });
});

test('SWITCHBOARD_WEBHOOK_RETRY_SCHEDULE still replaces the schedule', () => {
  assert.deepEqual(loadConfig({ SWITCHBOARD_WEBHOOK_RETRY_SCHEDULE: '1,2,4' }).webhookRetrySchedule, [1, 2, 4]);
  assert.deepEqual(loadConfig({}).webhookRetrySchedule, DEFAULT_RETRY_SCHEDULE);
});

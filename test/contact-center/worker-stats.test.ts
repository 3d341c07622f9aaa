// Worker statistics (issue 26, "Live statistics"), through HTTP on the sandbox with the test
// clock, on either database: a scripted day of two workers, one who lets every offer ring out
// and one who answers, talks, wraps up and goes offline. GET /v1/workers/{id}/stats must match a
// hand count: the calls counted from the scenario, and the seconds recounted from the
// worker.status_changed webhooks' own timestamps (an independent record of the same moves).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';
import { MAGIC, eventsOf } from '../voice/voice-helpers.ts';
import { waitForFlowEvent } from '../voice/flow-helpers.ts';

const sandbox = useSandboxAccount();
const api = () => sandbox.api();

function ok(res: { status: number; body: any }) {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

async function waitUntil<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const statusOf = async (id: string, status: string) =>
  waitUntil(`${id} ${status}`, async () => ok(await api().get(`/v1/workers/${id}`)), (w) => w.status === status);

const advance = async (clockSeconds: number) => ok(await api().post('/v1/sandbox/clock/advance', { seconds: clockSeconds }));

/**
 * The hand count of a worker's seconds: from its creation and its worker.status_changed
 * webhooks up to its final move (offline), each interval in the status it entered, in
 * simulated seconds as the API counts them.
 */
function recount(created: any, workerId: string) {
  const moves = eventsOf(sandbox.receiver, workerId).filter((e) => e.type === 'worker.status_changed')
    .map((e) => ({ status: e.data.object.status as string, at: e.data.object.status_changed_at as string }));
  const points = [{ status: created.status as string, at: created.status_changed_at as string }, ...moves];
  assert.equal(points.at(-1)!.status, 'offline', 'the scenario ends offline, so every counted interval is closed');
  const ms: Record<string, number> = { available: 0, busy: 0, wrap_up: 0, offline: 0 };
  for (let i = 0; i + 1 < points.length; i++) ms[points[i]!.status]! += Date.parse(points[i + 1]!.at) - Date.parse(points[i]!.at);
  const scale = sandbox.server.config.simTimeScale;
  const seconds = (status: string) => Math.floor(ms[status]! / 1000 / scale);
  return { statuses: points.map((p) => p.status), talk: seconds('busy'), wrapUp: seconds('wrap_up'), idle: seconds('available') };
}

describe('worker statistics', () => {
  test('GET /v1/workers/{id}/stats matches a hand count of a scripted scenario: answered, missed, talk, wrap-up, idle, occupancy', async () => {
    const scale = sandbox.server.config.simTimeScale;
    ok(await api().post('/v1/queues', { name: 'stats', wait_flow: [{ pause: { seconds: 600 } }], routing: { required_skills: ['stats'] } }));
    // Created first, so idle longest: offered every caller first, and lets each ring out.
    const misser = ok(await api().post('/v1/workers', { name: 'Misses', skills: ['stats'], reach: MAGIC.noAnswer, status: 'available', ring_timeout_seconds: 5 }));
    const answerer = ok(await api().post('/v1/workers', { name: 'Answers', skills: ['stats'], reach: MAGIC.staysUp, status: 'available', wrap_up_seconds: 300 }));

    const callers: string[] = [];
    for (let round = 0; round < 2; round++) {
      const caller = ok(await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, flow: [{ enqueue: { queue: 'stats' } }, { hangup: {} }] }));
      callers.push(caller.id);
      const [left] = await waitForFlowEvent(sandbox.receiver, caller.id, 'call.queue.left');
      assert.equal(left!.data.object.result, 'bridged');
      await statusOf(answerer.id, 'busy');
      // 100 simulated seconds more of talk, on the test clock.
      await advance(100 * scale);
      ok(await api().post(`/v1/calls/${caller.id}/hangup`, {}));
      await statusOf(answerer.id, 'wrap_up');
      if (round === 0) {
        // The wrap-up's 300 seconds pass on the test clock: its durable job makes the worker available.
        await advance(300 * scale);
        await statusOf(answerer.id, 'available');
      }
    }
    // The day ends: both go offline (the answerer straight from its second wrap-up).
    ok(await api().patch(`/v1/workers/${answerer.id}`, { status: 'offline' }));
    ok(await api().patch(`/v1/workers/${misser.id}`, { status: 'offline' }));
    await sandbox.receiver.waitFor(() => eventsOf(sandbox.receiver, misser.id).some((e) => e.data.object.status === 'offline')
      && eventsOf(sandbox.receiver, answerer.id).some((e) => e.data.object.status === 'offline'));

    // The calls, counted by hand from the scenario and checked against the webhooks.
    const missedOffers = eventsOf(sandbox.receiver, misser.id).filter((e) => e.type === 'worker.missed').map((e) => e.data.object.id);
    assert.equal(missedOffers.length, 2, 'the longest idle worker was offered each caller first and let both ring out');
    const connected = eventsOf(sandbox.receiver, answerer.id).filter((e) => e.type === 'worker.connected').map((e) => e.data.object.current_call_id);
    assert.equal(connected.length, 2);

    const answered = recount(answerer, answerer.id);
    assert.deepEqual(answered.statuses, ['available', 'busy', 'wrap_up', 'available', 'busy', 'wrap_up', 'offline']);
    const answererStats = ok(await api().get(`/v1/workers/${answerer.id}/stats?window_minutes=1440`));
    assert.deepEqual(answererStats, {
      object: 'worker_stats', worker_id: answerer.id, window_minutes: 1440, status: 'offline',
      calls_handled: 2, calls_missed: 0, talk_seconds: answered.talk, wrap_up_seconds: answered.wrapUp, idle_seconds: answered.idle,
      occupancy: Math.round(((answered.talk + answered.wrapUp) / (answered.talk + answered.wrapUp + answered.idle)) * 1000) / 1000,
    });
    // What the test clock moved is in there: two advances of talk and one whole wrap-up.
    assert.ok(answererStats.talk_seconds >= 200, JSON.stringify(answererStats));
    assert.ok(answererStats.wrap_up_seconds >= 300, JSON.stringify(answererStats));

    const missed = recount(misser, misser.id);
    assert.deepEqual(missed.statuses, ['available', 'offline'], 'a miss is not a status change');
    assert.deepEqual(ok(await api().get(`/v1/workers/${misser.id}/stats?window_minutes=1440`)), {
      object: 'worker_stats', worker_id: misser.id, window_minutes: 1440, status: 'offline',
      calls_handled: 0, calls_missed: 2, talk_seconds: 0, wrap_up_seconds: 0, idle_seconds: missed.idle, occupancy: 0,
    });

    // Twenty minutes later (test clock) the default 15-minute window holds only offline time.
    await advance(20 * 60 * scale);
    assert.deepEqual(ok(await api().get(`/v1/workers/${answerer.id}/stats`)), {
      object: 'worker_stats', worker_id: answerer.id, window_minutes: 15, status: 'offline',
      calls_handled: 0, calls_missed: 0, talk_seconds: 0, wrap_up_seconds: 0, idle_seconds: 0, occupancy: 0,
    });
  });

  test('a window that opens mid-history counts only its part: the status at its start counts from the start', async () => {
    const scale = sandbox.server.config.simTimeScale;
    const worker = ok(await api().post('/v1/workers', { name: 'Shifts', reach: MAGIC.staysUp, status: 'available' }));
    // Shift one: 100 s available, then offline for 200 minutes (test clock).
    await advance(100 * scale);
    ok(await api().patch(`/v1/workers/${worker.id}`, { status: 'offline' }));
    await advance(200 * 60 * scale);
    // Shift two: 100 s available, then offline.
    ok(await api().patch(`/v1/workers/${worker.id}`, { status: 'available' }));
    await advance(100 * scale);
    ok(await api().patch(`/v1/workers/${worker.id}`, { status: 'offline' }));
    await sandbox.receiver.waitFor(() => eventsOf(sandbox.receiver, worker.id).filter((e) => e.type === 'worker.status_changed').length >= 3);
    const moves = eventsOf(sandbox.receiver, worker.id).map((e) => e.data.object.status_changed_at as string);
    const simSeconds = (from: string, to: string) => Math.floor((Date.parse(to) - Date.parse(from)) / 1000 / scale);
    const firstShift = simSeconds(worker.status_changed_at, moves[0]!);
    const secondShift = simSeconds(moves[1]!, moves[2]!);
    assert.ok(firstShift >= 100 && secondShift >= 100, `${firstShift}, ${secondShift}`);

    // An hour's window opened during the 200 offline minutes: only the second shift is in it.
    const hour = ok(await api().get(`/v1/workers/${worker.id}/stats?window_minutes=60`));
    assert.deepEqual([hour.idle_seconds, hour.talk_seconds, hour.wrap_up_seconds, hour.occupancy], [secondShift, 0, 0, 0]);
    // A day's window holds both (each interval rounded down once: summed in milliseconds first).
    const day = ok(await api().get(`/v1/workers/${worker.id}/stats?window_minutes=1440`));
    const bothMs = (Date.parse(moves[0]!) - Date.parse(worker.status_changed_at)) + (Date.parse(moves[2]!) - Date.parse(moves[1]!));
    assert.equal(day.idle_seconds, Math.floor(bothMs / 1000 / scale));
  });

  test('the window is 1 to 1,440 minutes; another account\'s or mode\'s worker is not found', async () => {
    const worker = ok(await api().post('/v1/workers', { name: 'Bounds', reach: MAGIC.staysUp }));
    for (const bad of ['0', '1441', 'ten']) {
      const res = await api().get(`/v1/workers/${worker.id}/stats?window_minutes=${bad}`);
      assert.equal(res.status, 400, `window_minutes=${bad}: ${JSON.stringify(res.body)}`);
    }
    assert.equal((await api().get('/v1/workers/wrk_01jd8x0v6kf5b9w3t2q1r0p9n8/stats')).status, 404);
    assert.equal((await sandbox.server.as(sandbox.account.keys.live).get(`/v1/workers/${worker.id}/stats`)).status, 404);
    const other = await sandbox.server.createAccount('scale', 'other');
    assert.equal((await sandbox.server.as(other.keys.sandbox).get(`/v1/workers/${worker.id}/stats`)).status, 404);
    // A worker offline since it was made: no working time, no calls.
    const fresh = ok(await api().get(`/v1/workers/${worker.id}/stats`));
    assert.deepEqual([fresh.calls_handled, fresh.calls_missed, fresh.talk_seconds, fresh.wrap_up_seconds, fresh.idle_seconds, fresh.occupancy], [0, 0, 0, 0, 0, 0]);
  });
});

// The queue and conference gauges of GET /metrics, read from the store when scraped: a caller
// waiting in a queue and two calls in a conference placed through the sandbox API show up, by
// mode, and go back to zero when they leave.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';
import { declares, scrape, value } from '../helpers/metrics.ts';
import { MAGIC } from '../voice/voice-helpers.ts';
import { waitForFlowEvent } from '../voice/flow-helpers.ts';

const TOKEN = 'scrape-token-for-tests-0123456789';

describe('queue and conference gauges', () => {
  const sb = useSandboxAccount({ SWITCHBOARD_METRICS_TOKEN: TOKEN });
  const read = async () => {
    const res = await scrape(sb.server.url, TOKEN);
    assert.equal(res.status, 200, res.text);
    return res.text;
  };
  const place = async (flow: unknown[]) => {
    const res = await sb.api().post('/v1/calls', { from: sb.from, to: MAGIC.staysUp, flow });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.id as string;
  };

  test('a caller waiting in a queue: callers waiting and the longest wait, by mode', async () => {
    const before = await read();
    for (const name of ['switchboard_queue_callers_waiting', 'switchboard_queue_longest_wait_seconds']) assert.ok(declares(before, name), name);
    assert.equal(value(before, 'switchboard_queue_callers_waiting', { mode: 'sandbox' }), 0);
    assert.equal(value(before, 'switchboard_queue_longest_wait_seconds', { mode: 'sandbox' }), 0);

    assert.equal((await sb.api().post('/v1/queues', { name: 'front-desk' })).status, 200);
    const caller = await place([{ enqueue: { queue: 'front-desk' } }]);
    await waitForFlowEvent(sb.receiver, caller, 'call.queue.joined');
    const waiting = await read();
    assert.equal(value(waiting, 'switchboard_queue_callers_waiting', { mode: 'sandbox' }), 1);
    assert.equal(value(waiting, 'switchboard_queue_callers_waiting', { mode: 'live' }), 0);
    assert.ok(value(waiting, 'switchboard_queue_longest_wait_seconds', { mode: 'sandbox' }) >= 0);

    assert.equal((await sb.api().post(`/v1/calls/${caller}/hangup`)).status, 200);
    await waitForFlowEvent(sb.receiver, caller, 'call.queue.left');
    const gone = await read();
    assert.equal(value(gone, 'switchboard_queue_callers_waiting', { mode: 'sandbox' }), 0);
    assert.equal(value(gone, 'switchboard_queue_longest_wait_seconds', { mode: 'sandbox' }), 0);
  });

  test('two calls in a conference: one conference active, two participants; none after it ends', async () => {
    const before = await read();
    for (const name of ['switchboard_conferences_active', 'switchboard_conference_participants']) assert.ok(declares(before, name), name);
    assert.equal(value(before, 'switchboard_conferences_active', { mode: 'sandbox' }), 0);

    const calls = [await place([{ conference: { name: 'standup' } }]), await place([{ conference: { name: 'standup' } }])];
    for (const id of calls) await sb.receiver.waitFor(() => sb.receiver.events().some((e) => e.type === 'conference.participant.joined' && e.data.object.call_id === id), 20_000);
    const during = await read();
    assert.equal(value(during, 'switchboard_conferences_active', { mode: 'sandbox' }), 1);
    assert.equal(value(during, 'switchboard_conference_participants', { mode: 'sandbox' }), 2);
    assert.equal(value(during, 'switchboard_conference_participants', { mode: 'live' }), 0);

    const conference = (await sb.api().get('/v1/conferences?name=standup')).body.data[0];
    assert.equal((await sb.api().post(`/v1/conferences/${conference.id}/end`)).status, 200);
    await sb.receiver.waitFor(() => sb.receiver.events().some((e) => e.type === 'conference.ended'), 20_000);
    const after = await read();
    assert.equal(value(after, 'switchboard_conferences_active', { mode: 'sandbox' }), 0);
    assert.equal(value(after, 'switchboard_conference_participants', { mode: 'sandbox' }), 0);
  });
});

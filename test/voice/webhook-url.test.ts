// A call's webhook_url is never null (spec section 2): its own URL, else the from number's,
// else the subscription that receives its events, else the absolute URL of its events on
// this server, which GET /v1/events?object_id= answers. SWITCHBOARD_PUBLIC_URL is the base.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { loadConfig } from '../../src/config.ts';
import { until } from '../helpers/until.ts';
import { MAGIC } from './voice-helpers.ts';

let t: TestServer;
before(async () => {
  t = await startTestServer();
});
after(async () => {
  await t.close();
});

describe('issue 10.1: webhook_url of a call', () => {
  test('with nothing to deliver to, it is the absolute events URL, and that URL lists the call\'s events', async () => {
    const acct = await t.createAccount('scale');
    const api = t.as(acct.keys.sandbox);
    const res = await api.post('/v1/calls', { from: acct.numbers.sandbox[0], to: MAGIC.busy, record: false });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.body).filter((k) => ['id', 'status', 'recording', 'webhook_url'].includes(k)).sort(), ['id', 'recording', 'status', 'webhook_url']);
    assert.equal(res.body.status, 'queued');
    assert.equal(res.body.webhook_url, `${t.url}/v1/events?object_id=${res.body.id}`);
    assert.ok(new URL(res.body.webhook_url).protocol === 'http:');

    // The URL works as given, with the API key: the call's events, newest first (GET /v1/events?object_id=,
    // issue 10.17), each an envelope with object "event" (issue 10.18).
    await until('the call\'s 3 events listed at its webhook_url', async () => (await api.get((res.body.webhook_url as string).slice(t.url.length))).body.data.length === 3);
    const events = await fetch(res.body.webhook_url, { headers: { authorization: `Bearer ${acct.keys.sandbox}` } });
    assert.equal(events.status, 200);
    const page = await events.json() as any;
    assert.deepEqual(page.data.map((e: any) => e.type), ['call.completed', 'call.busy', 'call.queued']);
    for (const e of page.data) {
      assert.equal(e.object, 'event');
      assert.equal(e.data.object.id, res.body.id);
      assert.equal(e.data.object.webhook_url, res.body.webhook_url);
    }
    // resource_id is the older name of the same filter; two different ids are refused.
    assert.deepEqual((await api.get(`/v1/events?resource_id=${res.body.id}`)).body.data.map((e: any) => e.id), page.data.map((e: any) => e.id));
    const both = await api.get(`/v1/events?object_id=${res.body.id}&resource_id=call_other`);
    assert.equal(both.status, 400);
    assert.equal(both.body.errors[0].field, 'resource_id');
  });

  test('the oldest enabled subscription that receives call events comes next; then the number\'s URL; then the request\'s', async () => {
    const acct = await t.createAccount('scale');
    const api = t.as(acct.keys.sandbox);
    const from = acct.numbers.sandbox[0]!;
    // Subscriptions that do not receive call.completed (messages only; disabled) are skipped.
    assert.equal((await api.post('/v1/webhooks', { url: 'http://127.0.0.1:9/messages', events: ['message.*'] })).status, 200);
    const disabled = await api.post('/v1/webhooks', { url: 'http://127.0.0.1:9/off', events: ['*'] });
    assert.equal((await api.patch(`/v1/webhooks/${disabled.body.id}`, { enabled: false })).status, 200);
    assert.equal((await api.post('/v1/webhooks', { url: 'http://127.0.0.1:9/calls', events: ['call.*'] })).status, 200);
    assert.equal((await api.post('/v1/webhooks', { url: 'http://127.0.0.1:9/later', events: ['call.completed'] })).status, 200);
    const viaSubscription = await api.post('/v1/calls', { from, to: MAGIC.staysUp, record: false });
    assert.equal(viaSubscription.body.webhook_url, 'http://127.0.0.1:9/calls');
    assert.equal((await api.get(`/v1/calls/${viaSubscription.body.id}`)).body.webhook_url, 'http://127.0.0.1:9/calls');
    await api.post(`/v1/calls/${viaSubscription.body.id}/hangup`);

    const number = (await api.get(`/v1/numbers?phone_number=${encodeURIComponent(from)}`)).body.data[0];
    assert.equal((await api.patch(`/v1/numbers/${number.id}`, { webhook_url: 'http://127.0.0.1:9/number' })).status, 200);
    const viaNumber = await api.post('/v1/calls', { from, to: MAGIC.busy, record: false });
    assert.equal(viaNumber.body.webhook_url, 'http://127.0.0.1:9/number');
    const own = await api.post('/v1/calls', { from, to: MAGIC.busy, record: false, webhook_url: 'http://127.0.0.1:9/own' });
    assert.equal(own.body.webhook_url, 'http://127.0.0.1:9/own');
  });
});

describe('issue 10.2: SWITCHBOARD_PUBLIC_URL', () => {
  test('is the base of the URLs the API returns: the events URL, media_url, a listen session\'s URLs', async () => {
    const base = 'https://switchboard.example.test/base';
    const other = await startTestServer({ SWITCHBOARD_PUBLIC_URL: `${base}/` });
    try {
      const acct = await other.createAccount('scale');
      const api = other.as(acct.keys.sandbox);
      const res = await api.post('/v1/calls', { from: acct.numbers.sandbox[0], to: MAGIC.busy, record: false });
      assert.equal(res.status, 200);
      assert.equal(res.body.webhook_url, `${base}/v1/events?object_id=${res.body.id}`);

      const session = await api.post('/v1/webhooks/listen', { forward_to: 'http://localhost:3000/hooks' });
      assert.equal(session.status, 200, JSON.stringify(session.body));
      assert.equal(session.body.stream_url, `${base}/v1/webhooks/${session.body.id}/listen`);
      assert.equal(session.body.results_url, `${base}/v1/webhooks/${session.body.id}/listen/results`);
      assert.equal((await api.delete(`/v1/webhooks/${session.body.id}`)).status, 200);

      const recorded = await api.post('/v1/calls', { from: acct.numbers.sandbox[0], to: '+14155550199', record: true });
      let recording: any;
      await until('the recording to be ready', async () => {
        const list = await api.get(`/v1/calls/${recorded.body.id}/recordings`);
        recording = list.body.data?.[0];
        return recording?.status === 'ready';
      });
      assert.equal(recording.media_url, `${base}/v1/recordings/${recording.id}/media`);
    } finally {
      await other.close();
    }
  });

  test('must be an absolute http(s) URL', () => {
    assert.equal(loadConfig({ SWITCHBOARD_PUBLIC_URL: 'https://api.example.com/' }).publicUrl, 'https://api.example.com');
    assert.equal(loadConfig({}).publicUrl, undefined);
    assert.throws(() => loadConfig({ SWITCHBOARD_PUBLIC_URL: 'api.example.com' }), /absolute URL/);
    assert.throws(() => loadConfig({ SWITCHBOARD_PUBLIC_URL: 'ftp://api.example.com' }), /http or https/);
  });
});

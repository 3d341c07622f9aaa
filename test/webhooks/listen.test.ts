// `switchboard listen`: the CLI, run as a developer runs it, holds a listen session's event
// stream open and forwards each delivery to a real receiver on 127.0.0.1 that verifies the
// Standard Webhooks signature with the `standardwebhooks` package; the deliveries, retries and
// dead letters the API shows are what the receiver answered. The stream itself (resume with
// Last-Event-ID, late results) is driven through plain HTTP.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { until } from './support.ts';

let t: TestServer;
let acct: CreatedAccount;
before(async () => {
  t = await startTestServer();
  acct = await t.createAccount('scale');
});
after(() => t.close());

interface Cli {
  child: ChildProcessWithoutNullStreams;
  lines: any[];
  waitFor(predicate: (line: any) => boolean, timeoutMs?: number): Promise<any>;
  exited: Promise<number | null>;
}

function startListen(forwardTo: string, events: string): Cli {
  const child = spawn(process.execPath, ['bin/switchboard.js', 'listen', '--forward-to', forwardTo, '--events', events, '--json'], {
    env: { ...process.env, SWITCHBOARD_API_KEY: acct.keys.sandbox, SWITCHBOARD_BASE_URL: t.url },
  });
  const lines: any[] = [];
  const waiters = new Set<() => void>();
  let buffered = '';
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => { stderr += c.toString('utf8'); });
  child.stdout.on('data', (c: Buffer) => {
    buffered += c.toString('utf8');
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(buffered.slice(0, nl)));
      buffered = buffered.slice(nl + 1);
    }
    for (const w of waiters) w();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child, lines, exited,
    waitFor(predicate, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = lines.find(predicate);
          if (found) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching line in ${timeoutMs} ms; got ${JSON.stringify(lines).slice(0, 800)}; stderr ${stderr.slice(0, 800)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

const deliveriesOf = async (webhookId: string) => (await t.as(acct.keys.sandbox).get(`/v1/webhooks/${webhookId}/deliveries?limit=100`)).body.data as any[];

describe('switchboard listen', () => {
  let receiver: WebhookReceiver;
  let cli: Cli;
  let session: string;
  before(async () => {
    receiver = await startReceiver();
    cli = startListen(receiver.url, 'call.*');
    const ready = await cli.waitFor((l) => l.type === 'ready');
    session = ready.session_id;
    // A listen session signs with the mode's default secret: the receiver keeps one secret across sessions.
    const defaults = await t.as(acct.keys.sandbox).get('/v1/webhooks/default_secret');
    assert.equal(ready.secret, defaults.body.secret);
    receiver.secrets.push(ready.secret);
  });
  after(async () => {
    if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
    await receiver.close();
  });

  test('forwards each delivery byte for byte with its original signature headers; the deliveries show the receiver\'s answers', async () => {
    const api = t.as(acct.keys.sandbox);
    const endpoint = await api.get(`/v1/webhooks/${session}`);
    assert.equal(endpoint.body.transport, 'listen');
    assert.equal(endpoint.body.url, receiver.url);
    assert.deepEqual(endpoint.body.events, ['call.*']);

    const call = await api.post('/v1/calls', { from: acct.numbers.sandbox[0], to: '+14155550100' });
    assert.equal(call.status, 200);
    const completed = await receiver.waitForEvent('call.completed', call.body.id, 30_000);
    const delivery = receiver.deliveries.find((d) => d.event.id === completed.id)!;
    // The standardwebhooks package verified the signature over the raw bytes received.
    assert.deepEqual(delivery.verifiedWith, [0]);
    assert.equal(delivery.headers['webhook-id'], completed.id);
    assert.equal(delivery.headers['user-agent'], 'Switchboard-Webhooks/1.0');
    assert.equal(delivery.headers['content-type'], 'application/json');
    const stored = await api.get(`/v1/events/${completed.id}`);
    assert.deepEqual(JSON.parse(delivery.body), stored.body);
    assert.ok(receiver.events().every((e) => e.type.startsWith('call.')), 'only the session\'s patterns are forwarded');

    const mine = await until(() => deliveriesOf(session), (list) => list.some((d) => d.event_id === completed.id && d.status === 'succeeded'));
    const recorded = mine.find((d) => d.event_id === completed.id)!;
    assert.equal(recorded.webhook_id, session);
    assert.equal(recorded.last_status_code, 200);
    assert.equal(recorded.attempts[0].status_code, 200);
    assert.equal(recorded.attempts[0].response_excerpt, 'ok');
    const line = await cli.waitFor((l) => l.type === 'result' && l.event_id === completed.id);
    assert.equal(line.status_code, 200);
  });

  test('a failing receiver is retried on the schedule, then dead-lettered; a replay goes through the listener again', async () => {
    const api = t.as(acct.keys.sandbox);
    receiver.respond = (d) => ({ status: d.event.type === 'call.completed' ? 500 : 200 });
    const call = await api.post('/v1/calls', { from: acct.numbers.sandbox[0], to: '+14155550100' });
    // TEST_ENV's schedule (0.2, 0.5, 1 s): four attempts, then the dead letter.
    const dead = await until(() => api.get(`/v1/webhooks/dead_letters?webhook_id=${session}`),
      (res) => res.body.data.some((d: any) => d.resource_id === call.body.id), 20_000);
    const letter = dead.body.data.find((d: any) => d.resource_id === call.body.id);
    assert.equal(letter.event_type, 'call.completed');
    assert.deepEqual(letter.attempts.map((a: any) => a.status_code), [500, 500, 500, 500]);
    assert.deepEqual(letter.attempts.map((a: any) => a.response_excerpt), ['nope', 'nope', 'nope', 'nope']);

    receiver.respond = () => ({ status: 200 });
    const replay = await api.post(`/v1/webhooks/dead_letters/${letter.id}/replay`);
    assert.equal(replay.status, 200);
    const event = await receiver.waitForEvent('call.completed', call.body.id, 15_000);
    assert.equal(event.id, letter.event_id);
    const after = await until(() => deliveriesOf(session), (list) => list.some((d) => d.id === letter.id && d.status === 'succeeded'));
    assert.deepEqual(after.find((d) => d.id === letter.id)!.attempts.map((a: any) => a.status_code), [500, 500, 500, 500, 200]);
  });

  test('without a key it exits 2 with usage; with a key lacking webhooks:write it exits 1 naming the problem', async () => {
    const run = (env: Record<string, string | undefined>) => new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['bin/switchboard.js', 'listen', '--forward-to', receiver.url], { env: { ...process.env, SWITCHBOARD_API_KEY: '', ...env } });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => { stderr += c.toString('utf8'); });
      child.on('exit', (code) => resolve({ code, stderr }));
    });
    const noKey = await run({ SWITCHBOARD_BASE_URL: t.url });
    assert.equal(noKey.code, 2);
    assert.match(noKey.stderr, /an API key is needed: --api-key or SWITCHBOARD_API_KEY/);
    const reader = await t.as(acct.keys.sandbox).post('/v1/keys', { name: 'reads webhooks only', scopes: ['webhooks:read'] });
    const denied = await run({ SWITCHBOARD_BASE_URL: t.url, SWITCHBOARD_API_KEY: reader.body.secret });
    assert.equal(denied.code, 1);
    assert.match(denied.stderr, /POST \/v1\/webhooks\/listen: 403 insufficient_scope/);
  });

  test('^C (SIGTERM) ends the session: it is deleted and the CLI exits 0', async () => {
    cli.child.kill('SIGTERM');
    assert.equal(await cli.exited, 0);
    assert.ok(cli.lines.some((l) => l.type === 'ended' && l.session_id === session));
    assert.equal((await t.as(acct.keys.sandbox).get(`/v1/webhooks/${session}`)).status, 404);
  });
});

/** A bare server-sent-events reader: every event of one response, as it arrives. */
async function openStream(sessionId: string, lastEventId?: string) {
  const controller = new AbortController();
  const res = await fetch(`${t.url}/v1/webhooks/${sessionId}/listen`, {
    headers: { authorization: `Bearer ${acct.keys.sandbox}`, accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
    signal: controller.signal,
  });
  const events: Array<{ event: string; id?: string; data: any }> = [];
  const waiters = new Set<() => void>();
  void (async () => {
    let text = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        text += Buffer.from(chunk).toString('utf8');
        let end: number;
        while ((end = text.indexOf('\n\n')) >= 0) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          const fields = Object.fromEntries(block.split('\n').filter((l) => !l.startsWith(':')).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]));
          if (fields.data) events.push({ event: fields.event ?? 'message', id: fields.id, data: JSON.parse(fields.data) });
          for (const w of waiters) w();
        }
      }
    } catch { /* aborted */ }
  })();
  return {
    res, events,
    close: () => controller.abort(),
    next(predicate: (e: { event: string; id?: string; data: any }) => boolean, timeoutMs = 10_000) {
      return new Promise<{ event: string; id?: string; data: any }>((resolve, reject) => {
        const check = () => {
          const found = events.find(predicate);
          if (found) { waiters.delete(check); clearTimeout(timer); resolve(found); }
        };
        const timer = setTimeout(() => { waiters.delete(check); reject(new Error(`no such event; got ${JSON.stringify(events).slice(0, 500)}`)); }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

describe('the listen stream over HTTP', () => {
  test('no listener: a failed attempt; the retry reaches the stream; resume with Last-Event-ID; a late result is 404', async () => {
    const api = t.as(acct.keys.sandbox);
    const created = await api.post('/v1/webhooks/listen', { forward_to: 'http://localhost:3000/hooks', events: ['message.*'] });
    assert.equal(created.status, 200);
    assert.equal(created.body.object, 'webhook_listen_session');
    assert.equal(created.body.stream_url, `${t.url}/v1/webhooks/${created.body.id}/listen`, 'absolute, on the public URL (issue 10.2)');
    assert.equal(created.body.results_url, `${t.url}/v1/webhooks/${created.body.id}/listen/results`);
    const id = created.body.id as string;

    // Nobody listens yet: the first attempt fails like a refused connection would.
    const test1 = await api.post(`/v1/webhooks/${id}/test`);
    assert.equal(test1.status, 200);
    const [failed] = await until(() => deliveriesOf(id), (list) => list.length === 1 && list[0].attempt_count >= 1);
    assert.equal(failed.attempts[0].status_code, null);
    assert.equal(failed.attempts[0].error, 'no listener is connected to this listen session');

    // The retry (0.2 s later) goes down the stream once a listener is there.
    const first = await openStream(id);
    assert.equal(first.res.status, 200);
    assert.match(first.res.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.ok(first.res.headers.get('x-switchboard-ratelimit-remaining') !== null);
    const ready = await first.next((e) => e.event === 'ready');
    assert.equal(ready.data.session_id, id);
    const d1 = await first.next((e) => e.event === 'delivery');
    assert.equal(d1.id, d1.data.dispatch_id);
    assert.equal(d1.data.event_id, test1.body.id);
    assert.equal(d1.data.event_type, 'webhook.test');
    assert.ok(d1.data.attempt >= 2);
    assert.match(d1.data.headers['webhook-signature'], /^v1,/);
    assert.deepEqual(JSON.parse(d1.data.body), (await api.get(`/v1/events/${test1.body.id}`)).body);
    first.close();

    // Reconnecting without Last-Event-ID: the unanswered dispatch comes again, same id.
    const second = await openStream(id);
    assert.equal((await second.next((e) => e.event === 'delivery')).id, d1.id);
    second.close();

    // With Last-Event-ID naming it, it is not sent again: the next delivery is a new event.
    const third = await openStream(id, d1.id);
    const test2 = await api.post(`/v1/webhooks/${id}/test`);
    const d2 = await third.next((e) => e.event === 'delivery');
    assert.equal(d2.data.event_id, test2.body.id);
    assert.ok(!third.events.some((e) => e.id === d1.id));

    // Results: each is recorded on its delivery; the same dispatch answered twice is a 404.
    const r1 = await api.post(`/v1/webhooks/${id}/listen/results`, { dispatch_id: d1.id, status_code: 204, latency_ms: 3, response_excerpt: '' });
    assert.equal(r1.status, 200);
    assert.deepEqual(r1.body, { object: 'webhook_listen_result', dispatch_id: d1.id, delivery_id: d1.data.delivery_id });
    const again = await api.post(`/v1/webhooks/${id}/listen/results`, { dispatch_id: d1.id, status_code: 204, latency_ms: 3 });
    assert.equal(again.status, 404);
    assert.equal(again.body.code, 'not_found');
    const r2 = await api.post(`/v1/webhooks/${id}/listen/results`, { dispatch_id: d2.id, status_code: null, latency_ms: 5, error: 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:3000' });
    assert.equal(r2.status, 200);
    const list = await until(() => deliveriesOf(id), (l) => l.find((d) => d.id === d1.data.delivery_id)?.status === 'succeeded'
      && l.find((d) => d.id === d2.data.delivery_id)?.attempt_count >= 1);
    const one = list.find((d) => d.id === d1.data.delivery_id)!;
    assert.equal(one.status, 'succeeded');
    assert.equal(one.attempts.at(-1).status_code, 204);
    const two = list.find((d) => d.id === d2.data.delivery_id)!;
    assert.equal(two.attempts[0].status_code, null);
    assert.equal(two.attempts[0].error, 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:3000');
    third.close();
    assert.equal((await api.delete(`/v1/webhooks/${id}`)).status, 200);
  });

  test('a session nobody has listened to for an hour is disabled at its next delivery', async () => {
    const api = t.as(acct.keys.sandbox);
    const created = await api.post('/v1/webhooks/listen', { forward_to: 'http://localhost:3000/hooks' });
    const id = created.body.id as string;
    // An hour and a bit ago, the last listener went away.
    await t.server.database.db.updateTable('webhook_endpoints')
      .set({ listener_seen_at: new Date(Date.now() - 3700_000).toISOString() }).where('id', '=', id).execute();
    await api.post(`/v1/webhooks/${id}/test`);
    const [delivery] = await until(() => deliveriesOf(id), (list) => list.length === 1 && list[0].status !== 'pending');
    assert.equal(delivery.status, 'failed');
    assert.equal(delivery.attempts.length, 1);
    assert.equal(delivery.attempts[0].error, 'no listener is connected to this listen session');
    const endpoint = await until(() => api.get(`/v1/webhooks/${id}`), (res) => res.body.enabled === false);
    assert.equal(endpoint.body.disabled_reason, 'listener_gone');

    // A stream left open: the server's close (after all tests) must end it, not wait for it.
    const open = await openStream((await api.post('/v1/webhooks/listen', { forward_to: 'http://localhost:3000/hooks' })).body.id);
    assert.equal((await open.next((e) => e.event === 'ready')).event, 'ready');
  });

  test('bad input and other resources are refused with problems', async () => {
    const api = t.as(acct.keys.sandbox);
    const bad = await api.post('/v1/webhooks/listen', { forward_to: 'ftp://example.com/x' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].field, 'forward_to');
    const unknownType = await api.post('/v1/webhooks/listen', { forward_to: 'http://localhost:3000', events: ['call.nope'] });
    assert.equal(unknownType.status, 400);

    const plain = await api.post('/v1/webhooks', { url: 'http://127.0.0.1:9/hooks' });
    const notASession = await t.request('GET', `/v1/webhooks/${plain.body.id}/listen`, { key: acct.keys.sandbox });
    assert.equal(notASession.status, 404);
    assert.equal(notASession.body.code, 'not_found');

    const reader = await api.post('/v1/keys', { name: 'reads webhooks', scopes: ['webhooks:read'] });
    const denied = await t.as(reader.body.secret).post('/v1/webhooks/listen', { forward_to: 'http://localhost:3000/hooks' });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, 'insufficient_scope');
  });
});

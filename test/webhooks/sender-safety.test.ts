// What the sender refuses to do for a receiver: follow a redirect, or read a body without end.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, type TestServer, type CreatedAccount } from '../helpers/server.ts';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { subscribe, until } from './support.ts';

let t: TestServer;
let acct: CreatedAccount;
const closers: Array<() => Promise<void>> = [];

before(async () => {
  t = await startTestServer();
  acct = await t.createAccount('scale');
});
after(async () => {
  await Promise.all(closers.map((c) => c()));
  await t.close();
});

async function receiver(): Promise<WebhookReceiver> {
  const r = await startReceiver();
  closers.push(() => r.close());
  return r;
}

/** A plain server answering 200 with `bytes` of body, for the read cap. */
async function bigBodyServer(bytes: number): Promise<string> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(bytes) });
      res.end(Buffer.alloc(bytes, 'x'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/big`;
}

const api = () => t.as(acct.keys.sandbox);

describe('webhook sender safety', () => {
  test('a redirect is a failed attempt and is never followed', async () => {
    const target = await receiver();
    const redirecting = await receiver();
    redirecting.respond = () => ({ status: 307, headers: { location: target.url } });
    const wh = await subscribe(t, acct.keys.sandbox, redirecting);
    target.secrets.push(wh.secret);
    const sent = await api().post(`/v1/webhooks/${wh.id}/test`);
    assert.equal(sent.status, 200);

    const page = await until(
      () => api().get(`/v1/webhooks/${wh.id}/deliveries`).then((r) => r.body),
      (p) => p.data[0]?.attempts?.length >= 2,
    );
    assert.deepEqual(page.data[0].attempts.slice(0, 2).map((a: any) => a.status_code), [307, 307]);
    assert.notEqual(page.data[0].status, 'succeeded');
    assert.equal(target.deliveries.length + target.unverified.length, 0, 'the redirect target was never called');
  });

  test('a huge response body is not read whole: the delivery succeeds with a 4 KiB excerpt', async () => {
    const url = await bigBodyServer(8 * 1024 * 1024);
    const created = await api().post('/v1/webhooks', { url, events: ['*'] });
    assert.equal(created.status, 200);
    await api().post(`/v1/webhooks/${created.body.id}/test`);
    const page = await until(
      () => api().get(`/v1/webhooks/${created.body.id}/deliveries`).then((r) => r.body),
      (p) => p.data[0]?.status === 'succeeded',
    );
    const attempt = page.data[0].attempts[0];
    assert.equal(attempt.status_code, 200);
    assert.equal(attempt.response_excerpt.length, 4096);
  });
});

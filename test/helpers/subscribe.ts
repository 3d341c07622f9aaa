// Receivers for an account's mode: one that trusts the mode's default secret (what a
// resource's own webhook_url deliveries are signed with), and one that is also subscribed to
// every event of the mode.
import assert from 'node:assert/strict';
import { startReceiver, type WebhookReceiver } from './webhook-receiver.ts';
import type { TestServer } from './server.ts';

/** A verifying receiver for deliveries to a resource's own webhook_url (no subscription). */
export async function defaultSecretReceiver(t: TestServer, key: string): Promise<WebhookReceiver> {
  const receiver = await startReceiver();
  const defaults = await t.as(key).get('/v1/webhooks/default_secret');
  assert.equal(defaults.status, 200, JSON.stringify(defaults.body));
  receiver.secrets.push(defaults.body.secret);
  return receiver;
}

/** A verifying receiver subscribed to every event of the key's mode. */
export async function subscribeAll(t: TestServer, key: string): Promise<WebhookReceiver> {
  const receiver = await defaultSecretReceiver(t, key);
  const endpoint = await t.as(key).post('/v1/webhooks', { url: receiver.url, events: ['*'] });
  assert.equal(endpoint.status, 200, `POST /v1/webhooks: ${JSON.stringify(endpoint.body)}`);
  receiver.secrets.push(endpoint.body.secret);
  return receiver;
}

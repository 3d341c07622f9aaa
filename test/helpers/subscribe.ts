// Subscribes a verifying webhook receiver to every event of an account's mode, and trusts
// the mode's default secret too (what resources' own webhook_url deliveries are signed with).
import { startReceiver, type WebhookReceiver } from './webhook-receiver.ts';
import type { TestServer } from './server.ts';

export async function subscribeAll(t: TestServer, key: string): Promise<WebhookReceiver> {
  const receiver = await startReceiver();
  const api = t.as(key);
  const endpoint = await api.post('/v1/webhooks', { url: receiver.url, events: ['*'] });
  if (endpoint.status !== 200) throw new Error(`POST /v1/webhooks answered ${endpoint.status}: ${JSON.stringify(endpoint.body)}`);
  receiver.secrets.push(endpoint.body.secret);
  const defaults = await api.get('/v1/webhooks/default_secret');
  if (defaults.status === 200) receiver.secrets.push(defaults.body.secret);
  return receiver;
}

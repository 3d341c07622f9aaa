// Shared steps of the webhook tests: subscribe a receiver, and emit an event through the
// real outbox (the same emit() the voice and messaging modules call) in a real transaction.
import type { TestServer } from '../helpers/server.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { inTransaction } from '../../src/store/transaction.ts';
import type { EventType } from '../../src/events/catalogue.ts';
import type { EventRow } from '../../src/store/platform-tables.ts';
import { until as poll } from '../helpers/until.ts';

export async function subscribe(t: TestServer, key: string, receiver: WebhookReceiver, body: Record<string, unknown> = {}) {
  const res = await t.as(key).post('/v1/webhooks', { url: receiver.url, ...body });
  if (res.status !== 200) throw new Error(`subscribe failed: ${res.status} ${JSON.stringify(res.body)}`);
  receiver.secrets.push(res.body.secret);
  return res.body as { id: string; secret: string };
}

let counter = 0;

export async function emit(t: TestServer, input: {
  accountId: string; mode: 'sandbox' | 'live'; type: EventType; resourceId?: string; webhookUrl?: string | null; object?: Record<string, unknown>;
}): Promise<EventRow> {
  const resourceId = input.resourceId ?? `call_test${++counter}`;
  return inTransaction(t.server.database.db, (trx) => t.server.built.events.emit(trx, {
    accountId: input.accountId,
    mode: input.mode,
    type: input.type,
    resourceType: input.type.split('.')[0]!,
    resourceId,
    object: input.object ?? { id: resourceId, object: input.type.split('.')[0], status: input.type.split('.').pop() },
    webhookUrl: input.webhookUrl ?? null,
    clock: t.server.built.platform.clock,
  }));
}

/** Polls an API list until `done` holds (bounded); for state the receiver cannot see (dead letters). */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  let last: T | undefined;
  const found = await poll('the condition', async () => {
    last = await read();
    return done(last) ? { value: last } : undefined;
  }, { timeoutMs, detail: () => `last read: ${JSON.stringify(last).slice(0, 500)}` });
  return found.value;
}

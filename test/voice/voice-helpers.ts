// Shared by the voice tests: small readers over what a webhook receiver received.
import assert from 'node:assert/strict';
import { startReceiver, type ReceivedEvent, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import type { TestServer } from '../helpers/server.ts';

/** Events of one resource, in sequence order, de-duplicated by event id (delivery is at least once). */
export function eventsOf(receiver: WebhookReceiver, resourceId: string): ReceivedEvent[] {
  const seen = new Map<string, ReceivedEvent>();
  for (const e of receiver.events()) if (e.data.object?.id === resourceId) seen.set(e.id, e);
  return [...seen.values()].sort((a, b) => a.sequence - b.sequence);
}

export function typesOf(receiver: WebhookReceiver, resourceId: string): string[] {
  return eventsOf(receiver, resourceId).map((e) => e.type);
}

/** Waits until the resource has received exactly these event types (in sequence order). */
export async function waitForTypes(receiver: WebhookReceiver, resourceId: string, types: string[], timeoutMs = 15_000): Promise<ReceivedEvent[]> {
  await receiver.waitFor(() => eventsOf(receiver, resourceId).length >= types.length, timeoutMs);
  const events = eventsOf(receiver, resourceId);
  assert.deepEqual(events.map((e) => e.type), types);
  assert.deepEqual(events.map((e) => e.sequence), types.map((_, i) => i + 1));
  return events;
}

export const MAGIC = {
  busy: '+15005550001',
  noAnswer: '+15005550002',
  failed: '+15005550003',
  staysUp: '+15005550004',
  rejectsTransfers: '+15005550005',
  pii: '+15005550006',
} as const;

/** An ordinary (non-magic) destination: rings 1 s, answers, talks 5 s. */
export const ORDINARY = '+14155550199';

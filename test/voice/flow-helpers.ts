// Shared by the call-flow tests: waiting for a verb of a call's flow to be running or done
// (GET /v1/calls/{id}/flow), and the flow events of one call as the receiver got them.
import type { TestServer } from '../helpers/server.ts';
import type { ReceivedEvent, WebhookReceiver } from '../helpers/webhook-receiver.ts';

type Api = ReturnType<TestServer['as']>;

/** Polls the call's flow log until `predicate` holds; returns the flow. */
export async function waitForFlow(api: Api, callId: string, predicate: (flow: any) => boolean, timeoutMs = 20_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api.get(`/v1/calls/${callId}/flow`);
    if (res.status !== 200) throw new Error(`GET /v1/calls/${callId}/flow answered ${res.status}: ${JSON.stringify(res.body)}`);
    const flow = res.body;
    if (predicate(flow)) return flow;
    if (Date.now() > deadline) throw new Error(`flow of ${callId} never matched; last: ${JSON.stringify(flow)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Waits until the verb at `index` is running (its log entry has started and not ended). */
export function waitForRunning(api: Api, callId: string, index: number): Promise<any> {
  return waitForFlow(api, callId, (f) => f.log.some((e: any) => e.index === index && e.ended_at === null));
}

/** Events whose object names this call in `call_id` (flow events), de-duplicated, in sequence order. */
export function flowEventsOf(receiver: WebhookReceiver, callId: string, type?: string): ReceivedEvent[] {
  const seen = new Map<string, ReceivedEvent>();
  for (const e of receiver.events()) if (e.data.object?.call_id === callId && (!type || e.type === type)) seen.set(e.id, e);
  return [...seen.values()].sort((a, b) => a.sequence - b.sequence);
}

export async function waitForFlowEvent(receiver: WebhookReceiver, callId: string, type: string, count = 1): Promise<ReceivedEvent[]> {
  await receiver.waitFor(() => flowEventsOf(receiver, callId, type).length >= count, 30_000);
  return flowEventsOf(receiver, callId, type);
}

/** Every event about this call (its own and its flow's), de-duplicated, in sequence order. */
export function allEventsOf(receiver: WebhookReceiver, callId: string): ReceivedEvent[] {
  const seen = new Map<string, ReceivedEvent>();
  for (const e of receiver.events()) if (e.data.object?.id === callId || e.data.object?.call_id === callId) seen.set(e.id, e);
  return [...seen.values()].sort((a, b) => a.sequence - b.sequence);
}

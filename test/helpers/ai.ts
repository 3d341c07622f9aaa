// AI receptionist test helpers: the fixture knowledge base (test/fixtures/ai) as an API
// push, an agent that answers the account's sandbox number, and a whole sandbox
// conversation run through HTTP until its ai.conversation.scored webhook arrives.
import { readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { FIXTURE_DIR } from '../../src/modules/ai/engine/evaluate.ts';
import type { TestServer } from './server.ts';
import type { ReceivedEvent, WebhookReceiver } from './webhook-receiver.ts';

const TYPES: Record<string, string> = { '.md': 'text/markdown', '.txt': 'text/plain', '.html': 'text/html' };

export const fixture = JSON.parse(readFileSync(join(FIXTURE_DIR, 'fixture.json'), 'utf8')) as {
  agent: { name: string; greeting: string; instructions: string; transferNumber: string; afterHoursMessage: string };
  documents: Array<{ documentId: string; title: string; file: string }>;
};

/** The fixture documents in the body shape of POST /v1/ai/agents/{id}/knowledge; `key` is the fixture's documentId. */
export function fixtureDocuments(): Array<{ key: string; title: string; content: string; content_type: string }> {
  return fixture.documents.map((d) => ({
    key: d.documentId, title: d.title, content: readFileSync(join(FIXTURE_DIR, d.file), 'utf8'), content_type: TYPES[extname(d.file)]!,
  }));
}

export const ALWAYS_OPEN = {
  timezone: 'America/Los_Angeles',
  schedule: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, ['00:00-24:00']])),
};
export const ALWAYS_CLOSED = { timezone: 'America/Los_Angeles', schedule: {} };

/**
 * Creates the fixture's agent on `numberId` with the fixture knowledge. Returns the agent and
 * a map from the fixture's document keys (about, hours, ...) to the doc_ ids it got.
 */
export async function createFixtureAgent(t: TestServer, key: string, numberId: string | null, overrides: Record<string, unknown> = {}) {
  const api = t.as(key);
  const agent = await api.post('/v1/ai/agents', {
    name: fixture.agent.name,
    greeting: fixture.agent.greeting,
    instructions: fixture.agent.instructions,
    transfer_number: fixture.agent.transferNumber,
    business_hours: ALWAYS_OPEN,
    after_hours_message: fixture.agent.afterHoursMessage,
    ...(numberId ? { number_ids: [numberId] } : {}),
    ...overrides,
  });
  if (agent.status !== 200) throw new Error(`create agent: ${agent.status} ${JSON.stringify(agent.body)}`);
  const docs = fixtureDocuments();
  const pushed = await api.post(`/v1/ai/agents/${agent.body.id}/knowledge`, { documents: docs.map(({ key: _k, ...d }) => d) });
  if (pushed.status !== 200) throw new Error(`push knowledge: ${pushed.status} ${JSON.stringify(pushed.body)}`);
  const docIds = Object.fromEntries(docs.map((d, i) => [d.key, pushed.body.data[i].id as string]));
  return { agent: agent.body, docIds };
}

/** Places a sandbox inbound call and waits for the scored conversation (webhook), returning both. */
export async function converse(t: TestServer, key: string, hooks: WebhookReceiver, input: { from?: string; to: string; caller_script: string[] }) {
  const started = await t.as(key).post('/v1/sandbox/inbound_calls', { from: '+14155550199', ...input });
  if (started.status !== 200) throw new Error(`inbound call: ${started.status} ${JSON.stringify(started.body)}`);
  const scored: ReceivedEvent = await hooks.waitForEvent('ai.conversation.scored', started.body.id, 20_000);
  return { started: started.body, scored: scored.data.object, event: scored };
}

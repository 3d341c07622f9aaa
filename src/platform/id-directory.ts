// Which resource an id names, read from its prefix, and where it lives: the one place that
// turns a wrong id into a useful answer (a cursor of another list, a message id sent to
// the calls endpoint, an id of the other mode, a phone number where an id belongs).
import type { Kysely } from 'kysely';
import type { Tables } from '../store/tables.ts';
import type { Mode } from '../store/platform-tables.ts';
import { ID_PREFIXES } from './ids.ts';

export interface IdKind {
  prefix: string;
  /** How docs and messages name it: "call", "API key". */
  noun: string;
  /** Its table; every one has `id`, `account_id` and `mode`. */
  table: keyof Tables;
}

const KINDS: IdKind[] = [
  { prefix: ID_PREFIXES.key, noun: 'API key', table: 'api_keys' },
  { prefix: ID_PREFIXES.call, noun: 'call', table: 'calls' },
  { prefix: ID_PREFIXES.message, noun: 'message', table: 'messages' },
  { prefix: ID_PREFIXES.number, noun: 'number', table: 'numbers' },
  { prefix: ID_PREFIXES.recording, noun: 'recording', table: 'recordings' },
  { prefix: ID_PREFIXES.stream, noun: 'stream', table: 'call_streams' },
  { prefix: ID_PREFIXES.agent, noun: 'AI agent', table: 'ai_agents' },
  { prefix: ID_PREFIXES.document, noun: 'knowledge document', table: 'ai_knowledge_documents' },
  { prefix: ID_PREFIXES.conversation, noun: 'conversation', table: 'ai_conversations' },
  { prefix: ID_PREFIXES.event, noun: 'event', table: 'events' },
  { prefix: ID_PREFIXES.webhook, noun: 'webhook endpoint', table: 'webhook_endpoints' },
  { prefix: ID_PREFIXES.delivery, noun: 'webhook delivery', table: 'webhook_deliveries' },
  { prefix: ID_PREFIXES.port, noun: 'port', table: 'ports' },
  { prefix: ID_PREFIXES.queue, noun: 'queue', table: 'queues' },
  { prefix: ID_PREFIXES.worker, noun: 'worker', table: 'workers' },
];

/** The id prefix of the items of a list, by the collection the list's path ends with. */
const COLLECTIONS: Record<string, string> = {
  keys: ID_PREFIXES.key, calls: ID_PREFIXES.call, messages: ID_PREFIXES.message, numbers: ID_PREFIXES.number,
  recordings: ID_PREFIXES.recording, streams: ID_PREFIXES.stream, agents: ID_PREFIXES.agent, knowledge: ID_PREFIXES.document,
  conversations: ID_PREFIXES.conversation, events: ID_PREFIXES.event, webhooks: ID_PREFIXES.webhook,
  deliveries: ID_PREFIXES.delivery, dead_letters: ID_PREFIXES.delivery, ports: ID_PREFIXES.port,
  queues: ID_PREFIXES.queue, workers: ID_PREFIXES.worker,
};

export function kindOfPrefix(prefix: string): IdKind | undefined {
  return KINDS.find((k) => k.prefix === prefix);
}

export function kindOfNoun(noun: string): IdKind | undefined {
  return KINDS.find((k) => k.noun === noun);
}

/** The kind an id claims by its prefix (`msg_...` is a message), if any. */
export function kindOfId(id: string): IdKind | undefined {
  const at = id.lastIndexOf('_');
  return at > 0 ? kindOfPrefix(id.slice(0, at)) : undefined;
}

/** The kind a path's collection holds: `/v1/webhooks/:id/deliveries` holds deliveries. */
export function kindOfCollection(path: string): IdKind | undefined {
  const last = path.split('/').filter((s) => s && !s.startsWith(':') && !s.startsWith('{')).at(-1);
  const prefix = last ? COLLECTIONS[last] : undefined;
  return prefix ? kindOfPrefix(prefix) : undefined;
}

/** Text a person typed as a phone number: digits with an optional +, spaces or punctuation. */
export function looksLikePhoneNumber(text: string): boolean {
  return /^\+?[0-9][0-9 ().-]{5,20}$/.test(text.trim());
}

/** The mode in which this account holds this id, or null. */
export async function modeOfId(db: Kysely<Tables>, kind: IdKind, accountId: string, id: string): Promise<Mode | null> {
  const row = await (db as Kysely<any>).selectFrom(kind.table).select('mode')
    .where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return (row?.mode as Mode | undefined) ?? null;
}

export function keyOf(mode: Mode): string {
  return mode === 'live' ? 'a live key (sb_live_...)' : 'a sandbox key (sb_test_...)';
}

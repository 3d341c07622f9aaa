// AI agents: create, read, update (including which numbers they answer), pause and delete.
// An agent's numbers live on the numbers themselves (numbers.agent_id), so assigning from
// either side (PATCH /v1/numbers/{id} or the agent's number_ids) is one fact, never two.
import { fetchPage } from '../../../platform/pagination.ts';
import type { Kysely } from 'kysely';
import type { Tables } from '../../../store/tables.ts';
import type { Mode, NumberRow } from '../../../store/platform-tables.ts';
import type { Platform } from '../../../platform/context.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { EventEmitter } from '../../../events/emit.ts';
import type { EventType } from '../../../events/catalogue.ts';
import { inTransaction, type Trx } from '../../../store/transaction.ts';
import { newId } from '../../../platform/ids.ts';
import { Problem, invalidField, notFound } from '../../../platform/problems.ts';
import { assertWebhookUrlAllowed } from '../../webhooks/url-policy.ts';
import { e164 } from '../../calls/service.ts';
import type { NumberService } from '../../numbers/service.ts';
import { validateBusinessHours, type AgentProfile, type BusinessHours } from '../engine/index.ts';
import type { AgentRow, AgentStatus } from '../tables.ts';
import { transition } from './states.ts';

export interface Agent {
  id: string;
  object: 'ai_agent';
  mode: Mode;
  status: AgentStatus;
  name: string;
  greeting: string;
  instructions: string;
  language: string;
  voice: string;
  transfer_number: string | null;
  business_hours: BusinessHours | null;
  after_hours_message: string | null;
  number_ids: string[];
  knowledge: { documents: number; chunks: number };
  webhook_url: string | null;
  metadata: Record<string, string>;
  created_at: string;
  updated_at: string;
}

export interface AgentInput {
  name?: string | undefined;
  status?: 'active' | 'paused' | undefined;
  greeting?: string | undefined;
  instructions?: string | undefined;
  language?: string | undefined;
  voice?: string | undefined;
  transfer_number?: string | null | undefined;
  business_hours?: BusinessHours | null | undefined;
  after_hours_message?: string | null | undefined;
  number_ids?: string[] | undefined;
  webhook_url?: string | null | undefined;
  metadata?: Record<string, string> | undefined;
}

export interface Owner {
  accountId: string;
  mode: Mode;
  clock: Clock;
}

export function defaultGreeting(name: string): string {
  return `Thanks for calling ${name}. How can I help you today?`;
}

/** What the engine needs to know about an agent. */
export function agentProfile(row: AgentRow): AgentProfile {
  return {
    name: row.name,
    greeting: row.greeting,
    instructions: row.instructions,
    language: row.language,
    transferNumber: row.transfer_number,
    businessHours: row.business_hours ? (JSON.parse(row.business_hours) as BusinessHours) : null,
    afterHoursMessage: row.after_hours_message,
  };
}

export class AgentService {
  constructor(
    private readonly platform: Platform,
    private readonly events: EventEmitter,
    private readonly numbers: NumberService,
    /** Whether this server's live calls can hear words (a speech-to-text endpoint); without, no live number gets an agent. */
    private readonly liveHearsSpeech: () => boolean = () => true,
  ) {}

  /**
   * An agent on a live number must hear its callers: refused (400 naming `field`) when this
   * server's live carrier has no speech-to-text endpoint. Sandbox numbers always can.
   */
  assertCanHear(mode: Mode, field: string): void {
    if (mode === 'live' && !this.liveHearsSpeech()) {
      throw invalidField(field, 'cannot be answered by an AI agent on this server: live calls need a speech-to-text endpoint (speech.stt in the carriers file) for the agent to hear the caller.', 'not_allowed');
    }
  }

  private get db() {
    return this.platform.database.db;
  }

  async create(owner: Owner, input: AgentInput & { name: string }): Promise<Agent> {
    const checked = await this.check(owner.mode, input);
    return inTransaction(this.db, async (trx) => {
      const now = owner.clock.now().toISOString();
      const row: AgentRow = {
        id: newId('agent'),
        account_id: owner.accountId,
        mode: owner.mode,
        status: 'active',
        name: input.name,
        greeting: input.greeting ?? defaultGreeting(input.name),
        instructions: input.instructions ?? '',
        language: input.language ?? 'en',
        voice: input.voice ?? 'default',
        transfer_number: checked.transferNumber ?? null,
        business_hours: input.business_hours ? JSON.stringify(input.business_hours) : null,
        after_hours_message: input.after_hours_message ?? null,
        webhook_url: input.webhook_url ?? null,
        metadata: JSON.stringify(input.metadata ?? {}),
        knowledge_version: 0,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      };
      await trx.insertInto('ai_agents').values(row).execute();
      if (input.number_ids) await this.assignNumbers(trx, row, input.number_ids, owner.clock);
      await this.emit(trx, row, 'ai.agent.created', owner.clock);
      return this.present(trx, row);
    });
  }

  /** A live (not deleted) agent of the account and mode, or 404. */
  async load(db: Kysely<Tables>, accountId: string, mode: Mode, id: string, opts: { lock?: boolean } = {}): Promise<AgentRow> {
    let q = db.selectFrom('ai_agents').selectAll().where('id', '=', id).where('account_id', '=', accountId).where('mode', '=', mode);
    if (opts.lock && this.platform.database.engine === 'postgres') q = q.forUpdate();
    const row = await q.executeTakeFirst();
    if (!row || row.status === 'deleted') throw notFound('AI agent', id);
    return row;
  }

  async get(accountId: string, mode: Mode, id: string): Promise<Agent> {
    return this.present(this.db, await this.load(this.db, accountId, mode, id));
  }

  async list(accountId: string, mode: Mode, q: { limit: number; startingAfter?: string | undefined; status?: 'active' | 'paused' | undefined }): Promise<{ rows: AgentRow[]; present: (row: AgentRow) => Agent }> {
    let query = this.db.selectFrom('ai_agents').selectAll().where('account_id', '=', accountId).where('mode', '=', mode);
    query = q.status ? query.where('status', '=', q.status) : query.where('status', '!=', 'deleted');
    const rows = await fetchPage(query, q);
    const related = await this.related(this.db, rows.map((r) => r.id));
    return { rows, present: (row) => presentAgent(row, related.get(row.id)!) };
  }

  async update(owner: Owner, id: string, input: AgentInput): Promise<Agent> {
    const checked = await this.check(owner.mode, input);
    return inTransaction(this.db, async (trx) => {
      let row = await this.load(trx, owner.accountId, owner.mode, id, { lock: true });
      const set: Partial<AgentRow> = {};
      if (input.name !== undefined) set.name = input.name;
      if (input.greeting !== undefined) set.greeting = input.greeting;
      if (input.instructions !== undefined) set.instructions = input.instructions;
      if (input.language !== undefined) set.language = input.language;
      if (input.voice !== undefined) set.voice = input.voice;
      if (input.transfer_number !== undefined) set.transfer_number = checked.transferNumber ?? null;
      if (input.business_hours !== undefined) set.business_hours = input.business_hours ? JSON.stringify(input.business_hours) : null;
      if (input.after_hours_message !== undefined) set.after_hours_message = input.after_hours_message;
      if (input.webhook_url !== undefined) set.webhook_url = input.webhook_url;
      if (input.metadata !== undefined) set.metadata = JSON.stringify(input.metadata);
      if (input.number_ids) await this.assignNumbers(trx, row, input.number_ids, owner.clock);
      if (input.status !== undefined && input.status !== row.status) {
        row = await transition(trx, this.transitionDeps(owner.clock), row, input.status, set);
      } else if (Object.keys(set).length > 0 || input.number_ids) {
        set.updated_at = owner.clock.now().toISOString();
        await trx.updateTable('ai_agents').set(set).where('id', '=', id).execute();
        row = { ...row, ...set };
        await this.emit(trx, row, 'ai.agent.updated', owner.clock);
      }
      return this.present(trx, row);
    });
  }

  /** DELETE: the agent stops answering, its numbers are unassigned and its knowledge removed; conversations stay. */
  async remove(owner: Owner, id: string): Promise<Agent> {
    return inTransaction(this.db, async (trx) => {
      const row = await this.load(trx, owner.accountId, owner.mode, id, { lock: true });
      for (const number of await this.numbersOf(trx, row.id)) await this.numbers.assignAgent(trx, number, null, owner.clock);
      await trx.deleteFrom('ai_knowledge_chunks').where('agent_id', '=', row.id).execute();
      await trx.deleteFrom('ai_knowledge_documents').where('agent_id', '=', row.id).execute();
      const deleted = await transition(trx, this.transitionDeps(owner.clock), row, 'deleted', { knowledge_version: row.knowledge_version + 1 });
      return presentAgent(deleted, { numberIds: [], documents: 0, chunks: 0 });
    });
  }

  /** The numbers module's check before PATCH /v1/numbers/{id} {agent_id}: same account and mode, not deleted. */
  async assertExists(accountId: string, mode: Mode, id: string): Promise<void> {
    const row = await this.db.selectFrom('ai_agents').select('status')
      .where('id', '=', id).where('account_id', '=', accountId).where('mode', '=', mode).executeTakeFirst();
    if (!row || row.status === 'deleted') throw new Problem('agent_not_found', `No AI agent "${id}" exists in ${mode} mode.`);
  }

  async present(db: Kysely<Tables>, row: AgentRow): Promise<Agent> {
    return presentAgent(row, (await this.related(db, [row.id])).get(row.id)!);
  }

  /** Emits an ai.agent.* event with the agent as GET shows it. */
  async emit(trx: Trx, row: AgentRow, type: EventType, clock: Clock): Promise<void> {
    await this.events.emit(trx, {
      accountId: row.account_id, mode: row.mode, type, resourceType: 'ai_agent', resourceId: row.id,
      object: row.status === 'deleted' ? presentAgent(row, { numberIds: [], documents: 0, chunks: 0 }) : await this.present(trx, row),
      webhookUrl: row.webhook_url, clock,
    });
  }

  private transitionDeps(clock: Clock) {
    return { clock, emit: (trx: Trx, row: AgentRow, type: EventType) => this.emit(trx, row, type, clock) };
  }

  /** Checks that need no transaction, before anything is written. */
  private async check(mode: Mode, input: AgentInput): Promise<{ transferNumber?: string | null }> {
    if (input.business_hours) {
      const problems = validateBusinessHours(input.business_hours);
      if (problems.length > 0) {
        throw new Problem('validation_failed', `business_hours: ${problems.join('; ')}.`, {
          errors: problems.map((message) => ({ field: 'business_hours', message, code: 'invalid_value' as const })),
        });
      }
    }
    if (input.webhook_url) await assertWebhookUrlAllowed(input.webhook_url, mode, this.platform.config, 'webhook_url');
    return { transferNumber: input.transfer_number ? e164('transfer_number', input.transfer_number) : input.transfer_number };
  }

  /** Makes `numberIds` exactly the agent's numbers: each must be an active voice number of the account. */
  private async assignNumbers(trx: Trx, agent: AgentRow, numberIds: string[], clock: Clock): Promise<void> {
    const wanted: NumberRow[] = [];
    for (const [i, id] of numberIds.entries()) {
      const number = await trx.selectFrom('numbers').selectAll()
        .where('id', '=', id).where('account_id', '=', agent.account_id).where('mode', '=', agent.mode).executeTakeFirst();
      if (!number || number.status === 'released') throw invalidField(`number_ids[${i}]`, `no number "${id}" exists in ${agent.mode} mode.`, 'not_found');
      if (!(JSON.parse(number.capabilities) as string[]).includes('voice')) {
        throw invalidField(`number_ids[${i}]`, `${number.phone_number} cannot take voice calls.`, 'not_allowed');
      }
      if (number.agent_id !== agent.id) this.assertCanHear(agent.mode, `number_ids[${i}]`);
      wanted.push(number);
    }
    const keep = new Set(numberIds);
    for (const current of await this.numbersOf(trx, agent.id)) {
      if (!keep.has(current.id)) await this.numbers.assignAgent(trx, current, null, clock);
    }
    for (const number of wanted) await this.numbers.assignAgent(trx, number, agent.id, clock);
  }

  private numbersOf(db: Kysely<Tables>, agentId: string): Promise<NumberRow[]> {
    return db.selectFrom('numbers').selectAll().where('agent_id', '=', agentId).where('status', '!=', 'released').orderBy('id').execute();
  }

  /** Number ids and knowledge counts of each agent, one query each for a whole page. */
  private async related(db: Kysely<Tables>, agentIds: string[]): Promise<Map<string, Related>> {
    const out = new Map<string, Related>(agentIds.map((id) => [id, { numberIds: [], documents: 0, chunks: 0 }]));
    if (agentIds.length === 0) return out;
    const numbers = await db.selectFrom('numbers').select(['id', 'agent_id']).where('agent_id', 'in', agentIds)
      .where('status', '!=', 'released').orderBy('id').execute();
    for (const n of numbers) out.get(n.agent_id!)?.numberIds.push(n.id);
    const docs = await db.selectFrom('ai_knowledge_documents')
      .select((eb) => ['agent_id', eb.fn.countAll().as('documents'), eb.fn.sum('chunk_count').as('chunks')])
      .where('agent_id', 'in', agentIds).groupBy('agent_id').execute();
    for (const d of docs) {
      const r = out.get(d.agent_id)!;
      r.documents = Number(d.documents);
      r.chunks = Number(d.chunks ?? 0);
    }
    return out;
  }
}

interface Related {
  numberIds: string[];
  documents: number;
  chunks: number;
}

export function presentAgent(row: AgentRow, related: Related): Agent {
  return {
    id: row.id,
    object: 'ai_agent',
    mode: row.mode,
    status: row.status,
    name: row.name,
    greeting: row.greeting,
    instructions: row.instructions,
    language: row.language,
    voice: row.voice,
    transfer_number: row.transfer_number,
    business_hours: row.business_hours ? JSON.parse(row.business_hours) : null,
    after_hours_message: row.after_hours_message,
    number_ids: related.numberIds,
    knowledge: { documents: related.documents, chunks: related.chunks },
    webhook_url: row.webhook_url,
    metadata: JSON.parse(row.metadata),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

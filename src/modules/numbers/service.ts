// Phone numbers: search the inventory, provision, update, release, and the state changes
// ports make (porting -> active fires `number.ported`). Every change commits with its event.
import { fetchPage } from '../../platform/pagination.ts';
import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../store/tables.ts';
import type { Mode, NumberRow } from '../../store/platform-tables.ts';
import type { Clock } from '../../platform/clock.ts';
import type { EventEmitter } from '../../events/emit.ts';
import type { EventType } from '../../events/catalogue.ts';
import { newId } from '../../platform/ids.ts';
import { Problem, notFound } from '../../platform/problems.ts';
import { inTransaction, type Trx } from '../../store/transaction.ts';
import { findInInventory, inventoryCapabilities, searchInventory, type InventoryFilter, type InventoryNumber } from './sandbox-inventory.ts';
import { NUMBER_MACHINE, STATE_EVENTS, type NumberStatus } from './states.ts';
import { lockUntilCommit } from '../../store/locks.ts';
import { assertWebhookUrlAllowed, type UrlPolicyConfig } from '../webhooks/url-policy.ts';
import { assertOneVoiceHandler, checkVoiceConfig, type InboundMedia } from './voice-config.ts';
import { prepareFor } from '../../store/prepared.ts';

// Every message and call looks its number up by phone number: compiled once.
/**
 * `'released'` is written into the SQL, not bound: the lookup goes through the partial index
 * numbers_phone_in_use (WHERE status <> 'released'), and SQLite matches a bound value against
 * that WHERE only by re-preparing the statement on every run (a run took four to five times
 * as long bound as literal; docs/benchmarks.md, "Live SMS in batches").
 */
const numberByPhone = prepareFor((db, accountId: string, mode: Mode, phoneNumber: string) => db.selectFrom('numbers').selectAll()
  .where('account_id', '=', accountId).where('mode', '=', mode).where('phone_number', '=', phoneNumber)
  .where('status', '!=', sql.lit('released')).orderBy('id', 'desc'), 3);
const activeLiveNumber = prepareFor((db, phoneNumber: string) => db.selectFrom('numbers').selectAll()
  .where('mode', '=', 'live').where('phone_number', '=', phoneNumber).where('status', '=', 'active'), 1);

export type Capability = 'voice' | 'sms' | 'mms' | 'whatsapp';

export interface NumberResource {
  id: string;
  object: 'number';
  phone_number: string;
  country: string;
  type: NumberRow['type'];
  capabilities: Capability[];
  status: NumberStatus;
  temporary: boolean;
  temporary_for: string | null;
  port_id: string | null;
  friendly_name: string | null;
  webhook_url: string | null;
  agent_id: string | null;
  voice_trunk: string | null;
  messaging_carrier: string | null;
  voice_url: string | null;
  voice_fallback_url: string | null;
  voice_flow: unknown[] | null;
  mode: Mode;
  created_at: string;
  updated_at: string;
  released_at: string | null;
}

export function presentNumber(row: NumberRow): NumberResource {
  return {
    id: row.id,
    object: 'number',
    phone_number: row.phone_number,
    country: row.country,
    type: row.type,
    capabilities: JSON.parse(row.capabilities),
    status: row.status,
    temporary: row.temporary === 1,
    temporary_for: row.temporary_for ?? null,
    port_id: row.port_id,
    friendly_name: row.friendly_name,
    webhook_url: row.webhook_url,
    agent_id: row.agent_id,
    voice_trunk: row.voice_trunk ?? null,
    messaging_carrier: row.messaging_carrier ?? null,
    voice_url: row.voice_url ?? null,
    voice_fallback_url: row.voice_fallback_url ?? null,
    voice_flow: row.voice_flow ? JSON.parse(row.voice_flow) as unknown[] : null,
    mode: row.mode,
    created_at: row.created_at,
    updated_at: row.updated_at,
    released_at: row.released_at,
  };
}

export interface AvailableNumber {
  object: 'available_number';
  phone_number: string;
  country: string;
  type: NumberRow['type'];
  area_code: string;
  capabilities: Capability[];
}

/**
 * Checks that an agent exists before a number is assigned to it. The AI module replaces
 * this when it registers; until then no agent exists, so any agent_id is refused.
 */
export type AgentCheck = (accountId: string, mode: Mode, agentId: string) => Promise<void>;

export interface NewNumber {
  phone_number: string;
  country: string;
  type: NumberRow['type'];
  capabilities: string[];
  status: 'active' | 'porting';
  temporary?: boolean;
  temporary_for?: string | null;
  port_id?: string | null;
  friendly_name?: string | null;
  webhook_url?: string | null;
  voice_trunk?: string | null;
  messaging_carrier?: string | null;
}

const SEARCH_BATCH = 200;

/** What the numbers service asks of the services built after it (late-bound: src/modules/wiring.ts). */
export interface NumberPeers {
  /** Whether an AI agent exists and can hear (the ai module). */
  agentCheck(): AgentCheck;
  /** The media of each mode's inbound calls (the calls module), so a stored voice_flow is checked against it. */
  inboundMedia(): InboundMedia;
}

/** The operator CLI has no agents and no media: an agent is never found, a voice_flow is checked without media. */
const NO_PEERS: NumberPeers = {
  agentCheck: () => async (_accountId, _mode, agentId) => {
    throw new Problem('agent_not_found', `No AI agent "${agentId}" exists in this mode.`);
  },
  inboundMedia: () => () => null,
};

export class NumberService {
  /** `config` (the webhook URL policy) is needed only to set voice URLs; the operator CLI does without, and without `peers`. */
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly events: EventEmitter,
    private readonly config?: UrlPolicyConfig,
    private readonly peers: NumberPeers = NO_PEERS,
  ) {}

  /** Numbers some account of `mode` holds (active or porting) among `phones`. */
  private async taken(db: Kysely<Tables>, mode: Mode, phones: string[]): Promise<Set<string>> {
    if (phones.length === 0) return new Set();
    const rows = await db.selectFrom('numbers').select('phone_number')
      .where('mode', '=', mode).where('status', '!=', 'released').where('phone_number', 'in', phones).execute();
    return new Set(rows.map((r) => r.phone_number));
  }

  /**
   * Sandbox: the simulator's deterministic inventory minus numbers held by any account.
   * Live: the numbers an operator imported into this account's inventory, minus those in use.
   */
  async searchAvailable(accountId: string, mode: Mode, filter: InventoryFilter, limit: number, db: Kysely<Tables> = this.db): Promise<AvailableNumber[]> {
    const found: AvailableNumber[] = [];
    if (mode === 'live') {
      let q = db.selectFrom('number_inventory').selectAll().where('account_id', '=', accountId).where('mode', '=', mode);
      if (filter.country) q = q.where('country', '=', filter.country.toUpperCase());
      if (filter.type) q = q.where('type', '=', filter.type);
      if (filter.areaCode) q = q.where('phone_number', 'like', `+1${filter.areaCode}%`);
      if (filter.contains) q = q.where('phone_number', 'like', `%${filter.contains}%`);
      const rows = await q.orderBy('phone_number').execute();
      const inUse = await this.taken(db, mode, rows.map((r) => r.phone_number));
      for (const row of rows) {
        if (inUse.has(row.phone_number)) continue;
        found.push({ object: 'available_number', phone_number: row.phone_number, country: row.country, type: row.type,
          area_code: areaCodeOf(row.phone_number), capabilities: JSON.parse(row.capabilities) });
        if (found.length === limit) break;
      }
      return found;
    }
    const candidates = searchInventory(filter);
    for (;;) {
      const batch: InventoryNumber[] = [];
      while (batch.length < SEARCH_BATCH) {
        const next = candidates.next();
        if (next.done) break;
        batch.push(next.value);
      }
      if (batch.length === 0) return found;
      const inUse = await this.taken(db, mode, batch.map((b) => b.phone_number));
      for (const entry of batch) {
        if (inUse.has(entry.phone_number)) continue;
        found.push({ object: 'available_number', phone_number: entry.phone_number, country: entry.country, type: entry.type,
          area_code: entry.area_code, capabilities: inventoryCapabilities(entry.type) as Capability[] });
        if (found.length === limit) return found;
      }
    }
  }

  /** Provisions one number from the inventory of the mode (POST /v1/numbers). */
  async provision(accountId: string, mode: Mode, clock: Clock, input: { phone_number: string; friendly_name?: string | undefined; webhook_url?: string | undefined }): Promise<NumberRow> {
    if (input.webhook_url !== undefined) await this.assertWebhookUrl(input.webhook_url, mode);
    return inTransaction(this.db, async (trx) => {
      await lockUntilCommit(trx, `numbers:${mode}`); // the "in use" check below and the insert, as one step
      let entry: { country: string; type: NumberRow['type']; capabilities: string[]; voice_trunk?: string | null; messaging_carrier?: string | null } | undefined;
      if (mode === 'sandbox') {
        const inventory = findInInventory(input.phone_number);
        if (inventory) entry = { ...inventory, capabilities: inventoryCapabilities(inventory.type) };
      } else {
        const imported = await trx.selectFrom('number_inventory').selectAll()
          .where('account_id', '=', accountId).where('mode', '=', mode).where('phone_number', '=', input.phone_number).executeTakeFirst();
        if (imported) {
          entry = {
            country: imported.country, type: imported.type, capabilities: JSON.parse(imported.capabilities),
            voice_trunk: imported.voice_trunk ?? null, messaging_carrier: imported.messaging_carrier ?? null,
          };
        }
      }
      if (!entry) {
        throw new Problem('number_not_available', mode === 'sandbox'
          ? `${input.phone_number} is not in the sandbox inventory; search GET /v1/numbers/available.`
          : `${input.phone_number} is not in this account's live inventory; an operator imports live numbers with \`switchboard numbers import\`.`);
      }
      if ((await this.taken(trx, mode, [input.phone_number])).size > 0) {
        throw new Problem('number_not_available', `${input.phone_number} is already in use.`);
      }
      return this.create(trx, accountId, mode, clock, {
        phone_number: input.phone_number, country: entry.country, type: entry.type, capabilities: entry.capabilities,
        status: 'active', friendly_name: input.friendly_name ?? null, webhook_url: input.webhook_url ?? null,
        voice_trunk: entry.voice_trunk ?? null, messaging_carrier: entry.messaging_carrier ?? null,
      });
    });
  }

  /**
   * Inserts a number and emits `number.provisioned` (active numbers) in `trx`. A number put
   * on a port order (`porting`) emits nothing of its own: the port's events describe it
   * until `number.ported`.
   */
  async create(trx: Trx, accountId: string, mode: Mode, clock: Clock, input: NewNumber): Promise<NumberRow> {
    const now = clock.now().toISOString();
    const row: NumberRow = {
      id: newId('number'),
      account_id: accountId,
      mode,
      phone_number: input.phone_number,
      country: input.country,
      type: input.type,
      capabilities: JSON.stringify(input.capabilities),
      status: input.status,
      temporary: input.temporary ? 1 : 0,
      temporary_for: input.temporary_for ?? null,
      friendly_name: input.friendly_name ?? null,
      webhook_url: input.webhook_url ?? null,
      agent_id: null,
      port_id: input.port_id ?? null,
      voice_trunk: input.voice_trunk ?? null,
      messaging_carrier: input.messaging_carrier ?? null,
      created_at: now,
      updated_at: now,
      released_at: null,
    };
    await trx.insertInto('numbers').values(row).execute();
    if (row.status === 'active') await this.emit(trx, row, 'number.provisioned', clock);
    return row;
  }

  async get(accountId: string, mode: Mode, id: string, db: Kysely<Tables> = this.db): Promise<NumberRow> {
    const row = await db.selectFrom('numbers').selectAll()
      .where('id', '=', id).where('account_id', '=', accountId).where('mode', '=', mode).executeTakeFirst();
    if (!row) throw notFound('number', id);
    return row;
  }

  /** The account's non-released number with this phone number, if any. */
  async findByPhone(accountId: string, mode: Mode, phoneNumber: string, db: Kysely<Tables> = this.db): Promise<NumberRow | undefined> {
    return (await numberByPhone(db, accountId, mode, phoneNumber))[0];
  }

  /** The active live number with this phone number, whichever account holds it (inbound from a live carrier). */
  async findActiveLive(phoneNumber: string, db: Kysely<Tables> = this.db): Promise<NumberRow | undefined> {
    return (await activeLiveNumber(db, phoneNumber))[0];
  }

  /** Released numbers are listed only when asked for with status=released. */
  async list(accountId: string, mode: Mode, q: { limit: number; startingAfter?: string | undefined; status?: NumberStatus | undefined; phoneNumber?: string | undefined; temporary?: boolean | undefined }): Promise<NumberRow[]> {
    let query = this.db.selectFrom('numbers').selectAll().where('account_id', '=', accountId).where('mode', '=', mode);
    query = q.status ? query.where('status', '=', q.status) : query.where('status', '!=', 'released');
    if (q.phoneNumber) query = query.where('phone_number', '=', q.phoneNumber);
    if (q.temporary !== undefined) query = query.where('temporary', '=', q.temporary ? 1 : 0);
    return fetchPage(query, q);
  }

  /** A number's webhook_url receives its messages' events: the webhook URL policy, checked before anything is written. */
  private async assertWebhookUrl(url: string, mode: Mode): Promise<void> {
    if (!this.config) throw new Error('webhook URLs need the webhook URL policy');
    await assertWebhookUrlAllowed(url, mode, this.config, 'webhook_url');
  }

  /** PATCH /v1/numbers/{id}; the carrier bindings only from the operator's CLI (`switchboard numbers bind`). */
  async update(accountId: string, mode: Mode, clock: Clock, id: string, patch: {
    friendly_name?: string | null | undefined; webhook_url?: string | null | undefined; agent_id?: string | null | undefined;
    voice_trunk?: string | null | undefined; messaging_carrier?: string | null | undefined;
    voice_url?: string | null | undefined; voice_fallback_url?: string | null | undefined; voice_flow?: unknown[] | null | undefined;
  }): Promise<NumberRow> {
    // A missing number is a 404 before anything about the body is judged (the URL checks
    // below may resolve names, so they run outside the transaction, which reads it again).
    await this.get(accountId, mode, id);
    if (patch.agent_id) await this.peers.agentCheck()(accountId, mode, patch.agent_id);
    if (typeof patch.webhook_url === 'string') await this.assertWebhookUrl(patch.webhook_url, mode);
    const voice = await checkVoiceConfig(patch, mode, this.config, this.peers.inboundMedia());
    return inTransaction(this.db, async (trx) => {
      const row = await this.get(accountId, mode, id, trx);
      if (row.status === 'released') throw new Problem('number_not_active', `Number ${id} was released and can no longer be changed.`);
      const set: Partial<NumberRow> = {};
      if (patch.friendly_name !== undefined) set.friendly_name = patch.friendly_name;
      if (patch.webhook_url !== undefined) set.webhook_url = patch.webhook_url;
      if (patch.agent_id !== undefined) set.agent_id = patch.agent_id;
      if (patch.voice_trunk !== undefined) set.voice_trunk = patch.voice_trunk;
      if (patch.messaging_carrier !== undefined) set.messaging_carrier = patch.messaging_carrier;
      Object.assign(set, voice);
      assertOneVoiceHandler({ ...row, ...set });
      if (Object.keys(set).length === 0) return row;
      set.updated_at = clock.now().toISOString();
      await trx.updateTable('numbers').set(set).where('id', '=', id).execute();
      const updated = { ...row, ...set };
      await this.emit(trx, updated, 'number.updated', clock);
      return updated;
    });
  }

  /**
   * Points a number at an AI agent (or at none) inside the caller's transaction, with its
   * number.updated event: how the AI module assigns numbers from the agent side.
   */
  async assignAgent(trx: Trx, row: NumberRow, agentId: string | null, clock: Clock): Promise<NumberRow> {
    if (row.agent_id === agentId) return row;
    const set = { agent_id: agentId, updated_at: clock.now().toISOString() };
    await trx.updateTable('numbers').set(set).where('id', '=', row.id).execute();
    const updated = { ...row, ...set };
    await this.emit(trx, updated, 'number.updated', clock);
    return updated;
  }

  /** DELETE /v1/numbers/{id}. Releasing a released number answers it unchanged, so retries are safe. */
  async release(accountId: string, mode: Mode, clock: Clock, id: string): Promise<NumberRow> {
    return inTransaction(this.db, async (trx) => {
      const row = await this.get(accountId, mode, id, trx);
      if (row.status === 'released') return row;
      if (row.status === 'porting') {
        throw new Problem('invalid_state_transition', `Number ${id} is still being ported on ${row.port_id}; cancel the port instead.`);
      }
      return this.transition(trx, row, 'released', clock);
    });
  }

  /**
   * The one way a number changes status: NUMBER_MACHINE checks the move, stamps it and
   * updates the row only if nobody moved it meanwhile; then the state's event is emitted (to
   * the number's webhook_url, or `webhookUrl` when a port order names its own).
   */
  async transition(trx: Trx, row: NumberRow, to: 'active' | 'released', clock: Clock, webhookUrl: string | null = row.webhook_url): Promise<NumberRow> {
    const moved = await NUMBER_MACHINE.move(trx, row, to, { now: clock.now().toISOString() });
    await this.emit(trx, moved, STATE_EVENTS[to], clock, webhookUrl);
    return moved;
  }

  private emit(trx: Trx, row: NumberRow, type: EventType, clock: Clock, webhookUrl: string | null = row.webhook_url) {
    return this.events.emit(trx, {
      accountId: row.account_id, mode: row.mode, type, resourceType: 'number', resourceId: row.id,
      object: presentNumber(row), webhookUrl, clock,
    });
  }

  /**
   * `switchboard numbers import`: a number the operator already owns on a trunk. Straight
   * into the account (active, number.provisioned), or with `inventory` into the account's
   * live inventory, where GET /v1/numbers/available finds it and POST /v1/numbers takes it.
   */
  async importNumber(clock: Clock, input: {
    accountId: string; mode: Mode; phoneNumber: string; capabilities: string[]; type: NumberRow['type']; country: string; inventory: boolean;
    voiceTrunk?: string | null; messagingCarrier?: string | null;
  }): Promise<{ number?: NumberRow; inventory?: string }> {
    return inTransaction(this.db, async (trx) => {
      await lockUntilCommit(trx, `numbers:${input.mode}`);
      const existing = await trx.selectFrom('number_inventory').select(['id', 'account_id'])
        .where('mode', '=', input.mode).where('phone_number', '=', input.phoneNumber).executeTakeFirst();
      if (existing && existing.account_id !== input.accountId) {
        throw new Problem('number_not_available', `${input.phoneNumber} is already imported for account ${existing.account_id}.`);
      }
      if (!existing) {
        await trx.insertInto('number_inventory').values({
          id: newId('number'), account_id: input.accountId, mode: input.mode, phone_number: input.phoneNumber,
          country: input.country, type: input.type, capabilities: JSON.stringify(input.capabilities), created_at: clock.now().toISOString(),
          voice_trunk: input.voiceTrunk ?? null, messaging_carrier: input.messagingCarrier ?? null,
        }).execute();
      } else {
        await trx.updateTable('number_inventory').set({ voice_trunk: input.voiceTrunk ?? null, messaging_carrier: input.messagingCarrier ?? null })
          .where('id', '=', existing.id).execute();
      }
      if (input.inventory) return { inventory: input.phoneNumber };
      if ((await this.taken(trx, input.mode, [input.phoneNumber])).size > 0) {
        throw new Problem('number_not_available', `${input.phoneNumber} is already in use in ${input.mode} mode.`);
      }
      return {
        number: await this.create(trx, input.accountId, input.mode, clock, {
          phone_number: input.phoneNumber, country: input.country, type: input.type, capabilities: input.capabilities, status: 'active',
          voice_trunk: input.voiceTrunk ?? null, messaging_carrier: input.messagingCarrier ?? null,
        }),
      };
    });
  }
}

function areaCodeOf(phoneNumber: string): string {
  return phoneNumber.startsWith('+1') ? phoneNumber.slice(2, 5) : '';
}

// Workers as a resource: create, list, read, change and delete them, and issue their
// softphones' SIP credentials. Status moves go through states.ts (and emit their event).
import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../store/tables.ts';
import type { Mode } from '../../store/platform-tables.ts';
import type { Platform } from '../../platform/context.ts';
import type { Clock } from '../../platform/clock.ts';
import type { EventEmitter } from '../../events/emit.ts';
import { newId } from '../../platform/ids.ts';
import { fetchPage } from '../../platform/pagination.ts';
import { Problem, notFound } from '../../platform/problems.ts';
import { isUniqueViolation } from '../../platform/errors.ts';
import { inTransaction, type Trx } from '../../store/transaction.ts';
import { liveRegistrations, presentWorker, presentWorkerFrom, type PresentedWorker } from './presenter.ts';
import { WORKER_LIMITS } from './schema.ts';
import { SOFTPHONE_REALM, digestHa1, newSipPassword } from './sip-credentials.ts';
import { transition } from './states.ts';
import { forgetRegistrations } from './softphone-registry.ts';
import { recordHistory } from './status-history.ts';
import { assertReachAllowed } from './reach-policy.ts';
import { routeSoon } from '../queues/routing.ts';
import type { WorkerReach, WorkerRow, WorkerStatus } from './tables.ts';

export interface WorkerInput {
  name?: string | undefined;
  skills?: string[] | undefined;
  reach?: WorkerReach | undefined;
  status?: 'available' | 'offline' | undefined;
  ring_timeout_seconds?: number | undefined;
  wrap_up_seconds?: number | undefined;
}

export interface WorkerListFilter {
  limit: number;
  startingAfter?: string | undefined;
  status?: WorkerStatus | undefined;
  skill?: string | undefined;
}

export class WorkerService {
  private readonly db: Kysely<Tables>;

  constructor(private readonly platform: Platform, private readonly events: EventEmitter) {
    this.db = platform.database.db;
  }

  async create(accountId: string, mode: Mode, clock: Clock, input: WorkerInput) {
    await assertReachAllowed(input.reach, mode, this.platform.config);
    const now = clock.now().toISOString();
    const status = input.status ?? 'offline';
    const row: WorkerRow = {
      id: newId('worker'), account_id: accountId, mode, name: input.name!, skills: skillsJson(input.skills ?? []), status,
      reach: JSON.stringify(input.reach), sip_user: sipUserOf(input.reach!), sip_ha1: null, sip_credentials_at: null,
      ring_timeout_seconds: input.ring_timeout_seconds ?? WORKER_LIMITS.ringTimeoutSeconds.default,
      wrap_up_seconds: input.wrap_up_seconds ?? WORKER_LIMITS.wrapUpSeconds.default,
      last_idle_at: status === 'available' ? now : null, current_call_id: null, offer_call_id: null, offer_queue_id: null, offer_caller_call_id: null, last_offer_at: null, status_changed_at: now, created_at: now, updated_at: now,
    };
    return inTransaction(this.db, async (trx) => {
      await this.sipUserFree(row.sip_user, () => trx.insertInto('workers').values(row).execute());
      await recordHistory(trx, row, 'status', now);
      if (status === 'available') await routeSoon(this.platform, trx, accountId, mode);
      return presentWorkerFrom(trx, row);
    });
  }

  async list(accountId: string, mode: Mode, filter: WorkerListFilter) {
    let q = this.db.selectFrom('workers').selectAll().where('account_id', '=', accountId).where('mode', '=', mode);
    if (filter.status !== undefined) q = q.where('status', '=', filter.status);
    // Skills are a sorted JSON array of strings; the quoted name matches one whole element.
    if (filter.skill !== undefined) q = q.where(sql<boolean>`skills like ${`%${JSON.stringify(filter.skill).replace(/[%_\\]/g, '\\$&')}%`} escape '\\'`);
    return fetchPage(q, filter);
  }

  /** How a page of `rows` is shown: their softphones' registrations read in one query. */
  async presenter(rows: readonly WorkerRow[]): Promise<(row: WorkerRow) => PresentedWorker> {
    const registrations = await liveRegistrations(this.db, rows.map((r) => r.sip_user));
    return (row) => presentWorker(row, registrations.get(row.sip_user ?? '') ?? []);
  }

  async get(accountId: string, mode: Mode, id: string) {
    return presentWorkerFrom(this.db, await this.owned(this.db, accountId, mode, id));
  }

  async update(accountId: string, mode: Mode, clock: Clock, id: string, input: WorkerInput) {
    // Before the transaction: resolving the URI's host must not hold the worker's row.
    await assertReachAllowed(input.reach, mode, this.platform.config);
    return inTransaction(this.db, async (trx) => {
      let row = await this.owned(trx, accountId, mode, id);
      const now = clock.now().toISOString();
      const sipUser = input.reach !== undefined ? sipUserOf(input.reach) : row.sip_user;
      const changes: Partial<WorkerRow> = {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.skills !== undefined ? { skills: skillsJson(input.skills) } : {}),
        ...(input.reach !== undefined ? { reach: JSON.stringify(input.reach), sip_user: sipUser } : {}),
        // The HA1 is bound to the user name: another name needs new credentials.
        ...(sipUser !== row.sip_user ? { sip_ha1: null, sip_credentials_at: null } : {}),
        ...(input.ring_timeout_seconds !== undefined ? { ring_timeout_seconds: input.ring_timeout_seconds } : {}),
        ...(input.wrap_up_seconds !== undefined ? { wrap_up_seconds: input.wrap_up_seconds } : {}),
        updated_at: now,
      };
      await this.sipUserFree(sipUser, () => trx.updateTable('workers').set(changes).where('id', '=', id).execute());
      // The old name's softphone registered with credentials that are gone: it is no longer this worker's.
      if (sipUser !== row.sip_user) await forgetRegistrations(trx, row.sip_user);
      row = { ...row, ...changes };
      if (input.status !== undefined && input.status !== row.status) {
        if (row.status === 'busy') throw busy(row);
        row = await transition(trx, { events: this.events, clock }, row, input.status);
        if (row.status === 'available') await routeSoon(this.platform, trx, accountId, mode);
      }
      return presentWorkerFrom(trx, row);
    });
  }

  /** Refused while the worker is on a call. */
  async delete(accountId: string, mode: Mode, id: string) {
    return inTransaction(this.db, async (trx) => {
      const row = await this.owned(trx, accountId, mode, id);
      if (row.status === 'busy') throw busy(row);
      const deleted = await trx.deleteFrom('workers').where('id', '=', id).where('status', '=', row.status).executeTakeFirst();
      if (Number(deleted.numDeletedRows) !== 1) throw new Problem('conflict', `Worker ${id} changed while this request ran; retry.`);
      await forgetRegistrations(trx, row.sip_user);
      await trx.deleteFrom('worker_status_history').where('worker_id', '=', id).execute();
      return { id, object: 'worker' as const, deleted: true as const };
    });
  }

  /** A new password for the worker's softphone, shown once; the previous one stops working. */
  async issueSipCredentials(accountId: string, mode: Mode, clock: Clock, id: string) {
    return inTransaction(this.db, async (trx) => {
      const row = await this.owned(trx, accountId, mode, id);
      if (!row.sip_user) {
        throw new Problem('worker_not_softphone', `Worker ${id} is reached at ${JSON.parse(row.reach) as string}, not a softphone; set its reach to {"sip_user": "..."} first.`);
      }
      const password = newSipPassword();
      const now = clock.now().toISOString();
      await trx.updateTable('workers').set({ sip_ha1: digestHa1(row.sip_user, password), sip_credentials_at: now, updated_at: now }).where('id', '=', id).execute();
      // A softphone registered with the old password must register again with the new one.
      await forgetRegistrations(trx, row.sip_user);
      return { object: 'sip_credentials' as const, worker_id: id, username: row.sip_user, password, realm: SOFTPHONE_REALM, created_at: now };
    });
  }

  private async owned(db: Kysely<Tables> | Trx, accountId: string, mode: Mode, id: string): Promise<WorkerRow> {
    const row = await db.selectFrom('workers').selectAll().where('id', '=', id).where('account_id', '=', accountId).where('mode', '=', mode).executeTakeFirst();
    if (!row) throw notFound('worker', id);
    return row;
  }

  /** Runs a write that may break the unique sip_user: the loser of a race gets the same 409 as a plain duplicate. */
  private async sipUserFree<T>(sipUser: string | null, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (sipUser && isUniqueViolation(err as { code?: unknown })) {
        throw new Problem('sip_user_taken', `The SIP user name ${sipUser} is already taken on this Switchboard; user names are unique across accounts, so prefix yours (e.g. acme.${sipUser}).`);
      }
      throw err;
    }
  }
}

function busy(row: WorkerRow): Problem {
  return new Problem('worker_busy', `Worker ${row.id} is on call ${row.current_call_id ?? '(unknown)'}; change its status once the call ends.`);
}

function skillsJson(skills: string[]): string {
  return JSON.stringify([...new Set(skills)].sort());
}

function sipUserOf(reach: WorkerReach): string | null {
  return typeof reach === 'object' ? reach.sip_user : null;
}

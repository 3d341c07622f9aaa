// Reading the event log: every event emitted in the caller's account and mode, newest first.
import { fetchPage, type PageInput } from '../../platform/pagination.ts';
import type { Kysely } from 'kysely';
import type { Tables } from '../../store/tables.ts';
import type { EventRow, Mode } from '../../store/platform-tables.ts';
import { notFound } from '../../platform/problems.ts';

export interface EventFilters {
  type?: string | undefined;
  resourceId?: string | undefined;
  createdGte?: string | undefined;
  createdLte?: string | undefined;
}

export class EventService {
  constructor(private readonly db: Kysely<Tables>) {}

  async list(accountId: string, mode: Mode, filters: EventFilters, page: PageInput): Promise<EventRow[]> {
    let q = this.db.selectFrom('events').selectAll().where('account_id', '=', accountId).where('mode', '=', mode);
    if (filters.type) q = q.where('type', '=', filters.type);
    if (filters.resourceId) q = q.where('resource_id', '=', filters.resourceId);
    if (filters.createdGte) q = q.where('created_at', '>=', filters.createdGte);
    if (filters.createdLte) q = q.where('created_at', '<=', filters.createdLte);
    return fetchPage(q, page);
  }

  async get(accountId: string, mode: Mode, id: string): Promise<EventRow> {
    const row = await this.db.selectFrom('events').selectAll()
      .where('id', '=', id).where('account_id', '=', accountId).where('mode', '=', mode).executeTakeFirst();
    if (!row) throw notFound('event', id);
    return row;
  }
}

/** Query timestamps compare as text with stored ones: normalise to the stored form. */
export function isoOrUndefined(value: string | undefined): string | undefined {
  return value === undefined ? undefined : new Date(value).toISOString();
}

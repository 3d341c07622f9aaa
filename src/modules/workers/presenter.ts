// What the API and the events show of a worker: never its SIP digest, only whether it has one,
// and its softphone's live registrations (the registrar's bindings that have not lapsed).
import type { Kysely } from 'kysely';
import type { Tables } from '../../store/tables.ts';
import type { Trx } from '../../store/transaction.ts';
import type { SipRegistrationRow, WorkerReach, WorkerRow } from './tables.ts';

export function presentWorker(row: WorkerRow, registrations: readonly SipRegistrationRow[]) {
  return {
    id: row.id,
    object: 'worker' as const,
    mode: row.mode,
    name: row.name,
    skills: JSON.parse(row.skills) as string[],
    status: row.status,
    reach: JSON.parse(row.reach) as WorkerReach,
    ring_timeout_seconds: row.ring_timeout_seconds,
    wrap_up_seconds: row.wrap_up_seconds,
    last_idle_at: row.last_idle_at,
    current_call_id: row.current_call_id,
    offer: row.offer_call_id ? { call_id: row.offer_call_id, caller_call_id: row.offer_caller_call_id, queue_id: row.offer_queue_id } : null,
    status_changed_at: row.status_changed_at,
    sip_credentials_created_at: row.sip_credentials_at,
    registered: registrations.length > 0,
    registrations: registrations.map((r) => ({
      contact: r.contact,
      source: `${r.transport.toLowerCase()}:${r.received_address}:${r.received_port}`,
      expires_at: r.expires_at,
      user_agent: r.user_agent,
    })),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export type PresentedWorker = ReturnType<typeof presentWorker>;

/**
 * The live registrations of these workers' softphones, by SIP user, newest first. Registrations
 * lapse in wall-clock time (softphones refresh on their own clocks), never on a sandbox test clock.
 */
export async function liveRegistrations(db: Kysely<Tables> | Trx, users: readonly (string | null)[]): Promise<Map<string, SipRegistrationRow[]>> {
  const named = [...new Set(users.filter((u): u is string => u !== null))];
  const byUser = new Map<string, SipRegistrationRow[]>();
  if (named.length === 0) return byUser;
  const rows = await db.selectFrom('sip_registrations').selectAll().where('sip_user', 'in', named).where('expires_at', '>', new Date().toISOString())
    .orderBy('updated_at', 'desc').orderBy('contact').execute();
  for (const row of rows) byUser.set(row.sip_user, [...(byUser.get(row.sip_user) ?? []), row]);
  return byUser;
}

/** A worker as the API shows it, with its registrations read in `db` (a transaction's view, when in one). */
export async function presentWorkerFrom(db: Kysely<Tables> | Trx, row: WorkerRow): Promise<PresentedWorker> {
  return presentWorker(row, (await liveRegistrations(db, [row.sip_user])).get(row.sip_user ?? '') ?? []);
}

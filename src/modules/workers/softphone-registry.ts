// The live SIP registrar's store (the SoftphoneRegistry port of src/carriers/softphones.ts):
// a softphone's digest secret is its worker's HA1, found by the SIP user name (unique across
// Switchboard), and its bindings are sip_registrations rows. Each REGISTER is one transaction
// that first drops the user's lapsed bindings; a worker whose softphone becomes reachable
// asks for a routing run, so a caller already waiting is offered to it at once.
import type { Kysely } from 'kysely';
import type { Tables } from '../../store/tables.ts';
import type { Platform } from '../../platform/context.ts';
import { inTransaction, type Trx } from '../../store/transaction.ts';
import type { RegistrationChange, SoftphoneBinding, SoftphoneCredentials, SoftphoneRegistry } from '../../carriers/index.ts';
import { routeSoon } from '../queues/routing.ts';
import { SOFTPHONE_REALM } from './sip-credentials.ts';
import type { SipRegistrationRow } from './tables.ts';

export class SoftphoneBindings implements SoftphoneRegistry {
  readonly realm = SOFTPHONE_REALM;
  private readonly db: Kysely<Tables>;

  constructor(private readonly platform: Platform) {
    this.db = platform.database.db;
  }

  async credentials(user: string): Promise<SoftphoneCredentials | undefined> {
    const worker = await this.db.selectFrom('workers').select('sip_ha1').where('sip_user', '=', user).executeTakeFirst();
    return worker?.sip_ha1 ? { ha1: worker.sip_ha1, realm: SOFTPHONE_REALM } : undefined;
  }

  async bindings(user: string, now: Date): Promise<SoftphoneBinding[]> {
    return (await liveRows(this.db, user, now.toISOString())).map(bindingOf);
  }

  register(user: string, change: RegistrationChange, now: Date): Promise<SoftphoneBinding[]> {
    const at = now.toISOString();
    return inTransaction(this.db, async (trx) => {
      const before = await liveRows(trx, user, at);
      await trx.deleteFrom('sip_registrations').where('sip_user', '=', user).where('expires_at', '<=', at).execute();
      if (change.kind === 'remove_all') await trx.deleteFrom('sip_registrations').where('sip_user', '=', user).execute();
      if (change.kind === 'update') {
        for (const contact of change.removals) await trx.deleteFrom('sip_registrations').where('sip_user', '=', user).where('contact', '=', contact).execute();
        for (const binding of change.bindings) await this.upsert(trx, user, binding, before);
      }
      const after = await liveRows(trx, user, at);
      if (before.length === 0 && after.length > 0) await this.reachable(trx, user);
      return after.map(bindingOf);
    });
  }

  /** Adds or refreshes a binding, unless the same registration already sent a later REGISTER (RFC 3261 10.3 step 7). */
  private async upsert(trx: Trx, user: string, b: SoftphoneBinding, existing: SipRegistrationRow[]): Promise<void> {
    const current = existing.find((row) => row.contact === b.contact);
    if (current && current.call_id === b.callId && Number(current.cseq) > b.cseq) return;
    const values = {
      received_address: b.receivedAddress, received_port: b.receivedPort, transport: b.transport, call_id: b.callId, cseq: b.cseq,
      user_agent: b.userAgent, expires_at: b.expiresAt, updated_at: b.updatedAt,
    };
    await trx.insertInto('sip_registrations').values({ sip_user: user, contact: b.contact, created_at: b.updatedAt, ...values })
      .onConflict((oc) => oc.columns(['sip_user', 'contact']).doUpdateSet(values)).execute();
  }

  /** The user's worker can take calls now: a routing run offers it a waiting caller, if it is available. */
  private async reachable(trx: Trx, user: string): Promise<void> {
    const worker = await trx.selectFrom('workers').select(['account_id', 'mode', 'status']).where('sip_user', '=', user).executeTakeFirst();
    if (worker?.mode === 'live' && worker.status === 'available') await routeSoon(this.platform, trx, worker.account_id, worker.mode);
  }
}

/** A user's bindings that have not lapsed at `now`, the most recently refreshed first. */
function liveRows(db: Kysely<Tables> | Trx, user: string, now: string): Promise<SipRegistrationRow[]> {
  return db.selectFrom('sip_registrations').selectAll().where('sip_user', '=', user).where('expires_at', '>', now)
    .orderBy('updated_at', 'desc').orderBy('contact').execute();
}

/** Forgets every binding of `user` (its password was replaced, its name changed or its worker deleted). */
export async function forgetRegistrations(trx: Trx, user: string | null): Promise<void> {
  if (user) await trx.deleteFrom('sip_registrations').where('sip_user', '=', user).execute();
}

function bindingOf(row: SipRegistrationRow): SoftphoneBinding {
  return {
    contact: row.contact, receivedAddress: row.received_address, receivedPort: row.received_port, transport: row.transport,
    callId: row.call_id, cseq: Number(row.cseq), expiresAt: row.expires_at, userAgent: row.user_agent, updatedAt: row.updated_at,
  };
}

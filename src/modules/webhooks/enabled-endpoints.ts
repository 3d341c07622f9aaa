// The account's enabled webhook endpoints in one mode, as a transaction sees them: read once
// per transaction, however many times it asks. A new call asks twice (the subscription URL it
// shows, then call.queued's fan-out), and each ask was a statement of POST /v1/calls (issue 29).
// Within one transaction nothing else can change the rows between the two asks (SQLite has
// one writer; on PostgreSQL the first read is what this transaction already acted on), and
// no transaction changes an endpoint's url, events or enabled and then emits an event: the
// ones that write webhook_endpoints in a transaction (a secret's rotation, a delivery
// disabling a gone endpoint) emit nothing after the write.
import type { Trx } from '../../store/transaction.ts';
import type { Mode } from '../../store/platform-tables.ts';
import { prepareFor } from '../../store/prepared.ts';

export interface EnabledEndpoint { id: string; url: string; events: string }

/** Oldest first (by id): a call's subscription URL is the oldest matching one. Compiled once. */
const enabledEndpoints = prepareFor((db, accountId: string, mode: Mode) => db.selectFrom('webhook_endpoints').select(['id', 'url', 'events'])
  .where('account_id', '=', accountId).where('mode', '=', mode).where('enabled', '=', 1).orderBy('id'), 2);

/** Per transaction object: gone with the transaction (a savepoint is its own object, and reads its own). */
const seen = new WeakMap<object, Map<string, Promise<EnabledEndpoint[]>>>();

/** The rows are shared between the asks of a transaction: read them, never change them. */
export function enabledEndpointsIn(trx: Trx, accountId: string, mode: Mode): Promise<EnabledEndpoint[]> {
  // Only a real transaction ends: the database itself passed here would remember forever.
  if (!trx.isTransaction) return enabledEndpoints(trx, accountId, mode);
  let byAccount = seen.get(trx);
  if (!byAccount) seen.set(trx, (byAccount = new Map()));
  const key = `${mode}:${accountId}`;
  let rows = byAccount.get(key);
  if (!rows) {
    rows = enabledEndpoints(trx, accountId, mode);
    byAccount.set(key, rows);
    // A failed read is not remembered: the next ask reads again (or fails the same way).
    rows.catch(() => byAccount.delete(key));
  }
  return rows;
}

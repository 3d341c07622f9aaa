// Test-only fault injection through the `X-Switchboard-Failpoint` header, honoured only with
// SWITCHBOARD_TEST_FAILPOINTS (never in production). `crash-before-response` lives in
// idempotency.ts, where the moment it names is.
import type { preHandlerHookHandler } from 'fastify';
import type { Kysely } from 'kysely';
import type { Tables } from '../store/tables.ts';
import { inTransaction } from '../store/transaction.ts';

const HOLD = /^hold-transaction:(\d{1,6})$/;

/**
 * `hold-transaction:<ms>`: before the handler, open a transaction, make one statement in it
 * and hold it open for `ms` ms, as a handler stuck on a promise would. Inside an idempotent
 * write it is a savepoint of the request's transaction. What the transaction deadline does
 * about it is what the tests watch.
 */
export function holdTransactionFailpoint(db: Kysely<Tables>): preHandlerHookHandler {
  return (request, _reply, done) => {
    const header = request.headers['x-switchboard-failpoint'];
    const match = typeof header === 'string' ? HOLD.exec(header) : null;
    if (!match) return done();
    const ms = Number(match[1]);
    inTransaction(db, async (trx) => {
      await trx.selectFrom('accounts').select('id').limit(1).execute();
      await new Promise((resolve) => setTimeout(resolve, ms));
    }).then(() => done(), (err: Error) => done(err));
  };
}

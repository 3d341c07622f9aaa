// Idempotency-Key on every POST, PATCH and DELETE (ARCHITECTURE rule 5), as Stripe does it:
// the first request claims the key with a unique insert; a replay returns the stored status
// and body; another body under the same key is 422; a duplicate that ran meanwhile is 409.
// The unique constraint makes this hold across processes and nodes.
//
// The claim, the handler's changes and the stored response are one database transaction
// (src/store/request-transaction.ts): a crash before it commits leaves nothing, not even the
// claim, and after it the answer is there to replay. The claim is made at the request's
// first query, not on arrival, so the transaction is not held while the handler waits on
// anything before it (SQLite's one connection would stall every other request meanwhile).
// A duplicate that arrives meanwhile finds the claim when it makes its own (PostgreSQL holds
// its insert on the unique index until the first commits; SQLite's one connection queues
// it) and answers 409; its retry replays the first one's answer.
//
// On SQLite the claim and the answer are one INSERT, at the end: the request's transaction
// holds the one writer from its first statement to its end, so no other request can write
// the key in between, and an in-progress row would never be seen by anyone (it commits with
// its answer or not at all). A duplicate that committed between our check and our first
// statement makes that INSERT do nothing: the request rolls back and answers 409, as a
// failed claim did. One statement fewer per idempotent request (issue 29).
//
// The hot writes (POST /v1/calls, POST /v1/messages, POST /v1/numbers/{id}/sms) keep their
// key in their service's own transaction instead (config.idempotency 'service-transaction',
// answer-once.ts): the same all-or-nothing, without a transaction held across the request's
// turns.
//
// A stored response can hold a secret shown once (a new API key, a signing secret), so every
// stored body is sealed with the server's secret key (see secret-box.ts): a database dump
// alone never reveals one, and a replay still answers the same bytes.
import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler, onSendAsyncHookHandler, preHandlerHookHandler } from 'fastify';
import { runInScope, type RequestScope } from '../store/request-transaction.ts';
import type { Platform } from './context.ts';
import { Problem } from './problems.ts';
import { sendProblem, transactionTimeoutProblem } from './errors.ts';
import { hashRequest } from './stable-json.ts';
import { newId } from './ids.ts';
import { SecretBox } from './secret-box.ts';
import { IDEMPOTENCY_KEY_RETENTION_MS } from './idempotency-retention.ts';
import { prepareFor, prepareStatement } from '../store/prepared.ts';
import type { Mode } from '../store/platform-tables.ts';
import type { Trx } from '../store/transaction.ts';

// Every idempotent write runs these three: compiled once, not per request (issue 29).
const findKey = prepareFor((db, accountId: string, mode: Mode, method: string, path: string, key: string) => db.selectFrom('idempotency_keys').selectAll()
  .where('account_id', '=', accountId).where('mode', '=', mode)
  .where('method', '=', method).where('path', '=', path).where('key', '=', key), 5);
/** id, account_id, mode, method, path, key, request_hash, locked_until, created_at, expires_at. */
type ClaimArgs = [string, string, Mode, string, string, string, string, string, string, string];
const claimKey = prepareFor((db, ...k: ClaimArgs) => db.insertInto('idempotency_keys')
  .values({
    id: k[0], account_id: k[1], mode: k[2], method: k[3], path: k[4], key: k[5], request_hash: k[6], state: 'in_progress',
    response_status: null, response_body: null, response_content_type: null, locked_until: k[7], created_at: k[8], expires_at: k[9],
  })
  .onConflict((oc) => oc.columns(['account_id', 'mode', 'method', 'path', 'key']).doNothing())
  .returning('id'), 10);
/** SQLite: the claim and its answer in one row, at the end (see the top of this file). */
const insertAnswered = prepareFor((db, ...k: [...ClaimArgs, number, string, string]) => db.insertInto('idempotency_keys')
  .values({
    id: k[0], account_id: k[1], mode: k[2], method: k[3], path: k[4], key: k[5], request_hash: k[6], state: 'completed',
    response_status: k[10], response_body: k[11], response_content_type: k[12], locked_until: k[7], created_at: k[8], expires_at: k[9],
  })
  .onConflict((oc) => oc.columns(['account_id', 'mode', 'method', 'path', 'key']).doNothing())
  .returning('id'), 13);
const storeAnswer = prepareStatement((db, status: number, body: string, contentType: string, id: string) => db.updateTable('idempotency_keys')
  .set({ state: 'completed', response_status: status, response_body: body, response_content_type: contentType })
  .where('id', '=', id), 4);

const KEY_PATTERN = /^[A-Za-z0-9_:-]{1,255}$/;
/** A claim older than this is taken to belong to a crashed request and may be taken over. */
const LOCK_MS = 60_000;
export const WRITE_METHODS = new Set(['POST', 'PATCH', 'DELETE']);

declare module 'fastify' {
  interface FastifyRequest {
    /** The key row this request's answer is stored in (its claim's columns). */
    idempotencyRow: ClaimArgs | null;
    idempotencyScope: RequestScope | null;
    /** Set once onSend began storing the answer: the deadline then fails it there. */
    idempotencyAnswering: boolean;
    /** The Idempotency-Key, for a route that keeps it itself (config.idempotency 'handler'). */
    idempotencyKey: string | null;
    /** Such a route's claim, stored with its answer in onSend. */
    idempotencyClaim: IdempotencyClaim | null;
    /**
     * A 'service-transaction' route's key: stores the rendered answer in the service's
     * transaction (answer-once.ts), which then commits the claim, the change and the answer.
     */
    keepAnswer: KeepAnswer | null;
    /** Set once that transaction committed: onSend has nothing left to store. */
    answerKept: boolean;
  }
}

/** The key row a 'handler' route's answer is stored under. */
interface IdempotencyClaim {
  account_id: string;
  mode: 'sandbox' | 'live';
  method: string;
  path: string;
  key: string;
  request_hash: string;
}

/** Stores an answer under the request's key, as the last statement of `trx`; a duplicate that committed first makes it throw 409. */
export type KeepAnswer = (trx: Trx, status: number, body: string, contentType: string) => Promise<void>;

export interface IdempotencyHooks {
  preHandler: preHandlerHookHandler;
  onSend: onSendAsyncHookHandler;
  onResponse: onResponseHookHandler;
}

/**
 * The path a key is scoped to: the matched route with its decoded parameters, so every
 * spelling of one endpoint ("/v1/calls", "/v1/calls/", "/%761/calls", absolute form) shares
 * one key space while different resources ("/v1/calls/A/hangup", ".../B/hangup") do not.
 */
export function routePath(request: FastifyRequest): string {
  const params = (request.params ?? {}) as Record<string, unknown>;
  return request.routeOptions.url!.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(String(params[name] ?? '')));
}

/** The hooks to attach to every write route (see app.ts): reads never pay for them. */
export function idempotencyHooks(app: FastifyInstance, platform: Platform): IdempotencyHooks {
  const { db } = platform.database;
  const scoping = platform.database.scoping;
  const failpoints = platform.config.testFailpoints;
  const box = SecretBox.fromConfig(platform.config);
  /** SQLite writes the claim with the answer, at the end (see the top of this file). */
  const claimWithAnswer = platform.database.engine === 'sqlite';
  app.decorateRequest('idempotencyRow', null);
  app.decorateRequest('idempotencyScope', null);
  app.decorateRequest('idempotencyAnswering', false);
  app.decorateRequest('idempotencyKey', null);
  app.decorateRequest('idempotencyClaim', null);
  app.decorateRequest('keepAnswer', null);
  app.decorateRequest('answerKept', false);

  /**
   * Before the handler runs: a key already used answers at once (a replay, a 422 for another
   * body, a 409 while a claim from an older version of this server is still locked). A new
   * key gets a scope whose transaction claims it at the request's first query, or, on a
   * route that keeps its key itself, no scope ('handler').
   */
  async function precheck(request: FastifyRequest, reply: FastifyReply, key: string): Promise<RequestScope | 'handler' | null> {
    const { account, mode } = request.auth;
    const path = routePath(request);
    const requestHash = hashRequest(request.method, path, request.body);
    const now = platform.clock.now();
    const scope = { account_id: account.id, mode, method: request.method, path, key };

    const [existing] = await scoping.ownRead(() => findKey(db, scope.account_id, mode, scope.method, path, key));
    if (existing) {
      const stale = existing.expires_at <= now.toISOString()
        || (existing.state === 'in_progress' && existing.locked_until <= now.toISOString());
      if (stale) {
        await db.deleteFrom('idempotency_keys').where('id', '=', existing.id).execute();
      } else if (existing.request_hash !== requestHash) {
        throw new Problem('idempotency_key_reused', `Idempotency-Key "${key}" was already used with a different request body on ${request.method} ${path}. Use a new key for a new request.`);
      } else if (existing.state === 'in_progress') {
        throw inProgress(key);
      } else {
        reply.header('idempotent-replayed', 'true');
        reply.code(existing.response_status!).type(existing.response_content_type ?? 'application/json');
        await reply.send(openStoredBody(box, existing.response_body));
        return null;
      }
    }

    const kept = request.routeOptions.config.idempotency;
    if (kept === 'handler' || kept === 'service-transaction') {
      request.idempotencyKey = key;
      // A refusal before the service's transaction (an outcome too) is stored after the fact, as a 'handler' route's answer.
      request.idempotencyClaim = Object.assign({}, scope, { request_hash: requestHash }); // not a spread: see state-machine.ts
    }
    if (kept === 'handler') return 'handler';

    const row: ClaimArgs = [newId('request'), scope.account_id, mode, scope.method, path, key, requestHash,
      new Date(now.getTime() + LOCK_MS).toISOString(), now.toISOString(), new Date(now.getTime() + IDEMPOTENCY_KEY_RETENTION_MS).toISOString()];
    if (kept === 'service-transaction') {
      // The claim and the answer in one INSERT, last in the service's transaction, on both
      // engines: a duplicate that committed first (PostgreSQL holds this insert until it has)
      // makes it do nothing, and the change rolls back with it.
      request.keepAnswer = async (trx, status, body, contentType) => {
        const [inserted] = await insertAnswered(trx, ...row, status, box.seal(body), contentType);
        if (!inserted) throw inProgress(key);
      };
      return 'handler';
    }
    return scoping.createScope(async () => {
      if (!claimWithAnswer) {
        // Inside the request's transaction: PostgreSQL holds this insert while another
        // transaction holds the same key, then skips it if that one committed.
        const [inserted] = await claimKey(db, ...row);
        if (!inserted) throw inProgress(key); // a duplicate ran meanwhile: its retry replays it
      }
      request.idempotencyRow = row;
    });
  }

  const inProgress = (key: string) => new Problem('idempotency_key_in_progress', `A request with Idempotency-Key "${key}" is still being processed; retry shortly.`, {
    headers: { 'retry-after': '1' },
  });

  // A callback hook: `done` must be called inside the scope, so that the handler and all it
  // starts run in it (AsyncLocalStorage follows the calls and promises made from there).
  const preHandler: preHandlerHookHandler = (request, reply, done) => {
    if (!request.auth) return done();
    const header = request.headers['idempotency-key'];
    if (header === undefined) return done();
    const key = Array.isArray(header) ? header[0]! : header;
    if (!KEY_PATTERN.test(key)) {
      sendProblem(request, reply, new Problem('invalid_idempotency_key', 'Idempotency-Key must be 1 to 255 characters of A-Z, a-z, 0-9, "_", ":" or "-".'));
      return;
    }
    precheck(request, reply, key).then((scope) => {
      if (!scope) return; // replayed
      if (scope === 'handler') return done();
      request.idempotencyScope = scope;
      // The deadline rolled the request's transaction back: answer now, whatever the handler
      // is still waiting for (its next statement fails; its late answer is dropped).
      scope.onExpired = (err) => {
        if (reply.sent || request.idempotencyAnswering) return; // onSend fails on its own, through the error handler
        sendProblem(request, reply, transactionTimeoutProblem(err));
      };
      runInScope(scope, done);
    }, (err: Error) => done(err));
  };

  /** Ends the request's transaction: commits what it did and its answer, or nothing. */
  async function finish(request: FastifyRequest, commit: boolean): Promise<void> {
    const scope = request.idempotencyScope;
    if (!scope) return;
    request.idempotencyScope = null;
    await scoping.closeScope(scope, commit);
  }

  // Store the outcome. As with Stripe, a request that never really executed (invalid input,
  // rate limited) or that failed on our side releases the key, so a corrected retry runs:
  // its transaction rolls back, taking the claim and any change with it.
  const onSend: onSendAsyncHookHandler = async (request, reply, payload) => {
    // The worst moment to crash: the handler's work is done, its answer not yet stored.
    if (failpoints && request.headers['x-switchboard-failpoint'] === 'crash-before-response') process.kill(process.pid, 'SIGKILL');
    if (request.idempotencyClaim) {
      if (!request.answerKept) await storeHandlerAnswer(request, reply, payload);
      return payload;
    }
    const scope = request.idempotencyScope;
    if (!scope) return payload; // no key, or a replay
    request.idempotencyAnswering = true;
    // The deadline rolled back what the handler did: its answer must not claim otherwise.
    if (scope.expired && reply.statusCode < 500) throw scope.expired;
    if (!isOutcome(reply) || scope.state !== 'open') {
      await finish(request, false);
      return payload;
    }
    // A handler that made no query has not claimed its key yet: claim it now, with the answer.
    await runInScope(scope, () => scoping.begin(scope));
    const row = request.idempotencyRow!;
    request.idempotencyRow = null;
    const answer = storedAnswer(box, reply, payload);
    if (claimWithAnswer) {
      const [inserted] = await runInScope(scope, () => insertAnswered(db, ...row, answer.response_status, answer.response_body, answer.response_content_type));
      if (!inserted) {
        // A duplicate committed this key after our check: nothing of ours is kept; its retry replays it.
        await finish(request, false);
        throw inProgress(row[5]);
      }
    } else {
      await runInScope(scope, () => storeAnswer(db, answer.response_status, answer.response_body, answer.response_content_type, row[0]));
    }
    await finish(request, true);
    return payload;
  };

  /**
   * A 'handler' route's answer, stored after the fact in its own statement. Its effect is
   * already once-per-key (the handler saw to it), so a duplicate that ran meanwhile and stored
   * first only means this insert does nothing: both answered the same effect.
   */
  async function storeHandlerAnswer(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<void> {
    const claim = request.idempotencyClaim!;
    request.idempotencyClaim = null;
    if (!isOutcome(reply)) return;
    const now = platform.clock.now();
    await db.insertInto('idempotency_keys')
      .values(Object.assign({ id: newId('request') }, claim, storedAnswer(box, reply, payload), {
        locked_until: now.toISOString(),
        created_at: now.toISOString(), expires_at: new Date(now.getTime() + IDEMPOTENCY_KEY_RETENTION_MS).toISOString(),
      }))
      .onConflict((oc) => oc.columns(['account_id', 'mode', 'method', 'path', 'key']).doNothing())
      .execute();
  }

  // A request that ended without sending (the client went away first) must not hold its
  // connection: what it did is rolled back, as if it had never arrived.
  const onResponse: onResponseHookHandler = (request, _reply, done) => {
    if (!request.idempotencyScope) return done();
    finish(request, false).then(() => done(), () => done());
  };

  return { preHandler, onSend, onResponse };
}

/**
 * Whether an answer is an outcome to replay. As with Stripe, a request that never really
 * executed (invalid input, rate limited), that failed on our side, or whose answer says
 * "retry" (Retry-After: a race lost, a limit hit) releases its key, so a corrected retry runs.
 */
function isOutcome(reply: FastifyReply): boolean {
  const transient = reply.statusCode === 429 || reply.getHeader('retry-after') !== undefined;
  return reply.statusCode < 500 && reply.statusCode !== 400 && !transient;
}

/** The columns of a completed key: the answer a retry with the same key replays. */
function storedAnswer(box: SecretBox, reply: FastifyReply, payload: unknown) {
  return {
    state: 'completed' as const,
    response_status: reply.statusCode,
    response_body: box.seal(typeof payload === 'string' ? payload : payload == null ? '' : String(payload)),
    response_content_type: String(reply.getHeader('content-type') ?? 'application/json'),
  };
}

/** Bodies stored before sealing was introduced (plain JSON, at most 24 h old) still replay. */
function openStoredBody(box: SecretBox, stored: string | null): string {
  if (stored === null) return '';
  return SecretBox.isSealed(stored) ? box.openOnce(stored) : stored;
}

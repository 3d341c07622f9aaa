// The handler side of a write that keeps its Idempotency-Key in its service's own transaction
// (config.idempotency 'service-transaction', idempotency.ts). The service is handed a
// BeforeCommit that renders the answer, exactly as it will be sent, and stores it under the
// key as the transaction's last statement: the claim, the change and the answer commit
// together or not at all, as in a request-wide transaction (request-transaction.ts). Two
// things differ, and they are why (issue 29, docs/benchmarks.md):
// - the transaction is the service's own, which on SQLite runs in one turn: the one writer is
//   not held while the request serializes its answer and runs its hooks, so the transaction
//   shares its commit with those around it;
// - nothing follows the request's promises: no AsyncLocalStorage, so Node's promise hooks
//   stay off for the whole process, the job worker and the carriers included.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { BeforeCommit } from '../store/transaction.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Runs `change` and answers with `present` of its result. With an Idempotency-Key, `change`
 * gets the BeforeCommit to run last in its transaction, and the handler answers the very
 * bytes it stored. Not async: a handler of a hot write pays for each promise it makes.
 */
export function answerOnce<R, V>(
  request: FastifyRequest,
  reply: FastifyReply,
  present: (result: R) => V,
  change: (beforeCommit?: BeforeCommit<R>) => Promise<R>,
): Promise<V | string> {
  const keep = request.keepAnswer;
  if (!keep) return change().then(present);
  let answer: string | null = null;
  return change((trx, result) => {
    answer = reply.serialize(present(result)) as string;
    return keep(trx, reply.statusCode, answer, JSON_TYPE);
  }).then(() => {
    if (answer === null) throw new Error(`${request.method} ${request.routeOptions.url} keeps its Idempotency-Key in its service's transaction, but the service never stored the answer`);
    request.answerKept = true;
    reply.type(JSON_TYPE);
    return answer;
  });
}

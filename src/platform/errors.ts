// Every failure leaves as an RFC 9457 problem, never a stack trace: our own Problems,
// Fastify's parsing and validation errors, unknown routes (404) and wrong methods (405).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Problem } from './problems.ts';
import { validationProblem } from './validation.ts';
import type { RouteTable } from './route-table.ts';
import { methodHint } from './method-hints.ts';
import { TransactionTimeoutError } from '../store/request-transaction.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export function sendProblem(request: FastifyRequest, reply: FastifyReply, problem: Problem): FastifyReply {
  for (const [name, value] of Object.entries(problem.headers)) reply.header(name, value);
  return reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).send(problem.body(request.id));
}

/** PostgreSQL's unique_violation (23505) or SQLite's unique and primary-key constraint errors. */
export function isUniqueViolation(error: { code?: unknown }): boolean {
  return error.code === '23505' || error.code === 'SQLITE_CONSTRAINT_UNIQUE' || error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** A request whose database transaction outlived the deadline: rolled back, safe to retry. */
export function transactionTimeoutProblem(error: TransactionTimeoutError): Problem {
  return new Problem('transaction_timeout', `The request's database transaction was still open after ${error.timeoutMs} ms and was rolled back: nothing it did was saved. Retry it (with the same Idempotency-Key, if it had one).`, {
    headers: { 'retry-after': '1' },
  });
}

function toProblem(error: FastifyError & { validationContext?: string }): Problem {
  if (error instanceof Problem) return error;
  if ((error as Error) instanceof TransactionTimeoutError) return transactionTimeoutProblem(error as unknown as TransactionTimeoutError);
  if (error.validation) return validationProblem(error.validation as any, error.validationContext ?? 'body');
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new Problem('malformed_json', error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
        ? 'The body is empty but Content-Type says JSON; send a JSON object.'
        : `The body could not be parsed as JSON: ${error.message}`);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new Problem('payload_too_large', 'The request body is larger than the 1 MiB limit.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new Problem('unsupported_media_type', 'Send the body as application/json.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new Problem('validation_failed', 'The Content-Length header does not match the body.');
  }
  if (isUniqueViolation(error)) {
    // Two requests raced for one unique thing and this one lost: a conflict, never a 500.
    return new Problem('conflict', 'Another request changed the same resource at the same moment; retry this request.', { headers: { 'retry-after': '1' } });
  }
  if (error instanceof SyntaxError) return new Problem('malformed_json', `The body could not be parsed as JSON: ${error.message}`);
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return new Problem('validation_failed', error.message);
  }
  return new Problem('internal_error', 'Something went wrong on our side. The request id identifies it in our logs.');
}

/** Rewrites a problem before it leaves (e.g. a 404 explained by not-found-hints.ts). */
export type ProblemExplainer = (problem: Problem, request: FastifyRequest) => Promise<Problem>;

export function registerErrorHandling(app: FastifyInstance, routes: RouteTable, explain?: ProblemExplainer): void {
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    let problem = toProblem(error);
    if (explain && problem.code === 'not_found') problem = await explain(problem, request);
    if (problem.status >= 500 && problem.code === 'internal_error') request.log.error({ err: error }, 'unhandled error');
    return sendProblem(request, reply, problem);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = routes.methodsFor(path);
    if (allowed.length > 0) {
      return sendProblem(request, reply, new Problem('method_not_allowed',
        `${request.method} is not allowed on ${path}; it takes ${allowed.join(', ')}.${methodHint(request.method, path, allowed)}`, { headers: { allow: allowed.join(', ') } }));
    }
    return sendProblem(request, reply, new Problem('route_not_found', `There is no endpoint ${request.method} ${path}.`));
  });
}

// Requests that never reach a route still get an RFC 9457 problem with the usual headers
// (X-Request-Id, the rate-limit headers): the router's errors (a malformed percent-encoding,
// a path parameter over the length limit) through Fastify's `frameworkErrors`, and Node's
// HTTP parser errors (a head over 16 KiB, a malformed request line, a bad Content-Length, an
// unknown method) through the server's `clientError` handler, which writes to the socket
// itself because no request object exists yet. Such a connection is always closed after the
// answer, and says so with `Connection: close`. An HTTP/1.1 request without a Host header
// (RFC 9112 section 3.2 requires a 400) would get Node's bare 400 with no body; app.ts turns
// that check off in Node (`requireHostHeader: false`) and makes it here, as the first hook.
import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { Problem } from './problems.ts';
import { sendProblem } from './errors.ts';
import { newId } from './ids.ts';
import type { RateLimitDecision } from './rate-limiter.ts';

/** The rate-limit headers an anonymous caller at `ip` sees (auth.ts supplies it). */
export type AnonymousRateHeaders = (ip: string) => Record<string, string> | Promise<Record<string, string>>;

export function rateLimitHeaders(d: RateLimitDecision): Record<string, string> {
  return {
    'x-switchboard-ratelimit-remaining': String(d.remaining),
    'x-switchboard-ratelimit-reset': String(d.resetSeconds),
    // IETF draft-ietf-httpapi-ratelimit-headers fields, for generic clients.
    'ratelimit-policy': `${d.limit};w=60`,
    ratelimit: `limit=${d.limit}, remaining=${d.remaining}, reset=${d.resetSeconds}`,
  };
}

function routerProblem(error: FastifyError): Problem {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return new Problem('uri_too_long', 'A path segment is longer than the 100-character limit; no id is that long.');
  }
  return new Problem('malformed_request', 'The path is not validly percent-encoded UTF-8 (e.g. a lone "%" or "%ff"); encode "%" as "%25".');
}

/** Node's parser error codes, as problems. */
function parserProblem(code: string | undefined): Problem {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new Problem('request_header_fields_too_large', 'The request line and headers together exceed 16 KiB.');
    case 'HPE_INVALID_METHOD':
      return new Problem('method_not_implemented', 'The request method is not one this server implements; the API uses GET, POST, PATCH and DELETE.');
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return new Problem('malformed_request', 'The Content-Length header is not a single non-negative number, or conflicts with Transfer-Encoding.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new Problem('request_timeout', 'The request was not received completely in time.');
    default:
      return new Problem('malformed_request', 'The request is not valid HTTP/1.1 (its request line or a header is malformed).');
  }
}

export class FrameworkErrors {
  /** Set once the limiter exists (registerAuth); until then no rate-limit headers are known. */
  anonymousRateHeaders: AnonymousRateHeaders = () => ({});

  /** Fastify's `frameworkErrors` option: the request exists but matched no route. */
  readonly onFrameworkError = (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    reply.header('x-request-id', request.id);
    const send = (headers: Record<string, string>) => {
      for (const [name, value] of Object.entries(headers)) reply.header(name, value);
      sendProblem(request, reply, routerProblem(error));
    };
    const headers = this.anonymousRateHeaders(request.ip);
    if (headers instanceof Promise) headers.then(send, () => send({}));
    else send(headers);
  };

  /** An `onRequest` hook: HTTP/1.1 without Host is refused with a problem, and the connection closed. */
  readonly requireHost = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    if (request.raw.httpVersion !== '1.1' || request.headers.host !== undefined) return done();
    const send = (headers: Record<string, string>) => {
      for (const [name, value] of Object.entries(headers)) reply.header(name, value);
      reply.header('connection', 'close');
      sendProblem(request, reply, new Problem('malformed_request',
        'An HTTP/1.1 request must carry a Host header (RFC 9112, section 3.2); send "Host: " followed by the server\'s name and port.'));
    };
    // A hook that answers must not call done(): the reply is already on its way.
    const headers = this.anonymousRateHeaders(request.ip);
    if (headers instanceof Promise) headers.then(send, () => send({}));
    else send(headers);
  };

  /** The server's `clientError` handler (Fastify's `clientErrorHandler` option). */
  readonly onClientError = (error: Error & { code?: string }, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const problem = parserProblem(error.code);
    const write = (headers: Record<string, string>) => {
      if (!socket.writable) return socket.destroy();
      const requestId = newId('request');
      const body = JSON.stringify(problem.body(requestId));
      const lines = [
        `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}`,
        'Content-Type: application/problem+json',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
        `X-Request-Id: ${requestId}`,
        ...Object.entries({ ...headers, ...problem.headers }).map(([name, value]) => `${name}: ${value}`),
      ];
      socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
    };
    const headers = this.anonymousRateHeaders(socket.remoteAddress ?? 'unknown');
    if (headers instanceof Promise) headers.then(write, () => write({}));
    else write(headers);
  };
}

// Typed errors. An APIError subclass per status class, so callers can `catch` by kind and
// read the RFC 9457 problem's fields (code, detail, request_id, errors[]) and the headers.

export class SwitchboardError extends Error {
  constructor(message) {
    super(message);
    this.name = new.target.name;
  }
}

/** The server answered with a non-2xx status. */
export class APIError extends SwitchboardError {
  constructor(status, problem, headers) {
    const body = problem && typeof problem === 'object' ? problem : {};
    super(`${status} ${body.code ?? 'error'}: ${body.detail ?? body.title ?? (typeof problem === 'string' ? problem : 'request failed')}`);
    this.status = status;
    this.headers = headers;
    this.problem = body;
    this.type = body.type;
    this.title = body.title;
    this.code = body.code;
    this.detail = body.detail;
    this.requestId = body.request_id ?? headers?.get?.('x-request-id') ?? undefined;
    this.errors = Array.isArray(body.errors) ? body.errors : [];
  }
}

export class BadRequestError extends APIError {}
export class AuthenticationError extends APIError {}
export class PermissionDeniedError extends APIError {}
export class NotFoundError extends APIError {}
export class ConflictError extends APIError {}
export class UnprocessableEntityError extends APIError {}
export class RateLimitError extends APIError {}
export class InternalServerError extends APIError {}

/** The request never got an HTTP answer (refused, reset, DNS...). */
export class APIConnectionError extends SwitchboardError {
  constructor(message, cause) {
    super(message);
    if (cause !== undefined) this.cause = cause;
  }
}

/** No answer within the timeout. */
export class APITimeoutError extends APIConnectionError {}

/** A webhook whose signature or timestamp does not verify. */
export class WebhookVerificationError extends SwitchboardError {}

const BY_STATUS = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

export function errorFor(status, problem, headers) {
  const Kind = BY_STATUS[status] ?? (status >= 500 ? InternalServerError : APIError);
  return new Kind(status, problem, headers);
}

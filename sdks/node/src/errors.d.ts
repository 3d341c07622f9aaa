export interface ProblemFieldError {
  field: string;
  message: string;
  code: string;
}

export class SwitchboardError extends Error {}

/** The server answered with a non-2xx status; the fields are the RFC 9457 problem's. */
export class APIError extends SwitchboardError {
  readonly status: number;
  readonly headers: Headers;
  readonly problem: Record<string, unknown>;
  readonly type: string | undefined;
  readonly title: string | undefined;
  readonly code: string | undefined;
  readonly detail: string | undefined;
  readonly requestId: string | undefined;
  readonly errors: ProblemFieldError[];
}
export class BadRequestError extends APIError {}
export class AuthenticationError extends APIError {}
export class PermissionDeniedError extends APIError {}
export class NotFoundError extends APIError {}
export class ConflictError extends APIError {}
export class UnprocessableEntityError extends APIError {}
export class RateLimitError extends APIError {}
export class InternalServerError extends APIError {}
export class APIConnectionError extends SwitchboardError {}
export class APITimeoutError extends APIConnectionError {}
export class WebhookVerificationError extends SwitchboardError {}

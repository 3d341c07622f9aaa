// RFC 9457 problem details. Services throw `Problem`; the error handler renders it.
import { PROBLEMS, PROBLEM_TYPE_BASE, type ProblemCode } from './problem-catalogue.ts';
import type { FieldErrorCode } from './field-errors.ts';

export interface FieldError {
  /** Dotted path of the offending field in the request, e.g. `to` or `template.name`. */
  field: string;
  message: string;
  /** One of FIELD_ERROR_CODES (field-errors.ts). */
  code: FieldErrorCode;
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
  request_id: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

export class Problem extends Error {
  readonly code: ProblemCode;
  readonly status: number;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;
  readonly extensions: Record<string, unknown>;
  /** For a 404: what was looked up, so the error handler can explain a wrong id (not-found-hints.ts). */
  readonly subject: { noun: string; id: string } | undefined;

  constructor(
    code: ProblemCode,
    detail: string,
    opts: { errors?: FieldError[]; headers?: Record<string, string>; extensions?: Record<string, unknown>; subject?: { noun: string; id: string } } = {},
  ) {
    super(detail);
    this.name = 'Problem';
    this.code = code;
    this.status = PROBLEMS[code].status;
    this.errors = opts.errors;
    this.headers = opts.headers ?? {};
    this.extensions = opts.extensions ?? {};
    this.subject = opts.subject;
  }

  body(requestId: string): ProblemBody {
    const body: ProblemBody = {
      type: PROBLEM_TYPE_BASE + this.code,
      title: PROBLEMS[this.code].title,
      status: this.status,
      detail: this.message,
      code: this.code,
      request_id: requestId,
      ...this.extensions,
    };
    if (this.errors) body.errors = this.errors;
    return body;
  }
}

export function notFound(what: string, id: string): Problem {
  return new Problem('not_found', `No ${what} with id "${id}" exists in this mode.`, { subject: { noun: what, id } });
}

/** A 400 naming one field, for checks a JSON schema cannot express (E.164, dates...). */
export function invalidField(field: string, message: string, code: FieldErrorCode = 'invalid_value'): Problem {
  return new Problem('validation_failed', `${field}: ${message}`, { errors: [{ field, message, code }] });
}

// Two Ajv instances: request bodies are validated strictly (no type coercion, unknown fields
// rejected by the schemas), while query strings, params and headers are coerced from text.
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { FieldError } from './problems.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
  });
  addFormats(ajv);
  return ajv;
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);

/**
 * A write without a body means "no fields", not "not an object": validate it as `{}` so a
 * missing required field is named, and endpoints whose fields are all optional accept it.
 */
export function defaultEmptyBody(request: { body: unknown }, _reply: unknown, done: () => void): void {
  if (request.body === undefined || request.body === null) request.body = {};
  done();
}

export const validatorCompiler: FastifySchemaCompiler<any> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object) as any;

/**
 * The one documented set of `errors[].code` values (docs/errors.md), whichever check found
 * the mistake: the schema validator or a service. Never a raw validator keyword.
 */
export const FIELD_ERROR_CODES = [
  'required', 'unknown_field', 'invalid_type', 'invalid_value', 'invalid_format', 'invalid_phone_number', 'invalid_cursor',
  'too_short', 'too_long', 'too_small', 'too_large', 'duplicate', 'not_allowed', 'not_found',
] as const;
export type FieldErrorCode = (typeof FIELD_ERROR_CODES)[number];

function fieldOf(error: ErrorObject): string {
  const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const extra =
    error.keyword === 'required'
      ? (error.params as { missingProperty: string }).missingProperty
      : error.keyword === 'additionalProperties'
        ? (error.params as { additionalProperty: string }).additionalProperty
        : '';
  return [path, extra].filter(Boolean).join('.');
}

function messageOf(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known field';
    case 'enum':
      return `must be one of: ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    case 'anyOf':
    case 'oneOf':
      return 'is not one of the accepted forms';
    default:
      return error.message ?? 'is not valid';
  }
}

/** Turns Ajv's errors into our `errors[]`, one entry per field and problem. */
export function fieldErrors(errors: ErrorObject[], part: string): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  // A union (anyOf/oneOf) reports one error per failed branch plus a summary: keep the summary.
  const unions = new Set(errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => e.instancePath));
  for (const error of errors) {
    if (error.keyword === 'if') continue;
    if (unions.has(error.instancePath) && error.keyword !== 'anyOf' && error.keyword !== 'oneOf') continue;
    const field = fieldOf(error) || part;
    const message = messageOf(error);
    const dedupe = `${field}|${message}`;
    if (seen.has(dedupe)) continue;
    seen.add(dedupe);
    out.push({ field, message, code: error.keyword });
  }
  return out;
}

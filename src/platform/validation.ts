// Two Ajv instances: request bodies are validated strictly (no type coercion, unknown fields
// rejected by the schemas), while query strings, params and headers are coerced from text.
// Whatever Ajv finds is rewritten here into our own vocabulary (field-errors.ts): one
// message and one code per kind of mistake, never a raw validator keyword.
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { Problem, type FieldError } from './problems.ts';
import { E164_HINT, phoneNumberMessage, type FieldErrorCode } from './field-errors.ts';
import type { LazySchemas } from './lazy-schemas.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** The `e164` string format: a phone number in E.164 (libphonenumber checks it further). */
export const E164_FORMAT = /^\+[1-9][0-9]{6,14}$/;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
    // Errors carry the failing schema and value: a phone number's message suggests its E.164 form.
    verbose: true,
  });
  addFormats(ajv);
  // Phone numbers are one format everywhere, so their errors read the same everywhere. In a
  // query string `+` decodes to a space, so there a leading space stands for the `+`.
  ajv.addFormat('e164', coerce ? /^[+ ]?[1-9][0-9]{6,14}$/ : E164_FORMAT);
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

/**
 * An action without a body (hangup, revoke, cancel, ...) accepts none, `{}` or `null`; any
 * field is a 400 naming it, as an unknown field of any other body is, so a client that thinks
 * it passed an option learns it did not.
 */
export function refuseUnexpectedBody(request: { body: unknown }, _reply: unknown, done: (err?: Error) => void): void {
  const body = request.body;
  if (body === undefined || body === null) return done();
  if (typeof body !== 'object' || Array.isArray(body)) {
    return done(new Problem('validation_failed', `This endpoint takes no request body; send none or {}, not ${Array.isArray(body) ? 'an array' : `a ${typeof body}`}.`));
  }
  const fields = Object.keys(body);
  if (fields.length === 0) return done();
  const errors: FieldError[] = fields.map((field) => ({ field, message: 'is not a known field (this endpoint takes no body)', code: 'unknown_field' }));
  done(new Problem('validation_failed', `This endpoint takes no request body; send none or {}. Unknown fields: ${fields.join(', ')}.`, { errors }));
}

/**
 * Whether a body schema accepts `{}`: then a client may send no body at all (the server reads
 * it as `{}`, see defaultEmptyBody), and the OpenAPI document says the body is optional so
 * the SDKs do not demand one. A schema the body validator cannot compile alone (it refers to
 * shared schemas) counts as requiring a body.
 */
export function acceptsEmptyBody(schema: unknown): boolean {
  const plain = emptyObjectVerdict(schema);
  if (plain !== undefined) return plain;
  try {
    return bodyAjv.compile(structuredClone(schema) as object)({}) === true;
  } catch {
    return false;
  }
}

/** Keywords of an object schema that say nothing about whether `{}` is valid. */
const INERT_FOR_EMPTY = new Set(['type', 'properties', 'additionalProperties', 'required', 'title', 'description', 'examples', 'example', '$id', '$comment', 'x-body-optional']);

/**
 * acceptsEmptyBody's answer without Ajv, for the plain object schemas nearly every body is
 * (compiling each route's body schema a second time was about a third of start-up): `{}`
 * fails when a required field has no default to fill in, and passes when nothing is required
 * and no default is filled in (a default is validated too). Anything else (unions at the top,
 * minProperties, ...) is undefined: Ajv decides.
 */
function emptyObjectVerdict(schema: unknown): boolean | undefined {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return undefined;
  const s = schema as Record<string, unknown>;
  if (s.type !== 'object' || !Object.keys(s).every((key) => INERT_FOR_EMPTY.has(key))) return undefined;
  const properties = (s.properties ?? {}) as Record<string, unknown>;
  const required = s.required ?? [];
  if (!properties || typeof properties !== 'object' || !Array.isArray(required)) return undefined;
  const hasDefault = (name: string) => {
    const property = properties[name];
    return !!property && typeof property === 'object' && 'default' in property;
  };
  if (required.some((name) => !hasDefault(String(name)))) return false;
  return Object.keys(properties).some(hasDefault) ? undefined : true;
}

/**
 * Where the first NUL character (U+0000) in a request part is, as a JSON pointer, or null.
 * NUL is refused in every string, key included, before the schema is consulted: PostgreSQL
 * cannot store it in text or JSON at all (SQLite can), so letting it through would make the
 * same request a 500 on one database and a success on the other.
 */
export function nulPointer(value: unknown, pointer = '', depth = 0): string | null {
  if (typeof value === 'string') return value.includes('\0') ? pointer : null;
  if (value === null || typeof value !== 'object' || depth > 64) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulPointer(value[i], `${pointer}/${i}`, depth + 1);
      if (found !== null) return found;
    }
    return null;
  }
  for (const [key, inner] of Object.entries(value)) {
    const at = `${pointer}/${key.replace(/\0/g, '\\u0000')}`;
    if (key.includes('\0')) return at;
    const found = nulPointer(inner, at, depth + 1);
    if (found !== null) return found;
  }
  return null;
}

/**
 * Ajv's validator for the part, behind the NUL check every part shares. With `lazy`, Ajv
 * compiles the schema on the part's first request instead of at start-up (lazy-schemas.ts).
 */
export function validatorCompiler(lazy?: LazySchemas): FastifySchemaCompiler<any> {
  return ({ schema, httpPart }) => {
    const compile = () => (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object);
    const validator = lazy ? lazy.once(compile) : ((validate) => () => validate)(compile());
    const checked = (data: unknown): boolean => {
      const at = nulPointer(data);
      if (at !== null) {
        checked.errors = [{ keyword: 'nulCharacter', instancePath: at, schemaPath: '#', params: {}, data }] as ErrorObject[];
        return false;
      }
      const validate = validator();
      const ok = validate(data) as boolean;
      checked.errors = validate.errors;
      return ok;
    };
    checked.errors = null as ErrorObject[] | null | undefined;
    return checked as any;
  };
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string', integer: 'an integer', number: 'a number', boolean: 'true or false',
  object: 'an object', array: 'an array', null: 'null',
};

const FORMAT_MESSAGES: Record<string, string> = {
  'date-time': 'must be an RFC 3339 timestamp with a time zone, e.g. 2026-01-15T09:30:00Z',
  date: 'must be a date, e.g. 2026-01-15',
  uri: 'must be an absolute URL, e.g. https://example.com/webhooks',
  email: 'must be an email address',
  uuid: 'must be a UUID',
};

const isPhone = (schema: unknown) => (schema as { format?: string } | undefined)?.format === 'e164';
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

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

/** Our code and message for one Ajv error; `part` is body, querystring, params or headers. */
function describe(error: ErrorObject, part: string, field: string): { code: FieldErrorCode; message: string } {
  const p = error.params as Record<string, any>;
  if (isPhone(error.parentSchema) && ['format', 'pattern', 'minLength', 'maxLength'].includes(error.keyword)) {
    const unencodedPlus = part === 'querystring' && typeof error.data === 'string' && error.data.startsWith(' ');
    return { code: 'invalid_phone_number', message: unencodedPlus ? `${E164_HINT}; in a query string write the + as %2B` : phoneNumberMessage(error.data) };
  }
  switch (error.keyword) {
    case 'nulCharacter':
      return { code: 'invalid_format', message: 'must not contain the NUL character (U+0000)' };
    case 'required':
      return { code: 'required', message: 'is required' };
    case 'additionalProperties':
      if (part === 'querystring' && field === 'ending_before') {
        return { code: 'unknown_field', message: 'is not supported: lists are newest first and page forward only; pass the previous page\'s next_cursor as starting_after' };
      }
      return { code: 'unknown_field', message: part === 'querystring' ? 'is not a known query parameter of this endpoint' : 'is not a known field' };
    case 'type':
      return { code: 'invalid_type', message: `must be ${[p.type].flat().map((t: string) => TYPE_NAMES[t] ?? t).join(' or ')}` };
    case 'enum':
      return { code: 'invalid_value', message: `must be one of: ${(p.allowedValues as unknown[]).join(', ')}` };
    case 'const':
      return { code: 'invalid_value', message: `must be ${JSON.stringify(p.allowedValue)}` };
    case 'anyOf':
    case 'oneOf':
      return { code: 'invalid_value', message: 'matches none of the accepted forms (see this endpoint in the API reference)' };
    case 'format':
      return { code: 'invalid_format', message: FORMAT_MESSAGES[p.format] ?? `must be a valid ${p.format}` };
    case 'pattern':
      return { code: 'invalid_format', message: `must match the pattern ${p.pattern}` };
    case 'minLength':
      return { code: 'too_short', message: p.limit === 1 ? 'must not be empty' : `must be at least ${plural(p.limit, 'character')}` };
    case 'maxLength':
      return { code: 'too_long', message: `must be at most ${plural(p.limit, 'character')}` };
    case 'minItems':
      return { code: 'too_short', message: `must have at least ${plural(p.limit, 'item')}` };
    case 'maxItems':
      return { code: 'too_long', message: `must have at most ${plural(p.limit, 'item')}` };
    case 'minProperties':
      return { code: 'too_short', message: `must have at least ${plural(p.limit, 'entry')}`.replace('entrys', 'entries') };
    case 'maxProperties':
      return { code: 'too_long', message: `must have at most ${plural(p.limit, 'entry')}`.replace('entrys', 'entries') };
    case 'minimum':
      return { code: 'too_small', message: `must be at least ${p.limit}` };
    case 'exclusiveMinimum':
      return { code: 'too_small', message: `must be greater than ${p.limit}` };
    case 'maximum':
      return { code: 'too_large', message: `must be at most ${p.limit}` };
    case 'exclusiveMaximum':
      return { code: 'too_large', message: `must be less than ${p.limit}` };
    case 'uniqueItems':
      return { code: 'duplicate', message: `must not repeat a value (items ${p.j} and ${p.i} are equal)` };
    default:
      return { code: 'invalid_value', message: error.message ?? 'is not valid' };
  }
}

/** Turns Ajv's errors into our `errors[]`, one entry per field and mistake. */
export function fieldErrors(errors: ErrorObject[], part: string): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  // A union (anyOf/oneOf) reports one error per failed branch plus a summary: keep the summary.
  const unions = new Set(errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => e.instancePath));
  for (const error of errors) {
    if (error.keyword === 'if') continue;
    if (unions.has(error.instancePath) && error.keyword !== 'anyOf' && error.keyword !== 'oneOf') continue;
    const field = fieldOf(error);
    const { code, message } = describe(error, part, field);
    const dedupe = `${field}|${code}`;
    if (seen.has(dedupe)) continue;
    seen.add(dedupe);
    out.push({ field, message, code });
  }
  return out;
}

const PARTS: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

/**
 * The 400 for a request that failed its schema. Mistakes about the body as a whole (an array
 * or a number where an object belongs, none of the accepted forms) are said in `detail`;
 * `errors[]` names fields only.
 */
export function validationProblem(errors: ErrorObject[], part: string): Problem {
  const all = fieldErrors(errors, part);
  const whole = all.filter((e) => e.field === '');
  const fields = all.filter((e) => e.field !== '');
  const where = PARTS[part] ?? part;
  const sentences: string[] = [];
  for (const e of whole) {
    const got = (errors.find((x) => x.instancePath === '')?.data);
    const kind = Array.isArray(got) ? 'an array' : got === null ? 'null' : typeof got === 'object' ? 'an object' : `a ${typeof got}`;
    sentences.push(e.code === 'invalid_type'
      ? `The request ${where} must be a JSON object, not ${kind}.`
      : `The request ${where} ${e.message}.`);
  }
  if (fields.length > 0) sentences.push(`The request has invalid ${where === 'body' ? 'fields' : `${where} parameters`}: ${fields.map((e) => `${e.field} ${e.message}`).join('; ')}.`);
  return new Problem('validation_failed', sentences.join(' ').replace(/\?\./g, '?'), fields.length > 0 ? { errors: fields } : {});
}

/**
 * The request schemas as the validator should see them: unions of constants as enums (so an
 * error lists the allowed values), and a query string that refuses parameters it does not
 * declare (so `?stauts=failed` is a 400, not a silent "list everything").
 */
export function strictRequestSchemas<T extends { body?: unknown; querystring?: unknown; params?: unknown }>(schema: T, collapse: <S>(s: S) => S): T {
  const out: T = { ...schema };
  if (schema.body) out.body = collapse(schema.body);
  if (schema.params) out.params = collapse(schema.params);
  const query = (schema.querystring ? collapse(schema.querystring) : { type: 'object', properties: {} }) as Record<string, unknown>;
  out.querystring = { ...query, additionalProperties: false };
  return out;
}

// Turns @fastify/swagger's output into the regular document SDK generators read, one rule
// at a time, so that every operation looks alike:
// - every schema: enums are `enum`, a constant is a one-value `enum`, nullability is
//   `type: [..., 'null']` (and `anyOf: [{$ref}, {type: 'null'}]` only for a nullable $ref);
// - every request body and every success response body is a named component
//   (`CreateCallRequest`, `CallList`, ...); every request field and parameter has an example;
// - a parameter the server defaults (e.g. `limit`) is optional;
// - writes declare the `Idempotency-Key` header; every response declares the headers the
//   server sends; errors are `application/problem+json` with the codes each can carry in
//   `x-problem-codes`, including the ones the platform adds to every route.
import { PROBLEMS, type ProblemCode } from './problem-catalogue.ts';
import { exampleFor, exampleId } from './openapi-examples.ts';
import { ID_PREFIXES } from './ids.ts';

type Schema = Record<string, any>;

const WRITE = new Set(['post', 'put', 'patch', 'delete']);
const SIMPLE = new Set(['string', 'integer', 'number', 'boolean', 'object', 'array']);

const pascal = (s: string) => s.replace(/(^|[_.\-\s])([a-z0-9])/gi, (_m, _sep, c: string) => c.toUpperCase());
const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

// ---- Schema keywords -------------------------------------------------------------------

/** The JSON type shared by a list of constants, if they share one. */
function enumType(values: unknown[]): string | undefined {
  if (values.length === 0) return undefined;
  if (values.every((v) => typeof v === 'string')) return 'string';
  if (values.every((v) => Number.isInteger(v))) return 'integer';
  if (values.every((v) => typeof v === 'number')) return 'number';
  if (values.every((v) => typeof v === 'boolean')) return 'boolean';
  return undefined;
}

function collapseUnion(anyOf: Schema[]): Schema | null {
  const consts = anyOf.map((s) => (s.const !== undefined ? s.const : Array.isArray(s.enum) && s.enum.length === 1 ? s.enum[0] : undefined));
  const kind = enumType(consts);
  if (kind) return { type: kind, enum: consts };
  if (anyOf.length !== 2) return null;
  const nullIndex = anyOf.findIndex((s) => s.type === 'null' && Object.keys(s).length === 1);
  if (nullIndex < 0) return null;
  const other = anyOf[1 - nullIndex]!;
  if ('$ref' in other) return null;
  if (Array.isArray(other.enum) && !other.type) other.type = enumType(other.enum);
  if (typeof other.type !== 'string' || !SIMPLE.has(other.type)) return null;
  const out: Schema = { ...other, type: [other.type, 'null'] };
  if (Array.isArray(other.enum)) out.enum = [...other.enum, null];
  return out;
}

/** Rewrites one schema (recursively) into the document's single style. */
const DATA_KEYWORDS = new Set(['enum', 'default', 'example', 'examples', 'const', 'x-extensible-enum', 'x-problem-codes', 'required']);
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'schemas', 'paths', 'webhooks', 'responses', 'content', 'headers']);

export function normalizeSchema<T>(node: T, isNameMap = false): T {
  if (Array.isArray(node)) return node.map((n) => normalizeSchema(n)) as T;
  if (node === null || typeof node !== 'object') return node;
  let out: Schema = {};
  for (const [key, value] of Object.entries(node as Schema)) {
    // In a map from names to schemas (`properties`, ...) every value is a schema, whatever its
    // name; elsewhere `enum`, `default` and examples hold data, not schemas.
    out[key] = !isNameMap && DATA_KEYWORDS.has(key) ? value : normalizeSchema(value, !isNameMap && NAME_MAPS.has(key));
  }
  if (isNameMap) return out as T;
  if (out.const !== undefined) {
    const { const: value, ...rest } = out;
    out = { ...rest, type: rest.type ?? typeof value, enum: [value] };
  }
  if (Array.isArray(out.enum) && !out.type && enumType(out.enum)) out.type = enumType(out.enum);
  if (Array.isArray(out.anyOf)) {
    const collapsed = collapseUnion(out.anyOf);
    if (collapsed) {
      const { anyOf: _anyOf, ...rest } = out;
      out = { ...rest, ...collapsed };
    }
  }
  return out as T;
}

// ---- Components --------------------------------------------------------------------------

const HEADERS: Record<string, Schema> = {
  XRequestId: {
    description: 'Identifies this request in our logs (`req_...`); also `request_id` in problem bodies.',
    schema: { type: 'string', example: exampleId('req') },
  },
  XRateLimitRemaining: {
    description: 'Whole requests left in the rate-limit bucket of this account and mode (or of your IP before authentication).',
    schema: { type: 'integer', minimum: 0, example: 599 },
  },
  XRateLimitReset: {
    description: 'Whole seconds until the bucket is full again (the whole burst), not until the next request is allowed: '
      + 'at Remaining 0 the next request is allowed after `Retry-After` seconds (sent with every 429), which is much sooner. '
      + 'Waiting for Reset is always safe but can idle up to 60 s.',
    schema: { type: 'integer', minimum: 0, example: 1 },
  },
  RateLimit: { description: 'IETF RateLimit header: `limit=..., remaining=..., reset=...` (the same figures).', schema: { type: 'string', example: 'limit=600, remaining=599, reset=1' } },
  RateLimitPolicy: { description: 'IETF RateLimit-Policy header: `<limit>;w=60`.', schema: { type: 'string', example: '600;w=60' } },
  RetryAfter: {
    description: 'Whole seconds to wait before retrying: until one request is allowed again (429 `rate_limited`; sooner than `X-Switchboard-RateLimit-Reset`, '
      + 'which counts until the bucket is full), a polling interval of 5 s on 429 `concurrent_call_limit` (when a call ends is not known ahead; '
      + 'the call\'s ending webhook says when a slot frees), until the first request with this Idempotency-Key finishes (409), or until the server can serve '
      + '(503: `service_unavailable`, or `transaction_timeout` when the request\'s database transaction outlived the deadline and was rolled back).',
    schema: { type: 'integer', minimum: 1, example: 1 },
  },
  IdempotentReplayed: {
    description: '`true` when this response is the stored response of an earlier request with the same Idempotency-Key; absent otherwise.',
    schema: { type: 'string', enum: ['true'], example: 'true' },
  },
};

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'Makes the write safe to retry: the same key with the same body within 24 hours replays the first response '
    + '(with `Idempotent-Replayed: true`); with another body it is a 422 `idempotency_key_reused`; while the first is running a 409 `idempotency_key_in_progress`. '
    + '1 to 255 of `A-Z a-z 0-9 _ : -`.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9_:-]+$' },
  example: 'order-4711-call',
};

/** Codes every authenticated operation can answer with, whatever the route declares. */
function platformCodes(method: string, op: Schema): ProblemCode[] {
  const codes: ProblemCode[] = ['missing_api_key', 'invalid_api_key', 'api_key_revoked', 'api_key_expired',
    'insufficient_scope', 'ip_not_allowed', 'trial_expired', 'rate_limited', 'internal_error', 'service_unavailable', 'transaction_timeout'];
  if ((op.parameters ?? []).length > 0 || op.requestBody) codes.push('validation_failed');
  if (WRITE.has(method)) codes.push('invalid_idempotency_key', 'idempotency_key_reused', 'idempotency_key_in_progress');
  if (op.requestBody) codes.push('malformed_json', 'payload_too_large', 'unsupported_media_type');
  return codes;
}

// ---- Operations ----------------------------------------------------------------------------

/** The id prefix a `{id}` path parameter takes, from the collection before it. */
const COLLECTION_PREFIX: Record<string, string> = {
  keys: ID_PREFIXES.key, events: ID_PREFIXES.event, webhooks: ID_PREFIXES.webhook, dead_letters: ID_PREFIXES.delivery,
  deliveries: ID_PREFIXES.delivery, numbers: ID_PREFIXES.number, ports: ID_PREFIXES.port, messages: ID_PREFIXES.message,
  calls: ID_PREFIXES.call, recordings: ID_PREFIXES.recording, agents: ID_PREFIXES.agent, conversations: ID_PREFIXES.conversation,
  knowledge: ID_PREFIXES.document, queues: ID_PREFIXES.queue, members: ID_PREFIXES.call,
};

function pathParameterExample(path: string, name: string): string | undefined {
  const segments = path.split('/');
  const at = segments.indexOf(`{${name}}`);
  const prefix = at > 0 ? COLLECTION_PREFIX[segments[at - 1]!] : undefined;
  return prefix ? exampleId(prefix) : undefined;
}

/** Adds `example` (and `examples`) to a request schema and each of its fields, recursively. */
function withExamples(schema: Schema, name: string, operationId: string): Schema {
  if ('$ref' in schema) return schema;
  const out: Schema = { ...schema };
  if (out.properties) {
    out.properties = Object.fromEntries(Object.entries<Schema>(out.properties).map(([field, s]) => [field, withExamples(s, field, operationId)]));
  }
  if (out.items && typeof out.items === 'object' && out.items.properties) out.items = withExamples(out.items, name, operationId);
  // "Exactly one of" bodies: each form gets its examples; the body's own is the first form's.
  if (Array.isArray(out.anyOf)) out.anyOf = out.anyOf.map((form: Schema) => withExamples(form, name, operationId));
  if (Array.isArray(out.oneOf)) out.oneOf = out.oneOf.map((form: Schema) => withExamples(form, name, operationId));
  const example = name ? exampleFor(name, out, operationId) : exampleFor('', out, operationId);
  out.example = example;
  out.examples = [example];
  return out;
}

const withoutTitle = ({ title: _title, ...rest }: Schema) => JSON.stringify(rest);

/** Puts an inline body schema into components (reusing an identical one) and returns a $ref to it. */
function nameSchema(doc: Schema, wanted: string, schema: Schema, moduleComponents: Set<string>): Schema {
  if ('$ref' in schema) return schema;
  const schemas = doc.components.schemas as Record<string, Schema>;
  // @fastify/swagger inlines some shared schemas (e.g. ApiKey): point at the module's component
  // instead; a titled schema (a list page) is one component however many operations answer it.
  const same = Object.entries(schemas).find(([name, existing]) =>
    (moduleComponents.has(name) || name === schema.title) && withoutTitle(existing) === withoutTitle(schema));
  if (same) return ref('schemas', same[0]);
  const name = schema.title && !schemas[schema.title] ? schema.title : wanted;
  if (schemas[name] && JSON.stringify(schemas[name]) !== JSON.stringify(schema)) throw new Error(`OpenAPI component ${name} defined twice`);
  schemas[name] = schema;
  return ref('schemas', name);
}

/** `moduleComponents`: the schemas the modules declared (Call, ApiKey, ...), as opposed to ones named here. */
function normalizeOperation(doc: Schema, path: string, method: string, op: Schema, moduleComponents: Set<string>): void {
  const operationName = pascal(op.operationId);
  const write = WRITE.has(method);

  for (const parameter of op.parameters ?? []) {
    if (parameter.schema?.default !== undefined && parameter.in !== 'path') parameter.required = false;
    if (parameter.in === 'path') {
      const example = pathParameterExample(path, parameter.name);
      if (example) parameter.description ??= `The id (\`${example.split('_')[0]}_...\`).`;
      parameter.example = example ?? exampleFor(parameter.name, parameter.schema, op.operationId);
    } else {
      parameter.example = exampleFor(parameter.name, parameter.schema, op.operationId);
    }
  }
  // Inline rather than a $ref to components.parameters: simpler for generators, same meaning.
  if (write) op.parameters = [...(op.parameters ?? []), { ...IDEMPOTENCY_KEY }];

  // A body every field of which is optional may be left out (the server reads it as {}).
  if (op['x-body-optional'] && op.requestBody) op.requestBody.required = false;
  delete op['x-body-optional'];
  const body = op.requestBody?.content?.['application/json'];
  if (body?.schema) body.schema = nameSchema(doc, `${operationName}Request`, withExamples(body.schema, '', op.operationId), moduleComponents);

  const declared: Record<string, ProblemCode[]> = op['x-problem-codes-by-status'] ?? {};
  delete op['x-problem-codes-by-status'];
  const codesByStatus = new Map<string, Set<ProblemCode>>();
  for (const [status, codes] of Object.entries(declared)) codesByStatus.set(status, new Set(codes));
  for (const code of platformCodes(method, op)) {
    const status = String(PROBLEMS[code].status);
    if (!codesByStatus.has(status)) codesByStatus.set(status, new Set());
    codesByStatus.get(status)!.add(code);
  }

  const responses: Record<string, Schema> = {};
  for (const [status, response] of Object.entries<Schema>(op.responses ?? {})) {
    if (Number(status) >= 400) continue;
    if (response.description === 'Default Response') response.description = op.summary ?? 'Success';
    const json = response.content?.['application/json'];
    if (json?.schema) json.schema = nameSchema(doc, `${operationName}Response`, json.schema, moduleComponents);
    response.headers = { ...commonHeaders(), ...(write ? { 'Idempotent-Replayed': ref('headers', 'IdempotentReplayed') } : {}), ...response.headers };
    responses[status] = response;
  }
  for (const [status, codes] of [...codesByStatus].sort(([a], [b]) => Number(a) - Number(b))) {
    const list = [...codes].sort();
    const retry = ['409', '429', '503'].includes(status) ? { 'Retry-After': ref('headers', 'RetryAfter') } : {};
    responses[status] = {
      description: `Problem: ${list.join(', ')}.`,
      'x-problem-codes': list,
      headers: { ...commonHeaders(), ...retry, ...(write ? { 'Idempotent-Replayed': ref('headers', 'IdempotentReplayed') } : {}) },
      content: { 'application/problem+json': { schema: ref('schemas', 'Problem') } },
    };
  }
  op.responses = responses;
}

function commonHeaders(): Record<string, Schema> {
  return {
    'X-Request-Id': ref('headers', 'XRequestId'),
    'X-Switchboard-RateLimit-Remaining': ref('headers', 'XRateLimitRemaining'),
    'X-Switchboard-RateLimit-Reset': ref('headers', 'XRateLimitReset'),
    RateLimit: ref('headers', 'RateLimit'),
    'RateLimit-Policy': ref('headers', 'RateLimitPolicy'),
  };
}

/** Problem.code and errors[].code are open strings: new codes may appear; known ones are listed. */
function openProblemCodes(doc: Schema, fieldErrorCodes: readonly string[]): void {
  const problem = doc.components.schemas.Problem;
  if (!problem) return;
  const known = Object.keys(PROBLEMS).sort();
  problem.properties.code = {
    type: 'string',
    description: 'Stable, machine-readable code; branch on it. The set is open: a new code may be added at any time, so handle unknown '
      + 'codes by their HTTP status. The known codes are listed in `x-extensible-enum` and, with their status, in the top-level `x-problem-codes`.',
    'x-extensible-enum': known,
    example: 'validation_failed',
  };
  const fieldError = problem.properties.errors?.items;
  if (fieldError?.properties?.code) {
    fieldError.properties.code = {
      type: 'string',
      description: 'What is wrong with the field, from one documented set (docs/errors.md); open like Problem.code.',
      'x-extensible-enum': [...fieldErrorCodes],
      example: 'required',
    };
  }
}

export function normalizeDocument(doc: Schema, fieldErrorCodes: readonly string[]): Schema {
  const out = normalizeSchema(doc);
  out.components ??= {};
  out.components.schemas ??= {};
  out.components.headers = { ...HEADERS };
  const moduleComponents = new Set(Object.keys(out.components.schemas));
  for (const [path, item] of Object.entries<Schema>(out.paths ?? {})) {
    for (const [method, op] of Object.entries<Schema>(item)) normalizeOperation(out, path, method, op, moduleComponents);
  }
  openProblemCodes(out, fieldErrorCodes);
  return out;
}

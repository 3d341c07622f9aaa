// Reads the OpenAPI document into a small language-neutral model that every emitter
// (Node, Python, Go, Postman, Bruno) walks. Everything here is derived from the document:
// operations, their parameters and bodies, models and enums. Nothing is listed by hand, so
// a new endpoint or field reaches every SDK on the next `npm run sdks`.
import { pascal } from './names.ts';
import { isEventStream } from '../../src/platform/request-collections.ts';

export type TypeRef =
  | { kind: 'string'; format?: string | undefined }
  | { kind: 'enum'; values: string[] }
  | { kind: 'integer' }
  | { kind: 'number' }
  | { kind: 'boolean' }
  | { kind: 'any' }
  | { kind: 'binary' }
  | { kind: 'array'; items: TypeRef }
  | { kind: 'map'; values: TypeRef }
  | { kind: 'model'; name: string }
  | { kind: 'nullable'; inner: TypeRef };

export interface Field {
  /** The JSON name, as on the wire. */
  name: string;
  type: TypeRef;
  required: boolean;
  description?: string | undefined;
  example?: unknown;
  default?: unknown;
}

export interface Model {
  name: string;
  description?: string | undefined;
  fields: Field[];
  /** True when the schema admits properties beyond `fields` (kept, not dropped, by SDKs). */
  open: boolean;
}

export interface Param {
  name: string;
  in: 'path' | 'query' | 'header';
  type: TypeRef;
  required: boolean;
  description?: string | undefined;
  example?: unknown;
}

export interface Operation {
  id: string;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  summary: string;
  description?: string | undefined;
  tag: string;
  pathParams: Param[];
  queryParams: Param[];
  body?: { model: string; required: boolean } | undefined;
  /** The 200 response: a model, binary content, or nothing useful. */
  response: TypeRef;
  /** Set on cursor-paginated lists ({data, has_more, next_cursor} with starting_after). */
  list?: { item: TypeRef } | undefined;
  /** Every non-GET is a write: the SDK sends an Idempotency-Key with it. */
  write: boolean;
}

export interface ApiModel {
  title: string;
  version: string;
  description: string;
  operations: Operation[];
  models: Model[];
  /** Names of the models that are problem (error) bodies and webhook events, when present. */
  problemModel?: string | undefined;
  eventModel?: string | undefined;
  /** Every event type the server sends, from the document's `webhooks`. */
  eventTypes: string[];
}

const METHODS = ['get', 'post', 'patch', 'put', 'delete'] as const;

export function buildModel(doc: Record<string, any>): ApiModel {
  const componentSchemas: Record<string, any> = doc.components?.schemas ?? {};
  const models = new Map<string, Model>();
  const pending: Array<[string, any]> = [];

  function deref(schema: any): any {
    if (schema && typeof schema.$ref === 'string') {
      const name = refName(schema.$ref);
      return componentSchemas[name];
    }
    if (schema && Array.isArray(schema.allOf)) return mergeAllOf(schema);
    return schema;
  }

  /** allOf of object schemas (a resource plus extra fields) as one object schema. */
  function mergeAllOf(schema: any): any {
    const parts = (schema.allOf as any[]).map((part) => deref(part) ?? {});
    const { allOf: _, ...rest } = schema;
    return {
      ...rest,
      type: 'object',
      properties: Object.assign({}, ...parts.map((p) => p.properties ?? {}), rest.properties ?? {}),
      required: [...new Set(parts.flatMap((p) => p.required ?? []).concat(rest.required ?? []))],
      additionalProperties: parts.every((p) => p.additionalProperties === false) ? false : undefined,
    };
  }

  /** Adds a named model for an object schema (once) and returns its name. */
  function defineModel(name: string, schema: any): string {
    if (models.has(name)) return name;
    const model: Model = { name, description: schema.description, fields: [], open: schema.additionalProperties !== false };
    models.set(name, model);
    pending.push([name, schema]);
    return name;
  }

  function fillModel(model: Model, schema: any): void {
    const required = new Set<string>(schema.required ?? []);
    for (const [field, raw] of Object.entries<any>(schema.properties ?? {})) {
      const propSchema = raw ?? {};
      model.fields.push({
        name: field,
        type: typeOf(propSchema, model.name + pascal(field)),
        // A field with a default may be left out of a request, whatever `required` says.
        required: required.has(field) && propSchema.default === undefined,
        description: propSchema.description ?? deref(propSchema)?.description,
        example: exampleOf(propSchema),
        default: propSchema.default,
      });
    }
  }

  /** The type of a schema; inline objects with properties become models named `nameHint`. */
  function typeOf(schema: any, nameHint: string): TypeRef {
    if (!schema || typeof schema !== 'object') return { kind: 'any' };
    if (typeof schema.$ref === 'string') {
      const name = refName(schema.$ref);
      const target = componentSchemas[name];
      if (target && isObjectWithProperties(target)) return { kind: 'model', name: defineModel(pascal(name), target) };
      return typeOf(target, pascal(name));
    }
    if (Array.isArray(schema.allOf)) return typeOf(mergeAllOf(schema), nameHint);
    const variants: any[] | undefined = schema.anyOf ?? schema.oneOf;
    if (Array.isArray(variants)) {
      const nonNull = variants.filter((v) => !isNullSchema(v));
      const nullable = nonNull.length < variants.length;
      let inner: TypeRef;
      const enumValues = nonNull.every((v) => stringEnumOf(deref(v)) !== null)
        ? nonNull.flatMap((v) => stringEnumOf(deref(v))!)
        : null;
      if (enumValues && enumValues.length > 0) inner = { kind: 'enum', values: [...new Set(enumValues)] };
      else if (nonNull.length === 1) inner = typeOf(nonNull[0], nameHint);
      else inner = { kind: 'any' };
      return nullable ? { kind: 'nullable', inner } : inner;
    }
    if (Array.isArray(schema.type)) {
      const types = schema.type.filter((t: string) => t !== 'null');
      const nullable = types.length < schema.type.length;
      const inner = types.length === 1 ? typeOf({ ...schema, type: types[0] }, nameHint) : { kind: 'any' as const };
      return nullable ? { kind: 'nullable', inner } : inner;
    }
    const values = stringEnumOf(schema);
    if (values) return { kind: 'enum', values };
    if ('const' in schema && typeof schema.const === 'string') return { kind: 'enum', values: [schema.const] };
    switch (schema.type) {
      case 'string':
        return schema.format === 'binary' ? { kind: 'binary' } : { kind: 'string', format: schema.format };
      case 'integer':
        return { kind: 'integer' };
      case 'number':
        return { kind: 'number' };
      case 'boolean':
        return { kind: 'boolean' };
      case 'array':
        return { kind: 'array', items: typeOf(schema.items, nameHint + 'Item') };
      case 'object':
      case undefined:
        if (isObjectWithProperties(schema)) return { kind: 'model', name: defineModel(schema.title ? pascal(schema.title) : nameHint, schema) };
        if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
          return { kind: 'map', values: typeOf(schema.additionalProperties, nameHint + 'Value') };
        }
        return schema.type === 'object' ? { kind: 'map', values: { kind: 'any' } } : { kind: 'any' };
      default:
        return { kind: 'any' };
    }
  }

  // Component schemas first, so their names win over inline hints.
  for (const [name, schema] of Object.entries<any>(componentSchemas)) {
    if (isObjectWithProperties(schema)) defineModel(pascal(name), schema);
  }

  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      // An event stream (a listen session's) is no request-response call; `switchboard listen` is its client.
      if (!op || isEventStream(op)) continue;
      const id: string = op.operationId ?? `${method}${pascal(path.replace(/[{}]/g, ''))}`;
      const params: Param[] = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: any) => {
        const schema = p.schema ?? {};
        return {
          name: p.name, in: p.in, type: typeOf(schema, pascal(id) + pascal(p.name)),
          required: Boolean(p.required) && p.in === 'path' ? true : Boolean(p.required) && schema.default === undefined,
          description: p.description, example: p.example ?? exampleOf(schema),
        };
      });
      let body: Operation['body'];
      const bodySchema = op.requestBody?.content?.['application/json']?.schema;
      if (bodySchema) {
        const type = typeOf(bodySchema, pascal(id) + 'Request');
        if (type.kind === 'model') body = { model: type.name, required: Boolean(op.requestBody.required) };
      }
      const ok = op.responses?.['200'] ?? op.responses?.['201'];
      const content = ok?.content ?? {};
      let response: TypeRef = { kind: 'any' };
      let list: Operation['list'];
      if (content['application/json']?.schema) {
        const schema = content['application/json'].schema;
        response = typeOf(schema, pascal(id) + 'Response');
        const resolved = deref(schema);
        const hasCursor = params.some((p) => p.name === 'starting_after');
        if (hasCursor && resolved?.properties?.data?.type === 'array' && resolved?.properties?.has_more) {
          list = { item: typeOf(resolved.properties.data.items, pascal(id) + 'Item') };
        }
      } else if (Object.keys(content).length > 0) {
        response = { kind: 'binary' };
      }
      operations.push({
        id, method: method.toUpperCase() as Operation['method'], path,
        summary: op.summary ?? id, description: op.description, tag: op.tags?.[0] ?? 'Other',
        pathParams: params.filter((p) => p.in === 'path'),
        queryParams: params.filter((p) => p.in === 'query'),
        body, response, list, write: method !== 'get',
      });
    }
  }

  const eventTypes = Object.keys(doc.webhooks ?? {}).sort();
  for (const webhook of Object.values<any>(doc.webhooks ?? {})) {
    const schema = webhook?.post?.requestBody?.content?.['application/json']?.schema;
    if (schema) typeOf(schema, 'WebhookEvent');
  }

  while (pending.length > 0) {
    const [name, schema] = pending.shift()!;
    fillModel(models.get(name)!, schema);
  }

  return {
    title: doc.info?.title ?? 'API',
    version: doc.info?.version ?? '0.0.0',
    description: doc.info?.description ?? '',
    operations,
    models: [...models.values()].sort((a, b) => a.name.localeCompare(b.name)),
    problemModel: models.has('Problem') ? 'Problem' : undefined,
    eventModel: models.has('Event') ? 'Event' : undefined,
    eventTypes,
  };
}

function refName(ref: string): string {
  return ref.split('/').pop()!;
}

function isNullSchema(schema: any): boolean {
  return schema?.type === 'null';
}

function isObjectWithProperties(schema: any): boolean {
  return Boolean(schema) && (schema.type === 'object' || schema.type === undefined) && schema.properties && Object.keys(schema.properties).length > 0;
}

function stringEnumOf(schema: any): string[] | null {
  if (!schema) return null;
  if (Array.isArray(schema.enum) && schema.enum.every((v: unknown) => typeof v === 'string')) return schema.enum;
  if (typeof schema.const === 'string') return [schema.const];
  return null;
}

function exampleOf(schema: any): unknown {
  if (!schema) return undefined;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  return undefined;
}

/** A sample value for a type: the documented example, else the default, else a plausible placeholder. */
export function sampleValue(api: ApiModel, type: TypeRef, field?: { example?: unknown; default?: unknown }, depth = 0): unknown {
  if (field?.example !== undefined) return field.example;
  if (field?.default !== undefined) return field.default;
  switch (type.kind) {
    case 'string': return type.format === 'date-time' ? '2026-01-01T00:00:00Z' : type.format === 'uri' ? 'https://example.com/hooks' : 'string';
    case 'enum': return type.values[0];
    case 'integer': case 'number': return 1;
    case 'boolean': return false;
    case 'array': return depth > 3 ? [] : [sampleValue(api, type.items, undefined, depth + 1)];
    case 'map': return {};
    case 'nullable': return sampleValue(api, type.inner, undefined, depth);
    case 'model': {
      if (depth > 3) return {};
      const model = api.models.find((m) => m.name === type.name);
      const out: Record<string, unknown> = {};
      for (const f of model?.fields ?? []) if (f.required) out[f.name] = sampleValue(api, f.type, f, depth + 1);
      return out;
    }
    default: return null;
  }
}

// Request collections built from the OpenAPI document: a Postman v2.1 collection (served at
// /v1/collections/postman.json and committed under collections/) and a Bruno collection (a
// folder of .bru files, committed under collections/bruno/). Each request carries an example
// body built from the schema (documented examples first, then defaults, then placeholders).
//
// The Postman collection doubles as a contract check: every request's test asserts that the
// status is one the document lists for the operation, and that a problem has a `code`. Ids
// flow between requests: a POST to a path ending in /<name> stores the returned id in the
// variable <name>_id, which later requests use for their {id} (CI runs it with newman).

type Doc = Record<string, any>;
const METHODS = ['get', 'post', 'patch', 'put', 'delete'] as const;

interface CollectedOperation {
  id: string;
  method: string;
  path: string;
  summary: string;
  description: string;
  tag: string;
  query: Array<{ name: string; value: string; required: boolean; description: string }>;
  body: unknown;
  statuses: string[];
}

function deref(doc: Doc, schema: any): any {
  if (schema && typeof schema.$ref === 'string') return deref(doc, doc.components?.schemas?.[schema.$ref.split('/').pop()]);
  return schema;
}

/** An example value for a schema: documented example, default, else a plausible placeholder. */
export function exampleFor(doc: Doc, raw: any, depth = 0): unknown {
  const schema = deref(doc, raw);
  if (!schema || depth > 4) return null;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  const variants = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants)) return exampleFor(doc, variants.find((v: any) => deref(doc, v)?.type !== 'null') ?? variants[0], depth + 1);
  if (Array.isArray(schema.allOf)) return Object.assign({}, ...schema.allOf.map((s: any) => exampleFor(doc, s, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'string':
      return schema.format === 'date-time' ? '2026-01-01T00:00:00Z' : schema.format === 'uri' ? 'https://example.com/hooks' : 'string';
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return false;
    case 'array':
      return [exampleFor(doc, schema.items, depth + 1)];
    case 'object':
    case undefined: {
      if (!schema.properties) return {};
      const out: Record<string, unknown> = {};
      const required = new Set<string>(schema.required ?? []);
      for (const [name, prop] of Object.entries<any>(schema.properties)) {
        // Top level: every required field and every field with a documented example.
        if (required.has(name) || (depth === 0 && (prop?.examples || prop?.example !== undefined))) {
          out[name] = exampleFor(doc, prop, depth + 1);
        }
      }
      return out;
    }
    default:
      return null;
  }
}

/**
 * A server-sent-events stream (a listen session's) never ends, so it is no request for a
 * collection (or an SDK call): `switchboard listen` is its client.
 */
export function isEventStream(op: any): boolean {
  return Boolean(op.responses?.['200']?.content?.['text/event-stream']);
}

function collect(doc: Doc): CollectedOperation[] {
  const out: CollectedOperation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op || isEventStream(op)) continue;
      const params: any[] = [...(item.parameters ?? []), ...(op.parameters ?? [])];
      const bodySchema = op.requestBody?.content?.['application/json']?.schema;
      const body = bodySchema ? exampleFor(doc, bodySchema) : undefined;
      if (body && typeof body === 'object' && 'from' in (body as Record<string, unknown>)) (body as Record<string, unknown>).from = '{{from_number}}';
      out.push({
        id: op.operationId ?? `${method} ${path}`,
        method: method.toUpperCase(),
        path,
        summary: op.summary ?? op.operationId ?? path,
        description: op.description ?? '',
        tag: op.tags?.[0] ?? 'Other',
        query: params.filter((p) => p.in === 'query').map((p) => ({
          name: p.name,
          value: String(exampleFor(doc, p.schema) ?? ''),
          required: Boolean(p.required) && p.schema?.default === undefined,
          description: p.description ?? '',
        })),
        body,
        statuses: Object.keys(op.responses ?? {}),
      });
    }
  }
  return out;
}

/** `{id}` becomes the variable set by the POST that created that kind of resource. */
function pathVariable(path: string, param: string): string {
  const segments = path.split('/');
  const index = segments.indexOf(`{${param}}`);
  const owner = segments[index - 1] ?? param;
  return `${owner}_id`;
}

function idVariableSetBy(op: CollectedOperation): string | null {
  if (op.method !== 'POST') return null;
  const last = op.path.split('/').pop() ?? '';
  return last && !last.startsWith('{') ? `${last}_id` : null;
}

function postmanUrl(op: CollectedOperation) {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => `{{${pathVariable(op.path, name)}}}`);
  const query = op.query.map((q) => ({ key: q.name, value: q.value, description: q.description, disabled: !q.required }));
  const raw = `{{baseUrl}}${path}${query.some((q) => !q.disabled) ? '?' + query.filter((q) => !q.disabled).map((q) => `${q.key}=${q.value}`).join('&') : ''}`;
  return { raw, host: ['{{baseUrl}}'], path: path.split('/').filter(Boolean), ...(query.length > 0 ? { query } : {}) };
}

function postmanTest(op: CollectedOperation): string[] {
  const lines = [
    `const documented = ${JSON.stringify(op.statuses)};`,
    `pm.test('${op.method} ${op.path} answers a documented status', () => pm.expect(documented).to.include(String(pm.response.code)));`,
    `if (pm.response.code >= 400) pm.test('errors are problems with a code', () => pm.expect(pm.response.json().code).to.be.a('string'));`,
  ];
  const variable = idVariableSetBy(op);
  if (variable) lines.push(`if (pm.response.code === 200 && pm.response.json().id) pm.collectionVariables.set('${variable}', pm.response.json().id);`);
  return lines;
}

/** `baseUrl`: where the collection points by default (the served copy: the server it came from). */
export function postmanCollection(doc: Doc, opts: { baseUrl?: string } = {}): Record<string, unknown> {
  const operations = collect(doc);
  const tags = [...new Set(operations.map((o) => o.tag))];
  const ids = new Set<string>();
  for (const op of operations) {
    for (const m of op.path.matchAll(/\{([^}]+)\}/g)) ids.add(pathVariable(op.path, m[1]!));
  }
  return {
    info: {
      name: doc.info?.title ?? 'API',
      description: `${doc.info?.description ?? ''}\n\nGenerated from the OpenAPI document (version ${doc.info?.version}). Set apiKey to a sandbox key and from_number to one of its numbers.`,
      version: doc.info?.version,
      schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
    },
    auth: { type: 'bearer', bearer: [{ key: 'token', value: '{{apiKey}}', type: 'string' }] },
    variable: [
      { key: 'baseUrl', value: opts.baseUrl ?? doc.servers?.[0]?.url ?? 'http://127.0.0.1:8080' },
      { key: 'apiKey', value: 'sb_test_...' },
      { key: 'from_number', value: '+14155550123' },
      ...[...ids].sort().map((key) => ({ key, value: 'unset' })),
    ],
    item: tags.map((tag) => ({
      name: tag,
      item: operations.filter((o) => o.tag === tag).map((op) => ({
        name: op.summary,
        request: {
          method: op.method,
          description: `${op.description}\n\noperationId: ${op.id}`.trim(),
          header: [
            ...(op.body !== undefined ? [{ key: 'Content-Type', value: 'application/json' }] : []),
            ...(op.method !== 'GET' ? [{ key: 'Idempotency-Key', value: '{{$guid}}' }] : []),
          ],
          url: postmanUrl(op),
          ...(op.body !== undefined ? { body: { mode: 'raw', raw: JSON.stringify(op.body, null, 2), options: { raw: { language: 'json' } } } } : {}),
        },
        event: [{ listen: 'test', script: { type: 'text/javascript', exec: postmanTest(op) } }],
      })),
    })),
  };
}

function bruString(s: string): string {
  return s.replace(/\n/g, ' ');
}

/** The Bruno collection: file path (inside the collection folder) to content. */
export function brunoFiles(doc: Doc): Record<string, string> {
  const operations = collect(doc);
  const files: Record<string, string> = {
    'bruno.json': JSON.stringify({ version: '1', name: doc.info?.title ?? 'API', type: 'collection', ignore: ['node_modules', '.git'] }, null, 2) + '\n',
    'environments/Local.bru': `vars {\n  baseUrl: ${doc.servers?.[0]?.url ?? 'http://127.0.0.1:8080'}\n  from_number: +14155550123\n}\nvars:secret [\n  apiKey\n]\n`,
    'collection.bru': `auth {\n  mode: bearer\n}\n\nauth:bearer {\n  token: {{apiKey}}\n}\n`,
  };
  const seq = new Map<string, number>();
  for (const op of operations) {
    const folder = op.tag.replace(/[^A-Za-z0-9 _-]/g, '');
    const n = (seq.get(folder) ?? 0) + 1;
    seq.set(folder, n);
    const url = postmanUrl(op).raw;
    const blocks = [
      `meta {\n  name: ${bruString(op.summary)}\n  type: http\n  seq: ${n}\n}`,
      `${op.method.toLowerCase()} {\n  url: ${url}\n  body: ${op.body !== undefined ? 'json' : 'none'}\n  auth: inherit\n}`,
    ];
    if (op.query.length > 0) {
      blocks.push(`params:query {\n${op.query.map((q) => `  ${q.required ? '' : '~'}${q.name}: ${q.value}`).join('\n')}\n}`);
    }
    if (op.method !== 'GET') blocks.push(`headers {\n  Idempotency-Key: {{$guid}}\n}`);
    if (op.body !== undefined) blocks.push(`body:json {\n${JSON.stringify(op.body, null, 2).split('\n').map((l) => '  ' + l).join('\n')}\n}`);
    if (op.description) blocks.push(`docs {\n${op.description.split('\n').map((l) => '  ' + l).join('\n')}\n  \n  operationId: ${op.id}\n}`);
    files[`${folder}/${op.id}.bru`] = blocks.join('\n\n') + '\n';
  }
  return files;
}

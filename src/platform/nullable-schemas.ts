// `Type.Union([Type.String(), Type.Null()])` becomes `anyOf`, and fast-json-stringify
// cannot tell which branch a value takes without running a validator on it, for every
// such field of every response. `{ type: ['string', 'null'] }` says the same thing (valid
// JSON Schema and OpenAPI 3.1) and serializes without validation, as does an `enum` for a
// union of string literals. This rewrites response schemas that way when routes are
// registered, so modules keep writing unions.
type Schema = Record<string, unknown>;

const SIMPLE_TYPES = new Set(['string', 'integer', 'number', 'boolean']);

/** A union of string constants (`Type.Union([Type.Literal('a'), ...])`) is an enum. */
function asEnum(anyOf: Schema[]): Schema | null {
  const values = anyOf.map((s) => s.const);
  const plain = anyOf.every((s) => typeof s.const === 'string' && Object.keys(s).every((k) => k === 'const' || k === 'type'));
  return plain ? { type: 'string', enum: values } : null;
}

function collapse(anyOf: Schema[]): Schema | null {
  const enumeration = asEnum(anyOf);
  if (enumeration) return enumeration;
  if (anyOf.length !== 2) return null;
  const nullIndex = anyOf.findIndex((s) => s.type === 'null' && Object.keys(s).length === 1);
  if (nullIndex < 0) return null;
  const other = anyOf[1 - nullIndex]!;
  if (typeof other.type !== 'string' || !SIMPLE_TYPES.has(other.type) || 'anyOf' in other || 'const' in other) return null;
  return { ...other, type: [other.type, 'null'] };
}

export function collapseNullableUnions<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(collapseNullableUnions) as T;
  if (schema === null || typeof schema !== 'object') return schema;
  const source = schema as Schema;
  const out: Schema = {};
  for (const key of Object.keys(source)) out[key] = collapseNullableUnions(source[key]);
  // Symbol-keyed TypeBox metadata is irrelevant to JSON Schema and is dropped.
  if (Array.isArray(out.anyOf)) {
    const collapsed = collapse(out.anyOf as Schema[]);
    if (collapsed) {
      const { anyOf: _anyOf, ...rest } = out;
      return { ...rest, ...collapsed } as T;
    }
  }
  return out as T;
}

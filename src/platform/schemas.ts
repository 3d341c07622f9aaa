// Schema pieces shared by every module's contract: problems, lists, ids, timestamps.
import { Type, type TSchema } from 'typebox';
import { PROBLEMS, type ProblemCode } from './problem-catalogue.ts';

export const Timestamp = Type.String({ format: 'date-time', description: 'RFC 3339 UTC timestamp.' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
export const E164 = Type.String({ format: 'e164', pattern: '^\\+[1-9][0-9]{6,14}$', description: 'Phone number in E.164 format, e.g. +14155550100.', examples: ['+14155550100'] });
export const Metadata = Type.Record(Type.String({ maxLength: 40 }), Type.String({ maxLength: 500 }), {
  description: 'Up to 20 string key-value pairs for your own use.', maxProperties: 20,
});

export const FieldErrorSchema = Type.Object({
  field: Type.String(),
  message: Type.String(),
  code: Type.String(),
});

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ format: 'uri' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({ description: 'Stable code from the problem catalogue (docs/errors.md); an open set.' }),
    request_id: Type.String(),
    errors: Type.Optional(Type.Array(FieldErrorSchema)),
  },
  { $id: 'Problem', additionalProperties: true, description: 'RFC 9457 problem details.' },
);

/** Response entries for the problem statuses a route can answer with (for the OpenAPI document). */
export function problemResponses(...codes: ProblemCode[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  const all: ProblemCode[] = ['validation_failed', 'missing_api_key', 'insufficient_scope', 'rate_limited', ...codes];
  for (const code of all) {
    const status = PROBLEMS[code].status;
    const same = [...new Set(all.filter((c) => PROBLEMS[c].status === status))];
    // `x-problem-codes` is lifted onto the response by the OpenAPI normalizer (openapi-document.ts).
    out[status] = Type.Ref('Problem', { description: `Problem: ${same.join(', ')}`, 'x-problem-codes': same });
  }
  return out;
}

/** The codes problemResponses() declared, by status, for the OpenAPI normalizer (an `x-` key reaches the operation). */
export function problemCodesOf(response: Record<string, unknown>): { 'x-problem-codes-by-status'?: Record<string, string[]> } {
  const out: Record<string, string[]> = {};
  for (const [status, schema] of Object.entries(response)) {
    const codes = (schema as { 'x-problem-codes'?: string[] } | undefined)?.['x-problem-codes'];
    if (codes) out[status] = codes;
  }
  return Object.keys(out).length > 0 ? { 'x-problem-codes-by-status': out } : {};
}

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const PageQuery = {
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1 to 100.' }),
  starting_after: Type.Optional(Type.String({ maxLength: 64, description: 'The next_cursor of the previous page.' })),
};

export function Page<T extends TSchema>(item: T, name: string) {
  return Type.Object(
    {
      object: Type.Literal('list'),
      data: Type.Array(item),
      has_more: Type.Boolean(),
      next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as starting_after to get the next page; null on the last page.' }),
    },
    { title: `${name}List` },
  );
}

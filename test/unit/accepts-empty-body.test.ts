// acceptsEmptyBody decides where the OpenAPI document calls a request body optional. It answers
// plain object schemas itself (start-up no longer compiles every body schema twice) and leaves
// the rest to Ajv: both answers must be what Ajv, with the body validator's options, says of `{}`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import { Type } from 'typebox';
import { acceptsEmptyBody } from '../../src/platform/validation.ts';

const ajv = new Ajv({ allErrors: true, coerceTypes: false, useDefaults: true, strict: false });
const ajvSays = (schema: unknown) => ajv.compile(structuredClone(schema) as object)({}) === true;

const cases: Array<[string, unknown, boolean]> = [
  ['no fields', Type.Object({}), true],
  ['optional fields only', Type.Object({ name: Type.Optional(Type.String()), n: Type.Optional(Type.Integer()) }, { additionalProperties: false }), true],
  ['a required field', Type.Object({ to: Type.String(), name: Type.Optional(Type.String()) }), false],
  ['a required field with a default', Type.Object({ mode: Type.String({ default: 'live' }) }), true],
  ['a required field with a default that its own schema refuses', Type.Object({ n: Type.Integer({ minimum: 5, default: 1 }) }), false],
  ['an optional field whose default its own schema refuses', Type.Object({ n: Type.Optional(Type.Integer({ minimum: 5, default: 1 })) }), false],
  ['minProperties', Type.Object({ a: Type.Optional(Type.String()) }, { minProperties: 1 }), false],
  ['a union at the top', Type.Union([Type.Object({ seconds: Type.Integer() }), Type.Object({ to: Type.String() })]), false],
  ['a union of optional objects', Type.Union([Type.Object({ seconds: Type.Optional(Type.Integer()) }), Type.Object({ to: Type.String() })]), true],
  ['not an object', Type.String(), false],
];

for (const [name, schema, expected] of cases) {
  test(`{} against ${name}: ${expected ? 'accepted' : 'refused'}, as Ajv says`, () => {
    assert.equal(ajvSays(schema), expected, 'the case says what Ajv says');
    assert.equal(acceptsEmptyBody(schema), expected);
  });
}

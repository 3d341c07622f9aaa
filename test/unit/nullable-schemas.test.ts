import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { collapseNullableUnions } from '../../src/platform/nullable-schemas.ts';

test('simple nullable unions become type arrays, keeping their keywords', () => {
  const schema = Type.Object({
    at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    n: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
  });
  const out = collapseNullableUnions(JSON.parse(JSON.stringify(schema)));
  assert.deepEqual(out.properties.at, { type: ['string', 'null'], format: 'date-time' });
  assert.deepEqual(out.properties.n, { type: ['integer', 'null'], minimum: 0 });
});

test('a union of string literals becomes an enum', () => {
  const out = collapseNullableUnions(JSON.parse(JSON.stringify(Type.Union([Type.Literal('sandbox'), Type.Literal('live')], { description: 'mode' }))));
  assert.deepEqual(out, { type: 'string', enum: ['sandbox', 'live'], description: 'mode' });
});

test('unions that are not simple nullables or string enums stay as they are', () => {
  const keep = [
    Type.Union([Type.Literal('a'), Type.Literal(1)]),
    Type.Union([Type.Object({ x: Type.String() }), Type.Null()]),
    Type.Union([Type.Ref('Call'), Type.Null()]),
    Type.Union([Type.String(), Type.Integer(), Type.Null()]),
  ].map((s) => JSON.parse(JSON.stringify(s)));
  for (const s of keep) assert.deepEqual(collapseNullableUnions(s), s);
});

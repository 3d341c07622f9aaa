import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TypeID } from 'typeid-js';
import { isIdOf, newId } from '../../src/platform/ids.ts';

test('ids are valid TypeIDs (checked by typeid-js) with UUIDv7 inside', () => {
  for (let i = 0; i < 2000; i++) {
    const id = newId('call');
    const parsed = TypeID.fromString(id);
    assert.equal(parsed.getType(), 'call');
    assert.equal(parsed.toString(), id, 'round-trips through typeid-js');
    const uuid = parsed.toUUID();
    assert.equal(uuid[14], '7', 'version 7');
    assert.match(uuid[19]!, /[89ab]/, 'RFC 9562 variant');
    assert.ok(isIdOf('call', id));
    assert.ok(!isIdOf('message', id));
  }
});

test('ids sort in creation order, also within one millisecond', () => {
  const ids = Array.from({ length: 5000 }, () => newId('message'));
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(new Set(ids).size, ids.length);
});

test('the embedded timestamp is the creation time', () => {
  const before = Date.now();
  const uuid = TypeID.fromString(newId('event')).toUUID().replace(/-/g, '');
  const ms = parseInt(uuid.slice(0, 12), 16);
  assert.ok(ms >= before && ms <= Date.now() + 1);
});

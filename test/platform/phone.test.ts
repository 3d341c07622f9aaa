// Phone-number facts come from libphonenumber; the cache in front of it must never change an answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { phoneFacts } from '../../src/platform/phone.ts';

test('phoneFacts answers as libphonenumber does, the first time and every time after', () => {
  for (let round = 0; round < 2; round++) {
    assert.deepEqual(phoneFacts('+14155550100'), { e164: '+14155550100', valid: true, possible: true, country: 'US' });
    assert.equal(phoneFacts('+1 415 555 0100')?.e164, '+14155550100', 'not E.164 text: callers compare e164 with the input');
    assert.deepEqual(phoneFacts('+4420'), { e164: '+4420', valid: false, possible: false, country: undefined });
    assert.equal(phoneFacts('call me'), null);
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeSmsBody } from '../../src/modules/messages/encoding.ts';

const EMOJI = '😀'; // one code point, a UTF-16 surrogate pair

test('GSM-7: 160 septets fit one segment, then 153 per part', () => {
  const cases: [length: number, segments: number][] = [[1, 1], [160, 1], [161, 2], [306, 2], [307, 3], [459, 3], [460, 4]];
  for (const [length, segments] of cases) {
    assert.deepEqual(analyzeSmsBody('a'.repeat(length)), { encoding: 'gsm7', segments, units: length }, `${length} chars`);
  }
});

test('the whole GSM 03.38 basic set is GSM-7 at one septet per character', () => {
  const basic =
    '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
  assert.deepEqual(analyzeSmsBody(basic), { encoding: 'gsm7', segments: 1, units: 127 });
});

test('extension-table characters are GSM-7 but cost two septets', () => {
  assert.deepEqual(analyzeSmsBody('^{}\\[~]|€\f'), { encoding: 'gsm7', segments: 1, units: 20 });
  assert.deepEqual(analyzeSmsBody('€'.repeat(80)), { encoding: 'gsm7', segments: 1, units: 160 });
  assert.deepEqual(analyzeSmsBody('€'.repeat(81)), { encoding: 'gsm7', segments: 2, units: 162 });
});

test('an escape pair is never split across parts', () => {
  // 152 + 2 + 152 = 306 septets would fit 2 parts of 153, but the € cannot
  // straddle the boundary, so part 1 carries 152 and the rest spills into a third.
  const body = 'a'.repeat(152) + '€' + 'a'.repeat(152);
  assert.deepEqual(analyzeSmsBody(body), { encoding: 'gsm7', segments: 3, units: 306 });
  assert.equal(analyzeSmsBody('a'.repeat(153) + '€' + 'a'.repeat(151)).segments, 2, 'a pair at a part start is fine');
});

test('any character outside GSM-7 switches the whole message to UCS-2', () => {
  assert.deepEqual(analyzeSmsBody(`Hi ${EMOJI}`), { encoding: 'ucs2', segments: 1, units: 5 });
  assert.deepEqual(analyzeSmsBody(EMOJI), { encoding: 'ucs2', segments: 1, units: 2 });
  assert.equal(analyzeSmsBody('ç').encoding, 'ucs2', 'only capital Ç is in the GSM table');
  assert.equal(analyzeSmsBody('\u001b').encoding, 'ucs2', 'a raw ESC is not a GSM character');
  assert.equal(analyzeSmsBody('€ and “quotes”').units, 14, 'extension chars are 1 unit in UCS-2');
});

test('UCS-2: 70 units fit one segment, then 67 per part', () => {
  const cases: [length: number, segments: number][] = [[70, 1], [71, 2], [134, 2], [135, 3]];
  for (const [length, segments] of cases) {
    assert.deepEqual(analyzeSmsBody('ж'.repeat(length)), { encoding: 'ucs2', segments, units: length }, `${length} units`);
  }
  assert.deepEqual(analyzeSmsBody(EMOJI.repeat(35)), { encoding: 'ucs2', segments: 1, units: 70 });
});

test('a surrogate pair is never split across parts', () => {
  // 66 + 2 + 66 = 134 units would fit 2 parts of 67, but the emoji would
  // straddle the boundary: part 1 carries 66, part 2 the emoji + 65, part 3 one.
  const body = 'a'.repeat(66) + EMOJI + 'b'.repeat(66);
  assert.deepEqual(analyzeSmsBody(body), { encoding: 'ucs2', segments: 3, units: 134 });
  assert.equal(analyzeSmsBody('a'.repeat(65) + EMOJI + 'b'.repeat(67)).segments, 2, 'pair ending exactly at 67 fits');
});

test('an empty body is billed as one GSM-7 segment', () => {
  assert.deepEqual(analyzeSmsBody(''), { encoding: 'gsm7', segments: 1, units: 0 });
});

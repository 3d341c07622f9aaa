// The SMPP encoder splits exactly where the API's segment count says it will, for GSM-7
// (escapes never cut) and UCS-2 (surrogate pairs never cut); GSM-7 round-trips.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeSms } from '../../src/carriers/smpp/encode.ts';
import { decodeGsm7, gsm7Units } from '../../src/carriers/smpp/gsm7.ts';
import { analyzeSmsBody } from '../../src/modules/messages/encoding.ts';
import { carrierIdVariants, parseReceipt } from '../../src/carriers/smpp/receipt.ts';

const opts = { gsm7DataCoding: 0 as const, longMessages: 'udh' as const, reference: 7 };

test('GSM-7 code points follow GSM 03.38 and round-trip', () => {
  const text = '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./09:;<=>?¡AZÄÖÑÜ§¿azäöñüà^{}\\[~]|€\f';
  const octets = Buffer.concat(gsm7Units(text));
  assert.equal(octets[0], 0x00);
  assert.equal(octets[Buffer.concat(gsm7Units('@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ')).length], 0x1c); // Æ after ESC's slot
  assert.deepEqual([...Buffer.concat(gsm7Units('¡Ä§¿äà€'))], [0x40, 0x5b, 0x5f, 0x60, 0x7b, 0x7f, 0x1b, 0x65]);
  assert.equal(decodeGsm7(octets), text);
});

test('parts match the API segment count for every length and alphabet', () => {
  const alphabets = ['a', '€', 'é', 'ж', '👋', 'a€', 'ж👋'];
  for (const chars of alphabets) {
    for (let n = 1; n <= 400; n += 7) {
      const body = [...chars.repeat(n)].slice(0, n).join('');
      const parts = encodeSms(body, opts);
      assert.equal(parts.length, analyzeSmsBody(body).segments, `${JSON.stringify(chars)} x ${n}`);
      // UCS-2 octets are what goes on air; GSM-7 travels one septet per octet and the SMSC packs
      // 160 septets (153 + the UDH's 7) into 140 octets.
      for (const p of parts) assert.ok(p.payload.length <= (p.dataCoding === 8 ? 140 : 160), 'no part exceeds one SMS');
    }
  }
});

test('message_payload sends a long message whole, in one PDU', () => {
  const parts = encodeSms('x'.repeat(500), { ...opts, longMessages: 'message_payload' });
  assert.equal(parts.length, 1);
  assert.equal(parts[0]!.viaPayloadTlv, true);
  assert.equal(parts[0]!.payload.length, 500);
});

test('receipts: TLVs win, the text form alone works, ids match across hex and decimal', () => {
  const text = 'id:0A1B sub:001 dlvrd:000 submit date:2611230830 done date:2611230831 stat:UNDELIV err:034 text:';
  assert.deepEqual(parseReceipt({ esm_class: 4 } as any, text), { carrierMessageId: '0A1B', outcome: 'undelivered', state: 'UNDELIV', error: '034' });
  assert.deepEqual(parseReceipt({ esm_class: 4, receipted_message_id: 'abc', message_state: 2 } as any, text), { carrierMessageId: 'abc', outcome: 'delivered', state: 'DELIVRD', error: '034' });
  assert.equal(parseReceipt({ esm_class: 4 } as any, 'no fields'), null);
  assert.ok(carrierIdVariants('0A1B').includes('2587'));
});

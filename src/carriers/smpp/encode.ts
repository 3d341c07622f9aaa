// How one outbound SMS becomes submit_sm PDUs on a bind: GSM-7 (with the bind's data_coding,
// 0 or 1) when every character fits, else UCS-2 (data_coding 8, UTF-16BE). A long message is
// split into concatenated parts with a UDH (8-bit reference) or sent whole in the
// message_payload TLV, per bind. Parts are cut on character boundaries, never inside an
// escape pair or a surrogate pair, so the count matches the `segments` the API reports.
import { gsm7Units, isGsm7 } from './gsm7.ts';

export interface EncodedPart {
  /** Octets for short_message (UDH included) or message_payload. */
  payload: Buffer;
  viaPayloadTlv: boolean;
  esmClass: number;
  dataCoding: number;
}

export interface EncodeOptions {
  gsm7DataCoding: 0 | 1;
  longMessages: 'udh' | 'message_payload';
  /** The concatenation reference (0-255) shared by this message's parts. */
  reference: number;
}

const LIMITS = { gsm7: { single: 160, part: 153 }, ucs2: { single: 140, part: 134 } } as const;
const UDHI = 0x40;

export function encodeSms(body: string, opts: EncodeOptions): EncodedPart[] {
  const gsm = isGsm7(body);
  const dataCoding = gsm ? opts.gsm7DataCoding : 8;
  // Units are characters as octets: GSM-7 septets (1 or 2), or UTF-16BE (2 or 4 for an emoji).
  const units: Buffer[] = gsm ? gsm7Units(body) : [...body].map((c) => Buffer.from(c, 'utf16le').swap16());
  const total = units.reduce((n, u) => n + u.length, 0);
  const limits = gsm ? LIMITS.gsm7 : LIMITS.ucs2;
  if (total <= limits.single || opts.longMessages === 'message_payload') {
    return [{ payload: Buffer.concat(units), viaPayloadTlv: total > limits.single, esmClass: 0, dataCoding }];
  }
  const chunks: Buffer[][] = [[]];
  let used = 0;
  for (const unit of units) {
    if (used + unit.length > limits.part) {
      chunks.push([]);
      used = 0;
    }
    chunks[chunks.length - 1]!.push(unit);
    used += unit.length;
  }
  return chunks.map((chunk, i) => ({
    payload: Buffer.concat([Buffer.from([0x05, 0x00, 0x03, opts.reference & 0xff, chunks.length, i + 1]), ...chunk]),
    viaPayloadTlv: false,
    esmClass: UDHI,
    dataCoding,
  }));
}

// SMS encoding choice and segment count per 3GPP TS 23.038 (GSM 03.38), used
// for pricing and for the `segments` field of a message. Concatenated parts
// lose 7 septets (GSM-7) or 3 UTF-16 units (UCS-2) to the 6-byte UDH.

export type SmsEncoding = 'gsm7' | 'ucs2';

export interface SmsBodyAnalysis {
  encoding: SmsEncoding;
  segments: number;
  /** Septets for gsm7 (escaped characters count 2), UTF-16 code units for ucs2. */
  units: number;
}

// The GSM 03.38 default alphabet, in code order. ESC (0x1B) is left out: it is
// the escape prefix itself and a body can't carry it as a character.
const GSM7_BASIC = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
    '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
// Extension table: sent as ESC + code, so 2 septets each.
const GSM7_EXTENSION = new Set('^{}\\[~]|€\f');

const LIMITS: Record<SmsEncoding, { single: number; perPart: number }> = {
  gsm7: { single: 160, perPart: 153 },
  ucs2: { single: 70, perPart: 67 },
};

/**
 * An empty body counts as 1 segment: that is what carriers bill for a
 * zero-length PDU. The messages API rejects empty bodies before this matters.
 */
export function analyzeSmsBody(body: string): SmsBodyAnalysis {
  // Code points, so an emoji's surrogate pair stays one indivisible item.
  const characters = [...body];
  const encoding: SmsEncoding = characters.every((c) => GSM7_BASIC.has(c) || GSM7_EXTENSION.has(c)) ? 'gsm7' : 'ucs2';
  const sizes = characters.map((c) => (encoding === 'gsm7' ? (GSM7_EXTENSION.has(c) ? 2 : 1) : c.length));
  const units = sizes.reduce((sum, size) => sum + size, 0);
  const { single, perPart } = LIMITS[encoding];
  return { encoding, units, segments: units <= single ? 1 : countParts(sizes, perPart) };
}

/**
 * Greedy packing as real encoders do it: a 2-unit item (escape pair or
 * surrogate pair) that doesn't fit in what is left of a part starts the next
 * part, so parts can end one unit short.
 */
function countParts(sizes: number[], perPart: number): number {
  let parts = 1;
  let used = 0;
  for (const size of sizes) {
    if (used + size > perPart) {
      parts++;
      used = 0;
    }
    used += size;
  }
  return parts;
}

// GSM 03.38 default alphabet, as SMPP carries it: one septet value per octet (unpacked),
// extension characters as ESC (0x1B) + code. Packing into 7-bit is the SMSC's job.
const BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\x1bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const EXTENSION: Record<string, number> = { '\f': 0x0a, '^': 0x14, '{': 0x28, '}': 0x29, '\\': 0x2f, '[': 0x3c, '~': 0x3d, ']': 0x3e, '|': 0x40, '€': 0x65 };
const ESC = 0x1b;

const toCode = new Map<string, number>([...BASIC].map((c, i) => [c, i]));
toCode.delete('\x1b');
const fromExtension = new Map<number, string>(Object.entries(EXTENSION).map(([c, code]) => [code, c]));

export function isGsm7(text: string): boolean {
  for (const c of text) if (!toCode.has(c) && EXTENSION[c] === undefined) return false;
  return true;
}

/** One array of septet sequences per character (1 or 2 octets), so splitting never cuts an escape. */
export function gsm7Units(text: string): Buffer[] {
  return [...text].map((c) => {
    const code = toCode.get(c);
    if (code !== undefined) return Buffer.from([code]);
    const ext = EXTENSION[c];
    if (ext === undefined) throw new Error(`"${c}" is not in the GSM 03.38 alphabet`);
    return Buffer.from([ESC, ext]);
  });
}

export function decodeGsm7(octets: Buffer): string {
  let out = '';
  for (let i = 0; i < octets.length; i++) {
    const b = octets[i]! & 0x7f;
    if (b === ESC && i + 1 < octets.length) {
      out += fromExtension.get(octets[++i]! & 0x7f) ?? ' ';
      continue;
    }
    out += BASIC[b] ?? ' ';
  }
  return out;
}

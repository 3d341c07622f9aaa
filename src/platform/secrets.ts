// Secret generation and hashing. API keys carry 32 random bytes in base62 (43 characters);
// only their SHA-256 is stored. High-entropy secrets need no salt or slow hash.
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function base62(bytes: Buffer, length: number): string {
  let n = BigInt('0x' + bytes.toString('hex'));
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(length, '0');
}

export const KEY_BODY_LENGTH = 43; // ceil(256 / log2(62))

export function newKeySecret(prefix: string): string {
  return prefix + base62(randomBytes(32), KEY_BODY_LENGTH);
}

/** One-shot hashing (no Hash object per call): it runs on every authenticated request. */
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

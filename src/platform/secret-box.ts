// Signing secrets must be usable for signing, so unlike API keys they cannot be hashed.
// They, and every response the idempotency store keeps for replay (one may hold a new API
// key or signing secret), are stored encrypted with AES-256-GCM: the key comes from SWITCHBOARD_SECRET_KEY
// (any string; its SHA-256 is the key), or else from a key file generated once in the data
// dir (mode 0600). A database dump alone therefore never reveals a signing secret.
// Several nodes sharing one PostgreSQL database must share SWITCHBOARD_SECRET_KEY.
import { createCipheriv, createDecipheriv, createHash, randomBytes, randomFillSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const VERSION = 'v1';
const KEY_FILE = 'webhook-secrets.key';
const IV_BYTES = 12;

// Every idempotent write seals its stored answer, and randomBytes() per IV was a visible
// share of POST /v1/calls' CPU (issue 29): IVs are drawn from a pool of CSPRNG bytes
// instead, each byte used once, so IVs stay random and never repeat a draw.
const ivPool = Buffer.allocUnsafe(IV_BYTES * 512);
let ivOffset = ivPool.length;

function freshIv(): Buffer {
  if (ivOffset + IV_BYTES > ivPool.length) {
    randomFillSync(ivPool);
    ivOffset = 0;
  }
  const iv = Buffer.from(ivPool.subarray(ivOffset, ivOffset + IV_BYTES));
  ivOffset += IV_BYTES;
  return iv;
}

export class SecretBox {
  private readonly cache = new Map<string, string>();

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('SecretBox needs a 32-byte key');
  }

  static fromConfig(config: { secretKey: string | undefined; dataDir: string }): SecretBox {
    if (config.secretKey) return new SecretBox(createHash('sha256').update(config.secretKey).digest());
    const file = join(config.dataDir, KEY_FILE);
    if (!existsSync(file)) {
      mkdirSync(config.dataDir, { recursive: true });
      try {
        // 'wx' fails if another process created it meanwhile; then we read theirs.
        writeFileSync(file, randomBytes(32).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    return new SecretBox(key);
  }

  /** "v1:" + base64(iv | tag | ciphertext). */
  seal(plaintext: string): string {
    const iv = freshIv();
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  /** Decrypts (memoised: the delivery hot path opens the same few secrets again and again). */
  open(sealed: string): string {
    const hit = this.cache.get(sealed);
    if (hit !== undefined) return hit;
    const plain = this.openOnce(sealed);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(sealed, plain);
    return plain;
  }

  /** Decrypts without memoising: for large, rarely read values (stored idempotent responses). */
  openOnce(sealed: string): string {
    if (!SecretBox.isSealed(sealed)) throw new Error('unknown secret encoding');
    const raw = Buffer.from(sealed.slice(VERSION.length + 1), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }

  static isSealed(text: string): boolean {
    return text.startsWith(`${VERSION}:`);
  }
}

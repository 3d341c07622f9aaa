// Resource ids: prefix + UUIDv7 as a TypeID (opaque, K-sortable). We generate the UUIDv7
// ourselves with a monotonic counter so two ids made in the same millisecond still sort
// in creation order: cursor pagination relies on id order being creation order.
import { randomFillSync } from 'node:crypto';

export const ID_PREFIXES = {
  account: 'acct',
  key: 'key',
  call: 'call',
  conference: 'conf',
  message: 'msg',
  number: 'num',
  recording: 'rec',
  stream: 'stream',
  agent: 'agent',
  document: 'doc',
  conversation: 'conv',
  event: 'evt',
  webhook: 'wh',
  delivery: 'dlv',
  port: 'port',
  queue: 'queue',
  queueMember: 'qmem',
  worker: 'wrk',
  monitor: 'mon',
  job: 'job',
  request: 'req',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

// randomBytes() per id costs more than the rest of id generation; draw from a pool instead.
const pool = Buffer.allocUnsafe(4096);
let poolOffset = pool.length;

function randomInto(target: Buffer, at: number, length: number): void {
  if (poolOffset + length > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  pool.copy(target, at, poolOffset, poolOffset + length);
  poolOffset += length;
}

let lastMs = 0;
let counter = 0; // 12-bit sequence in rand_a, per RFC 9562 method 1

/** 16 bytes of UUIDv7: 48-bit milliseconds, version 7 + 12-bit counter, variant + 62 random bits. */
function uuidv7Bytes(): Buffer {
  let ms = Date.now();
  if (ms <= lastMs) {
    counter += 1;
    if (counter > 0xfff) {
      lastMs += 1; // borrow the next millisecond rather than lose ordering
      counter = 0;
    }
    ms = lastMs;
  } else {
    lastMs = ms;
    counter = 0;
  }
  const bytes = Buffer.allocUnsafe(16);
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = 0x70 | ((counter >> 8) & 0x0f);
  bytes[7] = counter & 0xff;
  randomInto(bytes, 8, 8);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  return bytes;
}

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * TypeID's suffix: the 128 bits in Crockford base32 (lower case), 26 characters, the first
 * carrying the top 3 bits. Written directly from the bytes because id generation runs on
 * every request (request ids) and typeid-js goes through a UUID string and back.
 */
function typeIdSuffix(bytes: Buffer): string {
  let out = ALPHABET[bytes[0]! >> 5]!;
  let acc = bytes[0]! & 0x1f;
  let bits = 5;
  for (let i = 1; i < 16; i++) {
    acc = (acc << 8) | bytes[i]!;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(acc >> bits) & 0x1f];
    }
    acc &= (1 << bits) - 1;
  }
  return out;
}

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${typeIdSuffix(uuidv7Bytes())}`;
}

/** True when `id` is syntactically an id of `kind`; used to 404 early on foreign ids. */
export function isIdOf(kind: IdKind, id: string): boolean {
  const prefix = ID_PREFIXES[kind];
  return id.length === prefix.length + 27 && id.startsWith(`${prefix}_`) && /^[0-7][0-9a-hjkmnp-tv-z]{25}$/.test(id.slice(prefix.length + 1));
}

// Resource ids: prefix + UUIDv7 as a TypeID (opaque, K-sortable). We generate the UUIDv7
// ourselves with a monotonic counter so two ids made in the same millisecond still sort
// in creation order: cursor pagination relies on id order being creation order.
import { randomFillSync } from 'node:crypto';
import { TypeID } from 'typeid-js';

export const ID_PREFIXES = {
  account: 'acct',
  key: 'key',
  call: 'call',
  message: 'msg',
  number: 'num',
  recording: 'rec',
  agent: 'agent',
  document: 'doc',
  conversation: 'conv',
  event: 'evt',
  webhook: 'wh',
  delivery: 'dlv',
  port: 'port',
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

function uuidv7(): string {
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
  randomInto(bytes, 6, 10);
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = 0x70 | ((counter >> 8) & 0x0f);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function newId(kind: IdKind): string {
  return TypeID.fromUUID(ID_PREFIXES[kind], uuidv7()).toString();
}

/** True when `id` is syntactically an id of `kind`; used to 404 early on foreign ids. */
export function isIdOf(kind: IdKind, id: string): boolean {
  const prefix = ID_PREFIXES[kind];
  return id.length === prefix.length + 27 && id.startsWith(`${prefix}_`) && /^[0-7][0-9a-hjkmnp-tv-z]{25}$/.test(id.slice(prefix.length + 1));
}

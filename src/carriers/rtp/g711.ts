// G.711 companding (ITU-T G.711): µ-law (PCMU, RTP payload type 0) and A-law (PCMA, type 8).
// Both directions go through lookup tables built once at load: decoding is one read per
// sample and encoding one read per sample, which keeps a 20 ms frame far below a
// microsecond of work per call on the media thread.

export type G711Codec = 'PCMU' | 'PCMA';

/** Static RTP payload types of the two codecs (RFC 3551). */
export const STATIC_PAYLOAD_TYPES: Record<G711Codec, number> = { PCMU: 0, PCMA: 8 };

// µ-law on 14-bit magnitudes (the low two bits of a 16-bit sample carry nothing it can code).
const ULAW_BIAS = 0x84;
const ULAW_CLIP = 8159;

function ulawEncodeSample(sample: number): number {
  let value = sample >> 2;
  let mask: number;
  if (value < 0) {
    value = -value;
    mask = 0x7f;
  } else {
    mask = 0xff;
  }
  if (value > ULAW_CLIP) value = ULAW_CLIP;
  value += ULAW_BIAS >> 2;
  let segment = 0;
  while (segment < 8 && value > (0x40 << segment) - 1) segment++;
  if (segment >= 8) return 0x7f ^ mask;
  return ((segment << 4) | ((value >> (segment + 1)) & 0x0f)) ^ mask;
}

function ulawDecodeSample(code: number): number {
  const inverted = ~code & 0xff;
  const magnitude = (((inverted & 0x0f) << 3) + ULAW_BIAS) << ((inverted & 0x70) >> 4);
  return inverted & 0x80 ? ULAW_BIAS - magnitude : magnitude - ULAW_BIAS;
}

function alawEncodeSample(sample: number): number {
  // A-law works on 13-bit magnitudes; even bits are inverted on the wire (the 0x55 mask).
  let value = sample >> 3;
  let mask: number;
  if (value >= 0) {
    mask = 0xd5;
  } else {
    mask = 0x55;
    value = -value - 1;
  }
  let segment = 0;
  while (segment < 8 && value > (0x20 << segment) - 1) segment++;
  if (segment >= 8) return 0x7f ^ mask;
  const step = segment < 2 ? (value >> 1) & 0x0f : (value >> segment) & 0x0f;
  return ((segment << 4) | step) ^ mask;
}

function alawDecodeSample(code: number): number {
  const value = code ^ 0x55;
  const segment = (value & 0x70) >> 4;
  let magnitude = (value & 0x0f) << 4;
  if (segment === 0) magnitude += 8;
  else magnitude = (magnitude + 0x108) << (segment - 1);
  return value & 0x80 ? magnitude : -magnitude;
}

function buildDecodeTable(decode: (code: number) => number): Int16Array {
  return Int16Array.from({ length: 256 }, (_, code) => decode(code));
}

function buildEncodeTable(encode: (sample: number) => number): Uint8Array {
  const table = new Uint8Array(65536);
  for (let i = 0; i < 65536; i++) table[i] = encode(i - 32768);
  return table;
}

const DECODE: Record<G711Codec, Int16Array> = { PCMU: buildDecodeTable(ulawDecodeSample), PCMA: buildDecodeTable(alawDecodeSample) };
const ENCODE: Record<G711Codec, Uint8Array> = { PCMU: buildEncodeTable(ulawEncodeSample), PCMA: buildEncodeTable(alawEncodeSample) };

/** The byte a silent sample encodes to (what a lost frame is filled with on the wire). */
export function silenceByte(codec: G711Codec): number {
  return ENCODE[codec][32768] as number;
}

export function encodeG711(codec: G711Codec, pcm: Int16Array, out: Uint8Array = new Uint8Array(pcm.length)): Uint8Array {
  const table = ENCODE[codec];
  for (let i = 0; i < pcm.length; i++) out[i] = table[(pcm[i] as number) + 32768] as number;
  return out;
}

export function decodeG711(codec: G711Codec, payload: Uint8Array, out: Int16Array = new Int16Array(payload.length)): Int16Array {
  const table = DECODE[codec];
  for (let i = 0; i < payload.length; i++) out[i] = table[payload[i] as number] as number;
  return out;
}

export function codecOfPayloadType(payloadType: number): G711Codec | undefined {
  if (payloadType === 0) return 'PCMU';
  if (payloadType === 8) return 'PCMA';
  return undefined;
}

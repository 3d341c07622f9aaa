// Mobile-originated messages (deliver_sm without the receipt flag): user data decoded per
// data_coding, and the concatenation header found in a UDH (IE 0x00, 8-bit reference, or
// IE 0x08, 16-bit) or in the sar_* TLVs. Parts are kept as raw octets until all have arrived,
// because a UCS-2 character (an emoji's surrogate pair) may be split across two parts.
import type { Pdu } from 'smpp';
import { decodeGsm7 } from './gsm7.ts';

export interface MoPart {
  from: string;
  to: string;
  dataCoding: number;
  /** User data without the UDH. */
  octets: Buffer;
  concat: { reference: number; total: number; sequence: number } | null;
}

const UDHI = 0x40;

export function parseMo(pdu: Pdu): MoPart {
  const raw = userData(pdu);
  let octets = raw;
  let concat: MoPart['concat'] = null;
  if ((Number(pdu.esm_class) & UDHI) && raw.length > 0) {
    const udhLength = raw[0]!;
    const udh = raw.subarray(1, 1 + udhLength);
    octets = raw.subarray(1 + udhLength);
    for (let i = 0; i + 1 < udh.length; i += 2 + udh[i + 1]!) {
      const [iei, len] = [udh[i]!, udh[i + 1]!];
      if (iei === 0x00 && len === 3) concat = { reference: udh[i + 2]!, total: udh[i + 3]!, sequence: udh[i + 4]! };
      if (iei === 0x08 && len === 4) concat = { reference: udh.readUInt16BE(i + 2), total: udh[i + 4]!, sequence: udh[i + 5]! };
    }
  } else if (pdu.sar_msg_ref_num !== undefined && pdu.sar_total_segments !== undefined) {
    concat = { reference: Number(pdu.sar_msg_ref_num), total: Number(pdu.sar_total_segments), sequence: Number(pdu.sar_segment_seqnum) };
  }
  if (concat && (concat.total < 1 || concat.sequence < 1 || concat.sequence > concat.total)) concat = null;
  if (concat?.total === 1) concat = null;
  return { from: normalise(pdu.source_addr), to: normalise(pdu.destination_addr), dataCoding: Number(pdu.data_coding) & 0xff, octets, concat };
}

/** Text from the reassembled octets of one message. */
export function decodeUserData(octets: Buffer, dataCoding: number): string {
  switch (dataCoding & 0x0f) {
    case 0x08:
      return Buffer.from(octets.subarray(0, octets.length - (octets.length % 2))).swap16().toString('utf16le');
    case 0x03:
      return octets.toString('latin1');
    case 0x01:
      return octets.toString('ascii');
    default:
      return decodeGsm7(octets);
  }
}

/** E.164 with its +: SMSCs send international numbers without it (TON 1). */
export function normalise(address: unknown): string {
  const s = String(address ?? '').trim();
  return /^\d{7,15}$/.test(s) ? `+${s}` : s;
}

function userData(pdu: Pdu): Buffer {
  for (const field of [pdu.message_payload, pdu.short_message]) {
    if (Buffer.isBuffer(field) && field.length > 0) return field;
  }
  return Buffer.alloc(0);
}

// RTP packets (RFC 3550 section 5.1): the fixed 12-byte header, CSRCs, one header
// extension and padding are understood on input; we emit the plain 12-byte form.

export interface RtpPacket {
  payloadType: number;
  marker: boolean;
  sequence: number;
  timestamp: number;
  ssrc: number;
  payload: Uint8Array;
}

const RTP_VERSION = 2;
const FIXED_HEADER = 12;

/** Parses one datagram; returns undefined for anything that is not RTP version 2 (STUN, RTCP, garbage). */
export function parseRtp(datagram: Uint8Array): RtpPacket | undefined {
  if (datagram.length < FIXED_HEADER) return undefined;
  const first = datagram[0] as number;
  if (first >> 6 !== RTP_VERSION) return undefined;
  const second = datagram[1] as number;
  const payloadType = second & 0x7f;
  // RTCP shares the port when rtcp-mux is used: its packet types 200-204 land on 72-76 here.
  if (payloadType >= 72 && payloadType <= 76) return undefined;
  const view = new DataView(datagram.buffer, datagram.byteOffset, datagram.byteLength);
  let offset = FIXED_HEADER + (first & 0x0f) * 4;
  if (first & 0x10) {
    if (offset + 4 > datagram.length) return undefined;
    offset += 4 + view.getUint16(offset + 2) * 4;
  }
  let end = datagram.length;
  if (first & 0x20) end -= datagram[datagram.length - 1] as number;
  if (offset > end) return undefined;
  return {
    payloadType,
    marker: (second & 0x80) !== 0,
    sequence: view.getUint16(2),
    timestamp: view.getUint32(4),
    ssrc: view.getUint32(8),
    payload: datagram.subarray(offset, end),
  };
}

export function serializeRtp(packet: RtpPacket): Buffer {
  const out = Buffer.allocUnsafe(FIXED_HEADER + packet.payload.length);
  out[0] = RTP_VERSION << 6;
  out[1] = (packet.marker ? 0x80 : 0) | (packet.payloadType & 0x7f);
  out.writeUInt16BE(packet.sequence & 0xffff, 2);
  out.writeUInt32BE(packet.timestamp >>> 0, 4);
  out.writeUInt32BE(packet.ssrc >>> 0, 8);
  out.set(packet.payload, FIXED_HEADER);
  return out;
}

// Reads the RTP captures that ship with SIPp (classic libpcap, Ethernet, IPv4, UDP) so tests
// can replay real-world media that nobody here produced.
import { readFileSync } from 'node:fs';
import { parseRtp, type RtpPacket } from '../../src/carriers/rtp/packet.ts';

export interface CapturedRtp extends RtpPacket {
  /** Capture time relative to the first packet, in milliseconds. */
  atMs: number;
  datagram: Buffer;
}

export function readRtpPcap(path: string): CapturedRtp[] {
  const file = readFileSync(path);
  if (file.readUInt32LE(0) !== 0xa1b2c3d4) throw new Error(`${path}: not a little-endian classic pcap`);
  if (file.readUInt32LE(20) !== 1) throw new Error(`${path}: link type ${file.readUInt32LE(20)} is not Ethernet`);
  const packets: CapturedRtp[] = [];
  let offset = 24;
  let firstUs: number | undefined;
  while (offset + 16 <= file.length) {
    const timeUs = file.readUInt32LE(offset) * 1e6 + file.readUInt32LE(offset + 4);
    const captured = file.readUInt32LE(offset + 8);
    const frame = file.subarray(offset + 16, offset + 16 + captured);
    offset += 16 + captured;
    if (frame.readUInt16BE(12) !== 0x0800) continue;
    const ip = frame.subarray(14);
    if (ip[9] !== 17) continue;
    const udp = ip.subarray(((ip[0] as number) & 0x0f) * 4);
    const datagram = Buffer.from(udp.subarray(8, udp.readUInt16BE(4)));
    const rtp = parseRtp(datagram);
    if (!rtp) continue;
    firstUs ??= timeUs;
    packets.push({ ...rtp, atMs: (timeUs - firstUs) / 1000, datagram });
  }
  return packets;
}

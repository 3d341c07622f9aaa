// Reads the RTP captures that ship with SIPp (classic libpcap, Ethernet, IPv4, UDP) so tests
// can replay real-world media that nobody here produced.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseRtp, type RtpPacket } from '../../src/carriers/rtp/packet.ts';
import { decodeG711 } from '../../src/carriers/rtp/g711.ts';

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

/**
 * Writes `payloads` (one per 20 ms) as a classic pcap of RTP over UDP/IPv4/Ethernet, the form
 * SIPp's play_pcap_audio replays with the capture's timing: tests stream audio made at test time.
 */
export function writeRtpPcap(path: string, payloads: Uint8Array[], payloadType = 0): void {
  const header = Buffer.alloc(24);
  header.writeUInt32LE(0xa1b2c3d4, 0);
  header.writeUInt16LE(2, 4);
  header.writeUInt16LE(4, 6);
  header.writeUInt32LE(65535, 16);
  header.writeUInt32LE(1, 20); // Ethernet
  const records: Buffer[] = [header];
  payloads.forEach((payload, n) => {
    const rtp = Buffer.alloc(12 + payload.length);
    rtp[0] = 0x80;
    rtp[1] = payloadType & 0x7f;
    rtp.writeUInt16BE(n & 0xffff, 2);
    rtp.writeUInt32BE((n * payload.length) >>> 0, 4);
    rtp.writeUInt32BE(0x5b0a7e57, 8);
    Buffer.from(payload).copy(rtp, 12);
    const udp = Buffer.alloc(8);
    udp.writeUInt16BE(9000, 0);
    udp.writeUInt16BE(9002, 2);
    udp.writeUInt16BE(8 + rtp.length, 4);
    const ip = Buffer.alloc(20);
    ip[0] = 0x45;
    ip.writeUInt16BE(20 + udp.length + rtp.length, 2);
    ip[8] = 64;
    ip[9] = 17;
    Buffer.from([127, 0, 0, 1, 127, 0, 0, 1]).copy(ip, 12);
    let sum = 0;
    for (let i = 0; i < 20; i += 2) sum += ip.readUInt16BE(i);
    while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
    ip.writeUInt16BE(~sum & 0xffff, 10);
    const ethernet = Buffer.alloc(14);
    ethernet.writeUInt16BE(0x0800, 12);
    const frame = Buffer.concat([ethernet, ip, udp, rtp]);
    const record = Buffer.alloc(16);
    const us = n * 20_000;
    record.writeUInt32LE(1_700_000_000 + Math.floor(us / 1e6), 0);
    record.writeUInt32LE(us % 1e6, 4);
    record.writeUInt32LE(frame.length, 8);
    record.writeUInt32LE(frame.length, 12);
    records.push(record, frame);
  });
  writeFileSync(path, Buffer.concat(records));
}

/** SIPp's A-law capture as 8 kHz PCM: what a SIPp scenario that plays g711a.pcap streams. */
export function sippAudio(): Int16Array {
  const sent = readRtpPcap('/usr/share/sip-tester/g711a.pcap').map((p) => decodeG711('PCMA', p.payload));
  const reference = new Int16Array(sent.reduce((n, p) => n + p.length, 0));
  sent.reduce((at, p) => (reference.set(p, at), at + p.length), 0);
  return reference;
}

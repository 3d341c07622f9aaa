// A SIPp trunk that answers and sends one steady tone (its own pitch, so a test can tell who is
// heard where with a Goertzel filter), then waits for our BYE: the scenario
// uas-answer-speak.xml.tpl with a capture written at test time, answered in µ-law or A-law.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeRtpPcap } from './pcap.ts';
import { SCENARIOS } from './sipp.ts';
import { encodeG711, type G711Codec } from '../../src/carriers/rtp/g711.ts';

const RATE = 8000;

/** The scenario's path: answers in `codec`, sends `seconds` of `hz` at amplitude 6000 after 0.6 s. */
export function toneTrunk(hz: number, codec: G711Codec, seconds = 30): string {
  const dir = mkdtempSync(join(tmpdir(), 'sb-tone-'));
  const tone = Int16Array.from({ length: RATE * seconds }, (_, i) => Math.round(6000 * Math.sin((2 * Math.PI * hz * i) / RATE)));
  const line = encodeG711(codec, tone);
  const payloads: Uint8Array[] = [];
  for (let at = 0; at + 160 <= line.length; at += 160) payloads.push(line.subarray(at, at + 160));
  const payloadType = codec === 'PCMU' ? 0 : 8;
  writeRtpPcap(join(dir, 'tone.pcap'), payloads, payloadType);
  const scenario = join(dir, 'uas-tone.xml');
  writeFileSync(scenario, readFileSync(join(SCENARIOS, 'uas-answer-speak.xml.tpl'), 'utf8')
    .replace('PCAP_PATH', join(dir, 'tone.pcap'))
    .replace('RTP/AVP 0 101', `RTP/AVP ${payloadType} 101`)
    .replace('a=rtpmap:0 PCMU/8000', `a=rtpmap:${payloadType} ${codec}/8000`));
  return scenario;
}

// SDP offer/answer (RFC 3264 / RFC 4566) for one audio stream: G.711 (PCMU, PCMA) and
// RFC 4733 telephone-event. We offer both codecs in the trunk's order of preference and
// answer with the first codec of ours the offer contains, keeping the offerer's payload
// type for telephone-event.
import type { G711Codec } from '../rtp/g711.ts';
import { STATIC_PAYLOAD_TYPES } from '../rtp/g711.ts';

export interface AudioDescription {
  address: string;
  port: number;
  /** Payload types in the order listed on the m= line. */
  formats: { payloadType: number; name: string; rate: number }[];
  direction: 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive';
}

export interface NegotiatedMedia {
  address: string;
  port: number;
  codec: G711Codec;
  payloadType: number;
  dtmfPayloadType: number | null;
}

export class SdpError extends Error {}

const STATIC_NAMES: Record<number, string> = { 0: 'PCMU', 8: 'PCMA', 9: 'G722', 18: 'G729', 3: 'GSM' };

export function parseSdp(text: string): AudioDescription {
  let sessionAddress: string | undefined;
  let audio: AudioDescription | undefined;
  let inAudio = false;
  let sessionDirection: AudioDescription['direction'] = 'sendrecv';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.length < 2 || line[1] !== '=') continue;
    const type = line[0];
    const value = line.slice(2);
    if (type === 'm') {
      inAudio = false;
      const match = /^audio (\d+)(?:\/\d+)? (RTP\/AVP|RTP\/SAVP|RTP\/AVPF|RTP\/SAVPF|UDP\/TLS\/RTP\/SAVPF) ?(.*)$/.exec(value);
      if (match && !audio) {
        inAudio = true;
        audio = {
          address: sessionAddress ?? '',
          port: Number(match[1]),
          formats: (match[3] ?? '').split(/\s+/).filter(Boolean).map((pt) => ({ payloadType: Number(pt), name: STATIC_NAMES[Number(pt)] ?? '', rate: 8000 })),
          direction: sessionDirection,
        };
      }
    } else if (type === 'c') {
      const match = /^IN IP[46] (\S+)/.exec(value);
      if (match) {
        if (inAudio && audio) audio.address = match[1] as string;
        else if (!audio) sessionAddress = match[1];
      }
    } else if (type === 'a') {
      const rtpmap = /^rtpmap:(\d+) ([^/\s]+)\/(\d+)/.exec(value);
      if (rtpmap && inAudio && audio) {
        const format = audio.formats.find((f) => f.payloadType === Number(rtpmap[1]));
        if (format) {
          format.name = rtpmap[2] as string;
          format.rate = Number(rtpmap[3]);
        }
      }
      if (value === 'sendrecv' || value === 'sendonly' || value === 'recvonly' || value === 'inactive') {
        if (inAudio && audio) audio.direction = value;
        else if (!audio) sessionDirection = value;
      }
    }
  }
  if (!audio) throw new SdpError('the SDP has no audio stream');
  if (!audio.address) throw new SdpError('the SDP audio stream has no connection address');
  return audio;
}

/** Picks what both sides support: our first preferred codec that the other side lists. */
export function negotiate(remote: AudioDescription, preferred: readonly G711Codec[]): NegotiatedMedia {
  const codec = preferred.find((name) => remote.formats.some((f) => f.name.toUpperCase() === name && f.rate === 8000));
  if (!codec) throw new SdpError(`no common codec: offered ${remote.formats.map((f) => f.name || f.payloadType).join(', ')}, we support ${preferred.join(', ')}`);
  const format = remote.formats.find((f) => f.name.toUpperCase() === codec) as { payloadType: number };
  const dtmf = remote.formats.find((f) => f.name.toLowerCase() === 'telephone-event' && f.rate === 8000);
  return { address: remote.address, port: remote.port, codec, payloadType: format.payloadType, dtmfPayloadType: dtmf?.payloadType ?? null };
}

export interface LocalMedia {
  address: string;
  port: number;
  codecs: readonly G711Codec[];
  dtmfPayloadType: number;
  sessionId: number;
  version: number;
}

export function buildSdp(local: LocalMedia): string {
  const family = local.address.includes(':') ? 'IP6' : 'IP4';
  const types = local.codecs.map((c) => STATIC_PAYLOAD_TYPES[c]);
  const lines = [
    'v=0',
    `o=switchboard ${local.sessionId} ${local.version} IN ${family} ${local.address}`,
    's=switchboard',
    `c=IN ${family} ${local.address}`,
    't=0 0',
    `m=audio ${local.port} RTP/AVP ${[...types, local.dtmfPayloadType].join(' ')}`,
    ...local.codecs.map((c) => `a=rtpmap:${STATIC_PAYLOAD_TYPES[c]} ${c}/8000`),
    `a=rtpmap:${local.dtmfPayloadType} telephone-event/8000`,
    `a=fmtp:${local.dtmfPayloadType} 0-16`,
    'a=ptime:20',
    'a=sendrecv',
  ];
  return `${lines.join('\r\n')}\r\n`;
}

// SDP offer/answer (RFC 3264 / RFC 4566) for one audio stream: G.711 (PCMU, PCMA) and
// RFC 4733 telephone-event. SDP is parsed and written by sdp-transform; what we make of it is
// ours. We offer both codecs in the trunk's order of preference and answer with the first
// codec of ours the offer contains, keeping the offerer's payload type for telephone-event.
// An answer has one m-line for each offered one (RFC 3264 section 6): the audio stream we
// take, and every other stream (video, a second audio) refused with port 0. Directions are
// answered as RFC 3264 section 6.1 says (sendonly gets recvonly, inactive gets inactive), and
// media goes to the far end only while it takes it (section 8.4: hold).
import { parse, write, type MediaDescription, type SessionDescription } from 'sdp-transform';
import type { G711Codec } from '../rtp/g711.ts';
import { STATIC_PAYLOAD_TYPES } from '../rtp/g711.ts';
import type { RemoteMedia } from '../rtp/protocol.ts';
import { LINE_RATE } from '../../media/call-file.ts';

export type Direction = 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive';

export interface AudioDescription {
  address: string;
  port: number;
  /** Payload types in the order listed on the m= line. */
  formats: { payloadType: number; name: string; rate: number }[];
  direction: Direction;
}

/** A whole session description: every m-line (an answer mirrors them all) and the audio one we use. */
export interface SessionOffer {
  media: { type: string; port: number; protocol: string; payloads: string }[];
  /** The audio stream we take: the first audio m-line that is not disabled. */
  audio: AudioDescription & { index: number };
  origin: { sessionId: string; version: number };
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
const AUDIO_PROTOCOLS = new Set(['RTP/AVP', 'RTP/SAVP', 'RTP/AVPF', 'RTP/SAVPF', 'UDP/TLS/RTP/SAVPF']);
const DIRECTIONS = new Set<string>(['sendrecv', 'sendonly', 'recvonly', 'inactive']);

export function parseOffer(text: string): SessionOffer {
  let session: SessionDescription;
  try {
    session = parse(text);
  } catch (err) {
    throw new SdpError(`unreadable SDP: ${(err as Error).message}`);
  }
  const media = (session.media ?? []).map((m) => ({ type: m.type, port: Number(m.port), protocol: m.protocol, payloads: String(m.payloads ?? '') }));
  const index = (session.media ?? []).findIndex((m) => m.type === 'audio' && Number(m.port) !== 0 && AUDIO_PROTOCOLS.has(m.protocol));
  const line = session.media?.[index];
  if (!line) throw new SdpError('the SDP has no audio stream');
  const address = line.connection?.ip ?? session.connection?.ip ?? '';
  if (!address) throw new SdpError('the SDP audio stream has no connection address');
  const direction = [line.direction, session.direction].find((d): d is Direction => d !== undefined && DIRECTIONS.has(d)) ?? 'sendrecv';
  return {
    media,
    audio: { index, address, port: Number(line.port), formats: formatsOf(line), direction },
    origin: { sessionId: String(session.origin?.sessionId ?? ''), version: Number(session.origin?.sessionVersion ?? 0) },
  };
}

/** The audio stream of an offer or answer. */
export function parseSdp(text: string): AudioDescription {
  return parseOffer(text).audio;
}

function formatsOf(line: MediaDescription): AudioDescription['formats'] {
  return String(line.payloads ?? '').split(/\s+/).filter(Boolean).map((pt) => {
    const payloadType = Number(pt);
    const rtpmap = line.rtp?.find((r) => r.payload === payloadType);
    return { payloadType, name: rtpmap?.codec ?? STATIC_NAMES[payloadType] ?? '', rate: rtpmap?.rate ?? LINE_RATE };
  });
}

/** Picks what both sides support: our first preferred codec that the other side lists. */
export function negotiate(remote: AudioDescription, preferred: readonly G711Codec[]): NegotiatedMedia {
  const codec = preferred.find((name) => remote.formats.some((f) => f.name.toUpperCase() === name && f.rate === LINE_RATE));
  if (!codec) throw new SdpError(`no common codec: offered ${remote.formats.map((f) => f.name || f.payloadType).join(', ')}, we support ${preferred.join(', ')}`);
  const format = remote.formats.find((f) => f.name.toUpperCase() === codec) as { payloadType: number };
  const dtmf = remote.formats.find((f) => f.name.toLowerCase() === 'telephone-event' && f.rate === LINE_RATE);
  return { address: remote.address, port: remote.port, codec, payloadType: format.payloadType, dtmfPayloadType: dtmf?.payloadType ?? null };
}

/** Whether the far end takes our media: not while it holds the call (sendonly, inactive, or the old 0.0.0.0). */
export function farEndReceives(remote: AudioDescription): boolean {
  return (remote.direction === 'sendrecv' || remote.direction === 'recvonly') && remote.address !== '0.0.0.0' && remote.address !== '::';
}

/** Where and how the media engine sends to the far end, from its offer or answer. */
export function remoteMedia(remote: AudioDescription, preferred: readonly G711Codec[]): RemoteMedia {
  return { ...negotiate(remote, preferred), sending: farEndReceives(remote) };
}

/** Our direction in an answer to an offer of `offered` (RFC 3264 section 6.1). */
export function answerDirection(offered: Direction): Direction {
  if (offered === 'sendonly') return 'recvonly';
  if (offered === 'recvonly') return 'sendonly';
  return offered;
}

export interface LocalMedia {
  address: string;
  port: number;
  codecs: readonly G711Codec[];
  dtmfPayloadType: number;
  sessionId: number | string;
  version: number;
}

/**
 * Our offer (without `offer`), or our answer to `offer`: one m-line for each offered one, the
 * audio stream in the offered direction's answer and every other stream refused with port 0.
 */
export function buildSdp(local: LocalMedia, offer?: SessionOffer): string {
  const ipVer = local.address.includes(':') ? 6 : 4;
  const types = local.codecs.map((c) => STATIC_PAYLOAD_TYPES[c]);
  const audio: MediaDescription = {
    type: 'audio',
    port: local.port,
    protocol: 'RTP/AVP',
    payloads: [...types, local.dtmfPayloadType].join(' '),
    rtp: [...local.codecs.map((c) => ({ payload: STATIC_PAYLOAD_TYPES[c], codec: c, rate: LINE_RATE })), { payload: local.dtmfPayloadType, codec: 'telephone-event', rate: LINE_RATE }],
    fmtp: [{ payload: local.dtmfPayloadType, config: '0-16' }],
    ptime: 20,
    direction: offer ? answerDirection(offer.audio.direction) : 'sendrecv',
  };
  const media: MediaDescription[] = offer
    ? offer.media.map((m, i) => (i === offer.audio.index ? audio : { type: m.type, port: 0, protocol: m.protocol, payloads: m.payloads, rtp: [], fmtp: [] }))
    : [audio];
  return write({
    version: 0,
    origin: { username: 'switchboard', sessionId: local.sessionId, sessionVersion: local.version, netType: 'IN', ipVer, address: local.address },
    name: 'switchboard',
    connection: { version: ipVer, ip: local.address },
    timing: { start: 0, stop: 0 },
    media,
  });
}

/**
 * The answer to a new offer inside a dialog (a re-INVITE or UPDATE: hold, resume, a move), from
 * what we said last (`ours`: our address, port and session) and the codecs we speak, the one in
 * use first. The session version goes up only when the answer differs (RFC 3264 section 8).
 */
export function answerReoffer(ours: string, offerText: string, preferred: readonly G711Codec[]): { sdp: string; media: RemoteMedia } {
  const previous = parseOffer(ours);
  const offer = parseOffer(offerText);
  const media = remoteMedia(offer.audio, preferred);
  const local = {
    address: previous.audio.address,
    port: previous.audio.port,
    codecs: [media.codec],
    dtmfPayloadType: media.dtmfPayloadType ?? 101,
    sessionId: previous.origin.sessionId,
  };
  const same = buildSdp({ ...local, version: previous.origin.version }, offer);
  const sdp = normalise(same) === normalise(ours) ? same : buildSdp({ ...local, version: previous.origin.version + 1 }, offer);
  return { sdp, media };
}

function normalise(sdp: string): string {
  return sdp.replace(/\r\n/g, '\n').trim();
}

// One call leg's media: a UDP socket, what arrives on it (audio into a jitter buffer, DTMF
// into a detector), what goes out every 20 ms (a prompt being played, the bridged leg's
// audio, DTMF, ringback while a second leg rings, or silence), and the call's recording.
// Runs inside the media worker and is driven by its ticker once per 20 ms, taking in
// before sending. A bridge relays the frame its peer took in last: from the same step
// when both legs share a phase of the ticker, else from up to one period earlier; either
// way each frame exactly once, as both legs keep their places in the period.
import type { Socket } from 'node:dgram';
import { decodeG711, encodeG711, codecOfPayloadType, type G711Codec } from './g711.ts';
import { parseRtp, serializeRtp } from './packet.ts';
import { DtmfDetector, DtmfEndDetector, telephoneEventPackets } from './dtmf.ts';
import { EARLY_HOLD_SAMPLES, JitterBuffer } from './jitter-buffer.ts';
import { StreamHearing } from './stream-hearing.ts';
import { VoiceActivity } from './voice-activity.ts';
import { WavStreamWriter, type WavStreamResult } from '../../media/wav-stream.ts';
import { RINGBACK_CYCLE } from './ringback.ts';
import { HOLD_CYCLE, type LegMix } from './conference-mix.ts';
import { BusListener, ConferenceBus } from './conference-bus.ts';
import type { LegStream } from './stream-leg.ts';
import type { MediaCommand, MediaEvent, RemoteMedia, SessionStats } from './protocol.ts';

export const FRAME_SAMPLES = 160;

interface Playback {
  playId: string;
  pcm: Int16Array;
  at: number;
}

interface Outgoing {
  payload: Uint8Array;
  marker: boolean;
  /** DTMF packets share their event's timestamp; audio uses the running one. */
  eventTimestamp?: number;
  payloadType: number;
}

export class RtpSession {
  /** Where media goes: as signalled, or where the far end's media really comes from once latched. */
  private remote: RemoteMedia | undefined;
  /** The far end as its SDP says. */
  private signalled: RemoteMedia | undefined;
  private latched = false;
  private readonly jitter = new JitterBuffer();
  /** What the leg's media streams hear of the far end, sent as it arrives (stream-hearing.ts); made with the first stream, dropped with the last. */
  private hearing: StreamHearing | undefined;
  private readonly dtmf = new DtmfDetector();
  private readonly dtmfEnds = new DtmfEndDetector();
  /** Media streams of this leg (stream-leg.ts), by stream id; at most one of them bidirectional. */
  readonly streams = new Map<string, LegStream>();
  private readonly activity = new VoiceActivity();
  private playQueue: Playback[] = [];
  private dtmfQueue: string[] = [];
  private dtmfPackets: Outgoing[] = [];
  private dtmfGapTicks = 0;
  private recorder: WavStreamWriter | undefined;
  private peer: RtpSession | undefined;
  /** Where in the ringback cadence this leg is while it rings out, else null. */
  private ringbackAt: number | null = null;
  private readonly ssrc = (Math.random() * 0x100000000) >>> 0;
  private sequence = (Math.random() * 0x10000) | 0;
  private timestamp = (Math.random() * 0x100000000) >>> 0;
  private firstSequence: number | undefined;
  private highestSequence = 0;
  private streamSsrc: number | undefined;
  private receivedInStream = 0;
  private lostInEarlierStreams = 0;
  private readonly pcmOut = new Int16Array(FRAME_SAMPLES);
  /** What this leg received in the current tick (read by a bridged peer). */
  readonly pcmIn = new Int16Array(FRAME_SAMPLES);
  private readonly encoded = new Uint8Array(FRAME_SAMPLES);
  readonly stats: SessionStats = { packetsReceived: 0, packetsSent: 0, packetsLost: 0, latePackets: 0, concealedSamples: 0, digits: 0, latchedTo: null };

  constructor(readonly id: string, readonly port: number, private readonly socket: Socket, private readonly emit: (event: MediaEvent) => void) {
    socket.on('message', (datagram, from) => this.receive(datagram, from.address, from.port));
  }

  /** The far end's media, from an offer or answer; a new one (hold, resume, a refresh) keeps the latch unless it moved. */
  setRemote(remote: RemoteMedia): void {
    const moved = remote.address !== this.signalled?.address || remote.port !== this.signalled?.port;
    this.signalled = remote;
    if (moved || !this.latched || !this.remote) {
      this.remote = remote;
      this.latched = false;
    } else {
      this.remote = { ...remote, address: this.remote.address, port: this.remote.port };
    }
  }

  play(playId: string, pcm: Int16Array): void {
    this.playQueue.push({ playId, pcm, at: 0 });
  }

  stopPlayback(): void {
    for (const playback of this.playQueue) this.emit({ type: 'played', id: this.id, playId: playback.playId, interrupted: true });
    this.playQueue = [];
  }

  sendDigits(digits: string): void {
    this.dtmfQueue.push(...digits.split(''));
  }

  async startRecording(path: string): Promise<void> {
    if (this.recorder) throw new Error(`leg ${this.id} is already recording`);
    this.recorder = await WavStreamWriter.create(path);
  }

  async stopRecording(): Promise<WavStreamResult | undefined> {
    const recorder = this.recorder;
    this.recorder = undefined;
    return recorder?.close();
  }

  bridge(peer: RtpSession | undefined): void {
    this.peer = peer;
  }

  private conference: LegMix | undefined;
  private holdAt = 0;

  /**
   * This leg's share of a conference mix (conference-mix.ts), or none: it hears nothing of a
   * conference. A leg that stays on the same bus keeps its place in the slots it heard already.
   */
  mix(mix: Extract<MediaCommand, { op: 'mix' }>['mix']): void {
    if (mix === null) {
      this.conference = undefined;
      return;
    }
    const same = this.conference?.busId === mix.bus ? this.conference : undefined;
    const bus = same?.bus ?? new ConferenceBus(mix.buffer);
    let listener: BusListener | null = null;
    if (mix.hears !== null) listener = same?.listener ? same.listener.rehear(mix.hears) : new BusListener(bus, mix.hears);
    if (mix.hears === null && same?.listener !== null) this.holdAt = 0;
    this.conference = { busId: mix.bus, bus, slot: mix.slot, listener };
  }

  /** Ringback while a second leg rings: heard only when nothing is played and no bridged leg sends early media. */
  ringback(on: boolean): void {
    this.ringbackAt = on ? (this.ringbackAt ?? 0) : null;
  }

  /** Drops the bridge to a leg that is closing. */
  forget(leg: RtpSession): void {
    if (this.peer === leg) this.peer = undefined;
  }

  /** Phase one of a tick: this tick's inbound frame. */
  tickIn(): void {
    if (this.streams.size === 0) this.hearing = undefined;
    else (this.hearing ??= new StreamHearing((pcm) => this.streamsHear(pcm))).tick();
    if (!this.remote) {
      this.pcmIn.fill(0);
      this.conference?.bus.write(this.conference.slot, this.pcmIn);
      return;
    }
    this.jitter.pull(this.pcmIn);
    this.conference?.bus.write(this.conference.slot, this.pcmIn);
    const talking = this.activity.accept(this.pcmIn);
    if (talking === false && this.recorder) {
      // The caller's line has just ended: whoever listens (speech to text) wants its audio now.
      this.emit({ type: 'voice', id: this.id, talking, recorded: this.recorder.flush() });
    } else if (talking !== undefined) this.emit({ type: 'voice', id: this.id, talking });
  }

  /** Phase two: choose, send and record this tick's outbound frame. */
  tickOut(): void {
    const out = this.nextOutbound();
    this.recorder?.write(this.pcmIn, out);
    for (const stream of this.streams.values()) stream.outbound(out);
    this.timestamp = (this.timestamp + FRAME_SAMPLES) >>> 0;
  }

  close(): SessionStats {
    this.stopPlayback();
    this.peer = undefined;
    this.conference = undefined;
    try {
      this.socket.close();
    } catch {
      // already closed
    }
    return this.currentStats();
  }

  currentStats(): SessionStats {
    return { ...this.stats, latePackets: this.jitter.stats.late, concealedSamples: this.jitter.stats.concealedSamples };
  }

  private nextOutbound(): Int16Array {
    const out = this.pcmOut;
    out.fill(0);
    const dtmfPacket = this.nextDtmfPacket();
    if (dtmfPacket) {
      this.send(dtmfPacket);
      return out;
    }
    const playback = this.playQueue[0];
    const listener = this.conference?.listener;
    if (this.appAudio(out)) {
      // A bidirectional stream's app is talking: its audio replaces whatever the leg would
      // play (a prompt waits where it was), and is what the recording's sent channel holds.
    } else if (playback) {
      const chunk = playback.pcm.subarray(playback.at, playback.at + FRAME_SAMPLES);
      out.set(chunk);
      playback.at += chunk.length;
      if (playback.at >= playback.pcm.length) {
        this.playQueue.shift();
        this.emit({ type: 'played', id: this.id, playId: playback.playId, interrupted: false });
      }
      // In a conference a prompt (a beep, an announcement) is heard over the room, not instead of it.
      listener?.mixInto(out);
    } else if (this.peer) {
      out.set(this.peer.pcmIn);
    } else if (listener) {
      listener.mixInto(out);
    } else if (this.conference) {
      out.set(HOLD_CYCLE.subarray(this.holdAt, this.holdAt + FRAME_SAMPLES));
      this.holdAt = (this.holdAt + FRAME_SAMPLES) % HOLD_CYCLE.length;
    } else if (this.ringbackAt !== null) {
      out.set(RINGBACK_CYCLE.subarray(this.ringbackAt, this.ringbackAt + FRAME_SAMPLES));
      this.ringbackAt = (this.ringbackAt + FRAME_SAMPLES) % RINGBACK_CYCLE.length;
    }
    if (this.remote?.sending === false) {
      // On hold: the far end takes nothing, so nothing is sent (and the file's sent channel is silent).
      out.fill(0);
    } else if (this.remote) {
      this.send({ payload: encodeG711(this.remote.codec, out, this.encoded), marker: false, payloadType: this.remote.payloadType });
    }
    return out;
  }

  /** The next frame of a bidirectional stream's app audio into `out`; false when none is queued. */
  private appAudio(out: Int16Array): boolean {
    for (const stream of this.streams.values()) {
      if (stream.order.bidirectional && stream.pull(out)) return true;
    }
    return false;
  }

  private nextDtmfPacket(): Outgoing | undefined {
    if (!this.remote || this.remote.dtmfPayloadType === null) {
      this.dtmfQueue = [];
      return undefined;
    }
    if (this.dtmfPackets.length === 0) {
      if (this.dtmfGapTicks > 0) {
        this.dtmfGapTicks--;
        return undefined;
      }
      const digit = this.dtmfQueue.shift();
      if (digit === undefined) return undefined;
      const eventTimestamp = this.timestamp;
      this.dtmfPackets = telephoneEventPackets(digit).map((p) => ({ ...p, eventTimestamp, payloadType: this.remote!.dtmfPayloadType as number }));
      // Silence between digits so the far end sees separate presses.
      this.dtmfGapTicks = 3;
    }
    return this.dtmfPackets.shift();
  }

  private send(packet: Outgoing): void {
    if (!this.remote || this.remote.sending === false) return;
    const datagram = serializeRtp({
      payloadType: packet.payloadType,
      marker: packet.marker,
      sequence: this.sequence,
      timestamp: packet.eventTimestamp ?? this.timestamp,
      ssrc: this.ssrc,
      payload: packet.payload,
    });
    this.sequence = (this.sequence + 1) & 0xffff;
    this.stats.packetsSent++;
    this.socket.send(datagram, this.remote.port, this.remote.address);
  }

  private receive(datagram: Buffer, address: string, port: number): void {
    const packet = parseRtp(datagram);
    if (!packet) return;
    if (!this.remote) {
      // Media that races ahead of the answer's signalling (the far end starts talking the
      // moment it sends 200 OK) waits in the jitter buffer until the leg is connected.
      const early = codecOfPayloadType(packet.payloadType);
      if (early) this.jitter.push(packet.ssrc, packet.timestamp, decodeG711(early, packet.payload), EARLY_HOLD_SAMPLES);
      return;
    }
    // Symmetric RTP: the peer's media comes from where it really is (often behind NAT, not
    // what its SDP said), so answer to the source of the first packet it sends.
    if (!this.latched) {
      this.latched = true;
      if (address !== this.remote.address || port !== this.remote.port) {
        this.remote = { ...this.remote, address, port };
      }
      this.stats.latchedTo = `${address}:${port}`;
      this.emit({ type: 'latched', id: this.id, address, port });
    }
    this.countSequence(packet.ssrc, packet.sequence);
    this.stats.packetsReceived++;
    if (packet.payloadType === this.remote.dtmfPayloadType) {
      if (this.streams.size > 0) {
        const ended = this.dtmfEnds.accept(packet.timestamp, packet.payload);
        if (ended) for (const stream of this.streams.values()) stream.dtmf(ended.digit, ended.durationMs);
      }
      const digit = this.dtmf.accept(packet.timestamp, packet.payload);
      if (digit !== undefined) {
        this.stats.digits++;
        this.emit({ type: 'digit', id: this.id, digit });
        this.peer?.sendDigits(digit);
      }
      return;
    }
    const codec: G711Codec | undefined = codecOfPayloadType(packet.payloadType);
    if (!codec) return;
    const pcm = decodeG711(codec, packet.payload);
    this.jitter.push(packet.ssrc, packet.timestamp, pcm);
    this.hearing?.push(packet.ssrc, packet.timestamp, pcm);
  }

  private streamsHear(pcm: Int16Array): void {
    for (const stream of this.streams.values()) stream.inbound(pcm);
  }

  private countSequence(ssrc: number, sequence: number): void {
    // Loss from sequence numbers: packets expected between the first and highest seen
    // (RFC 3550 appendix A.3), minus those received, per source; a new SSRC (the far end
    // switched streams, or DTMF from another source) starts a new count.
    if (ssrc !== this.streamSsrc) {
      this.streamSsrc = ssrc;
      this.lostInEarlierStreams = this.stats.packetsLost;
      this.firstSequence = sequence;
      this.highestSequence = sequence;
      this.receivedInStream = 0;
    } else {
      const delta = ((sequence - (this.highestSequence & 0xffff) + 0x10000) & 0xffff);
      if (delta > 0 && delta < 0x8000) this.highestSequence += delta;
    }
    this.receivedInStream++;
    const expected = this.highestSequence - (this.firstSequence as number) + 1;
    this.stats.packetsLost = this.lostInEarlierStreams + Math.max(0, expected - this.receivedInStream);
  }
}

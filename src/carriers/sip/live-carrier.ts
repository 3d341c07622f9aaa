// The live voice carrier: real calls over SIP trunks. A call's dialog and media live on
// this node, in memory (legs.ts); everything the API and webhooks see goes through the
// calls service's CallSignals inside a transaction, exactly as with the simulator. SIP
// work starts after the transaction that asked for it commits, so a rolled-back request
// never rings a phone.
//
// This class is the carrier's face (VoiceCarrier) and its lifecycle; each job is a file:
// legs.ts (a call's leg and its one way to end), outbound.ts, inbound.ts (admission as a
// chain of steps), transfers.ts (REFER, bridged transfer, a flow's dial), cluster.ts (the
// node lease, node commands, a dead node's calls), call-records.ts, media-totals.ts,
// registrar.ts (workers' softphones registering with us).
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Platform } from '../../platform/context.ts';
import type { Trx } from '../../store/transaction.ts';
import type { CallRef } from '../../telephony/call-ref.ts';
import type { CarrierCallStore, VoiceCarrier } from '../carrier.ts';
import type { CarrierListeners } from '../listeners.ts';
import { talkSecondsFromAnswer } from './node-commands.ts';
import { LiveMediaPort } from './live-media.ts';
import { MediaEngine } from '../rtp/engine.ts';
import type { EngineStats } from '../rtp/protocol.ts';
import { SipTransport } from './transport.ts';
import { transportTls } from './tls.ts';
import { UserAgent } from './user-agent.ts';
import { InboundAdmission } from './inbound-admission.ts';
import { TrunkRegistrations } from './registration.ts';
import { Registrar } from './registrar.ts';
import { callFileFrames } from '../../media/call-file.ts';
import type { SipSettings } from './settings.ts';
import { speechServices, type SpeechServices } from '../speech/services.ts';
import type { SpeechSectionConfig } from '../speech/config.ts';
import { SipStack } from './sip-stack.ts';
import { CallRecords, type LiveCallState } from './call-records.ts';
import { MediaCounters, type MediaTotals } from './media-totals.ts';
import { Legs } from './legs.ts';
import { OutboundCalls, trunkNamed } from './outbound.ts';
import { InboundCalls } from './inbound.ts';
import { Transfers } from './transfers.ts';
import { Cluster } from './cluster.ts';
import { NodeLegs } from './node-legs.ts';

export type { LiveCallState } from './call-records.ts';
export type { MediaTotals } from './media-totals.ts';

export class LiveSipCarrier implements VoiceCarrier {
  readonly name = 'sip';
  readonly runsFlows = true;
  readonly media: LiveMediaPort;
  private readonly stack = new SipStack();
  private readonly mediaDir: string;
  private readonly speech: SpeechServices;
  private readonly counters: MediaCounters;
  private readonly cluster: Cluster;
  private readonly legs: Legs;
  private readonly outbound: OutboundCalls;
  private readonly inbound: InboundCalls;
  private readonly transfers: Transfers;
  private registrations: TrunkRegistrations | undefined;
  private readonly registrar: Registrar;
  /** Conference legs between this node and others (a participant here, its conference mixed there, or the reverse). */
  private readonly nodeLegs: NodeLegs;

  constructor(
    private readonly platform: Platform,
    readonly settings: SipSettings,
    store: CarrierCallStore,
    /** The carriers file's `speech` section, if any: the voice and the ears of live calls. */
    speechSection: SpeechSectionConfig | undefined,
    listeners: CarrierListeners,
  ) {
    this.mediaDir = join(platform.config.dataDir, 'live-media');
    this.speech = speechServices(speechSection, (err, detail) => platform.log.warn({ err }, detail));
    this.counters = new MediaCounters(platform.log);
    const records = new CallRecords(platform.database.db, store, () => listeners.signals());
    this.cluster = new Cluster(platform, records, settings.nodeLeaseSeconds, async (nodeId) => {
      await listeners.streams().nodeLost(nodeId);
      await listeners.conferences().homeLost(nodeId);
    });
    const { stack } = this;
    this.legs = new Legs({ stack, records, counters: this.counters, mediaDir: this.mediaDir, hungUp: (callId) => this.media.hungUp(callId) });
    this.transfers = new Transfers({ platform, settings, stack, legs: this.legs, records });
    this.nodeLegs = new NodeLegs({
      ua: () => stack.ua, engine: () => stack.engine, nodeId: this.cluster.nodeId, publicHost: settings.publicHost, secretKey: platform.config.secretKey,
      addressOf: (nodeId) => this.cluster.addressOf(nodeId),
      inProgress: async (callId) => (await store.peek(callId))?.call.status === 'in_progress',
      // As often as a dead node's calls are ended (its lease).
      checkEveryMs: settings.nodeLeaseSeconds * 1000,
      arrived: (conferenceId, callId) => this.media.conferences.legArrived(conferenceId, callId),
      log: (err, subject) => platform.log.warn({ err, subject }, 'sip: node-to-node leg'),
    });
    /** A call's leg on this node, or its conference leg from the node that holds it. */
    const onLine = (callId: string) => this.legs.get(callId)?.dialog !== undefined || this.nodeLegs.has(callId);
    this.media = new LiveMediaPort({
      elapsed: (callId) => this.legs.elapsed(callId),
      callRecording: (callId) => {
        const leg = this.legs.get(callId);
        if (!leg || leg.answeredAt === undefined) return undefined;
        const path = leg.recordingPath;
        return {
          path,
          ended: leg.recorded,
          framesAvailable: async () => callFileFrames((await stat(path)).size),
        };
      },
      sendDigits: (callId, digits) => stack.engine.sendDigits(callId, digits),
      startStream: (callId, order) => (this.legs.get(callId)?.dialog ? stack.engine.startStream(callId, order) : Promise.reject(new Error(`call ${callId} has no media leg here`))),
      stopStream: (callId, streamId, reason) => stack.engine.stopStream(callId, streamId, reason),
      stopAllStreams: (reason) => stack.engine?.stopAllStreams(reason) ?? Promise.resolve(),
      play: (callId, pcm) => (onLine(callId) ? stack.engine.play(callId, pcm) : Promise.resolve({ interrupted: true })),
      stopPlayback: (callId) => (onLine(callId) ? stack.engine.stopPlayback(callId) : Promise.resolve()),
      bridge: (callId, op, cutShort) => this.transfers.dial(callId, op, cutShort),
      joinHome: (callId, conferenceId, home, cutShort, onWaiting) => this.nodeLegs.joinHome(callId, conferenceId, home, cutShort, onWaiting),
      tellWaiting: (callId, waiting) => this.nodeLegs.tellWaiting(callId, waiting),
      here: (callId) => {
        if (this.nodeLegs.has(callId)) return true;
        const leg = this.legs.get(callId);
        return leg?.dialog !== undefined && leg.ending !== true;
      },
      mix: (callId, mix) => stack.engine.mix(callId, mix),
      tap: (recordingId, tap) => stack.engine.tap(recordingId, tap),
      stopTap: (recordingId) => stack.engine.stopTap(recordingId),
      tapOverlay: (recordingId, pcm) => stack.engine.tapOverlay(recordingId, pcm),
      roomFile: (recordingId) => join(this.mediaDir, `${recordingId}.wav`),
      listen: (callId, on) => {
        const digit = (event: { digit: string }) => on.digit?.(event.digit);
        const voice = (event: { talking: boolean; recorded?: number }) => on.voice?.(event.talking, event.recorded);
        stack.engine.events.on(`digit:${callId}`, digit);
        stack.engine.events.on(`voice:${callId}`, voice);
        return () => {
          stack.engine.events.off(`digit:${callId}`, digit);
          stack.engine.events.off(`voice:${callId}`, voice);
        };
      },
    }, listeners, () => this.speech.tts, (err, subject) => platform.log.error({ err, subject }, 'sip: live media failed'), this.speech.stt, this.cluster.commands, platform.config.flowWebhookTimeoutMs);
    const nodeId = this.cluster.nodeId;
    this.outbound = new OutboundCalls({ platform, settings, store, stack, legs: this.legs, records, media: this.media, nodeId, softphones: () => listeners.softphones() });
    this.registrar = new Registrar(() => stack.ua, settings.registrar, () => listeners.softphones(), platform.log);
    const admission = new InboundAdmission(settings.trunks, (address) => this.registrations?.trunkAt(address));
    this.inbound = new InboundCalls({ platform, settings, stack, admission, legs: this.legs, records, media: this.media, nodeId });
  }

  /** This process's identity among media nodes (a restarted node is a new one). */
  get nodeId(): string {
    return this.cluster.nodeId;
  }


  async start(): Promise<void> {
    const { settings, platform, stack } = this;
    await mkdir(this.mediaDir, { recursive: true });
    stack.transport = new SipTransport({
      host: settings.bindHost, udpPort: settings.udpPort, tcpPort: settings.tcpPort, tlsPort: settings.tlsPort,
      tls: transportTls(settings.tls),
    });
    stack.transport.onTlsFailure((err, peer) => platform.log.warn({ err, peer }, 'sip: a TLS handshake with our listener failed'));
    await stack.transport.start();
    stack.ua = new UserAgent({ transport: stack.transport, publicHost: settings.publicHost, userAgent: 'Switchboard' });
    stack.ua.on('error', (err) => platform.log.warn({ err }, 'sip: error handling a message'));
    stack.ua.on('invite', (incoming) => {
      // Another node's participant joining a conference mixed here (signed; node-legs.ts).
      const taking = this.nodeLegs.isNodeLeg(incoming) ? this.nodeLegs.receive(incoming) : this.inbound.receive(incoming);
      taking.catch((err: Error) => {
        platform.log.error({ err }, 'sip: taking an inbound call failed');
        stack.ua.reject(incoming, 500, 'Server Internal Error');
      });
    });
    // Workers' softphones register here, on the trunks' listeners (registrar.ts).
    stack.ua.on('register', (incoming) => {
      this.registrar.receive(incoming).catch((err: Error) => {
        platform.log.error({ err }, 'sip: a softphone REGISTER failed');
        stack.ua.respondTo(incoming, 500, 'Server Internal Error', { 'Retry-After': '5' });
      });
    });
    stack.engine = new MediaEngine({ host: settings.bindHost, range: { min: settings.rtpPortMin, max: settings.rtpPortMax }, workers: settings.rtpWorkers });
    // Media streams report their lifecycle from the workers; the port hands it to the streams module.
    stack.engine.events.on('event', (event) => this.media.streams.reported(event));
    // Compiling the speech engine takes seconds: do it now, not while the first caller waits.
    this.speech.warm();
    await this.cluster.start(this, `${settings.publicHost}:${stack.transport.udpPort}`);
    // Trunks whose carrier sends calls only to a registered contact: register now (in the background).
    this.registrations = new TrunkRegistrations(stack.ua, settings.trunks, settings.publicHost, platform.log);
    this.registrations.start();
  }

  async stop(): Promise<void> {
    const { stack } = this;
    await this.cluster.stop();
    await this.nodeLegs.stop();
    for (const leg of this.legs.all()) {
      clearTimeout(leg.ringTimer);
      clearTimeout(leg.limitTimer);
      if (leg.dialog && !leg.dialog.ended) await leg.dialog.bye('Q.850 ;cause=41 ;text="node shutting down"').catch(() => undefined);
    }
    // Removed while the transport still runs: the registrar stops sending calls here.
    await this.registrations?.stop();
    stack.ua?.shutdown();
    await stack.transport?.stop();
    await stack.engine?.shutdown();
    await this.speech.close();
  }

  /** The ports actually bound (tests and `carriers check` use them). */
  get ports(): { udp: number; tcp: number; tls: number } {
    const { transport } = this.stack;
    return { udp: transport.udpPort, tcp: transport.tcpPort, tls: transport.tlsPort };
  }

  /** Media counters summed over the calls that ended on this node (a copy). */
  mediaTotals(): MediaTotals {
    return this.counters.snapshot();
  }

  /** The media worker's own figures: live legs, its loop delay p99 and the 20 ms clock's lateness. */
  mediaEngineStats(options: { reset?: boolean } = {}): Promise<EngineStats> {
    return this.stack.engine.stats(options);
  }

  initialState(): string {
    return JSON.stringify({ trunk: null, sip_status: null, sip_reason: null } satisfies LiveCallState);
  }

  checkRoute(voiceTrunk: string | null): void {
    trunkNamed(this.settings.trunks, voiceTrunk);
  }

  ownerOf(call: CallRef): { node: string; here: boolean } | null {
    return this.cluster.ownerOf(call);
  }

  place(trx: Trx, call: CallRef, binding: string | null): Promise<void> {
    return this.outbound.place(trx, call, binding);
  }

  async hangUp(trx: Trx, call: CallRef): Promise<{ talkSeconds: number | null }> {
    if (this.cluster.elsewhere(call)) {
      await this.cluster.send(trx, call, { kind: 'hang_up' });
      // The owner measures talk time on its media clock; here the answer time stored with the call is what we know.
      return { talkSeconds: talkSecondsFromAnswer(call, this.platform.clock.now().getTime()) };
    }
    const leg = this.legs.get(call.id);
    return leg ? this.legs.hangUp(trx, leg) : { talkSeconds: null };
  }

  async transfer(trx: Trx, call: CallRef, index: number, to: string, ringTimeout: number): Promise<void> {
    if (this.cluster.elsewhere(call)) return this.cluster.send(trx, call, { kind: 'transfer', index, to, ringTimeout });
    this.transfers.transfer(trx, call, index, to, ringTimeout);
  }
}

// The live voice carrier: real calls over SIP trunks. A call's dialog and media live on
// this node, in memory (`legs`); everything the API and webhooks see goes through the
// calls service's CallSignals inside a transaction, exactly as with the simulator. SIP
// work starts after the transaction that asked for it commits, so a rolled-back request
// never rings a phone.
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Platform } from '../../platform/context.ts';
import { inTransaction, type Trx } from '../../store/transaction.ts';
import type { CallRow } from '../../modules/calls/tables.ts';
import { NODE_LOST, type CallEnd, type CallSignals, type TransferOutcome, type VoiceCarrier } from '../carrier.ts';
import { referTransfer } from './refer.ts';
import { placeSecondLeg, type SecondLeg } from './second-leg.ts';
import { NodeLease } from './node-lease.ts';
import { NodeCommands, talkSecondsFromAnswer, type CommandPayload } from './node-commands.ts';
import { randomUUID } from 'node:crypto';
import type { BridgeResult } from './live-operations.ts';
import type { BridgeOp, CutShort } from '../media-port.ts';
import { LiveMediaPort } from './live-media.ts';
import { MediaEngine } from '../rtp/engine.ts';
import type { EngineStats, SessionStats } from '../rtp/protocol.ts';
import { SipTransport } from './transport.ts';
import { transportTls } from './tls.ts';
import { trunkInvite, trunkUri } from './trunk-target.ts';
import { fromTrunkNumber, toTrunkNumber } from './caller-id.ts';
import { UserAgent, type IncomingInvite, type OutgoingInvite } from './user-agent.ts';
import { InboundAdmission } from './inbound-admission.ts';
import { TrunkRegistrations } from './registration.ts';
import { parseNameAddr, parseUri } from './headers.ts';
import type { Dialog } from './dialog.ts';
import { buildSdp, negotiate, parseSdp, type NegotiatedMedia } from './sdp.ts';
import { parseReason } from './headers.ts';
import { failureOutcome } from './causes.ts';
import { Problem } from '../../platform/problems.ts';
import type { SipSettings, TrunkSettings } from './settings.ts';
import { speechServices, type SpeechServices } from '../speech/services.ts';
import type { SpeechSectionConfig } from '../speech/config.ts';

/** What the carrier keeps in calls.carrier_state: the SIP facts a user may need to see. */
export interface LiveCallState {
  trunk: string | null;
  sip_status: number | null;
  sip_reason: string | null;
}

/** What this node's ended calls received and lost, summed (operators and bench:sip read it). */
export interface MediaTotals {
  calls: number;
  packetsReceived: number;
  packetsSent: number;
  packetsLost: number;
  latePackets: number;
  concealedSamples: number;
}

interface Leg {
  callId: string;
  trunk: TrunkSettings;
  invite?: OutgoingInvite;
  dialog?: Dialog;
  answeredAt?: number;
  ringTimer?: NodeJS.Timeout;
  limitTimer?: NodeJS.Timeout;
  /** Why we gave up ringing, when we did: the API hung up, or the ring timeout. */
  abandoned?: 'api' | 'ring_timeout';
  /** Set once the far end or the API ended an answered call. */
  ending?: boolean;
  /** A second leg bridged to this one (a bridged transfer, or a flow's dial), while it lasts. */
  second?: SecondLeg | undefined;
  recordingPath: string;
  /** Resolves when the call's WAV is complete on disk (so also: once the leg is released). */
  recorded: Promise<void>;
  markRecorded: () => void;
}

export class LiveSipCarrier implements VoiceCarrier {
  readonly name = 'sip';
  readonly runsFlows = true;
  private signals: CallSignals | null = null;
  private transport!: SipTransport;
  private ua!: UserAgent;
  private engine!: MediaEngine;
  private readonly legs = new Map<string, Leg>();
  private readonly mediaDir: string;
  private readonly speech: SpeechServices;
  private readonly admission: InboundAdmission;
  private readonly totals: MediaTotals = { calls: 0, packetsReceived: 0, packetsSent: 0, packetsLost: 0, latePackets: 0, concealedSamples: 0 };
  readonly media: LiveMediaPort;
  /** This process's identity among media nodes (a restarted node is a new one). */
  readonly nodeId = `node_${randomUUID()}`;
  private lease: NodeLease | undefined;
  private registrations: TrunkRegistrations | undefined;
  /** Actions on calls held by other nodes go to them; theirs on ours come here (node-commands.ts). */
  private readonly commands: NodeCommands;

  constructor(private readonly platform: Platform, readonly settings: SipSettings) {
    this.commands = new NodeCommands(platform, this.nodeId);
    this.mediaDir = join(platform.config.dataDir, 'live-media');
    this.admission = new InboundAdmission(settings.trunks, (address) => this.registrations?.trunkAt(address));
    this.speech = speechServices(platform.carriers.sections.speech as SpeechSectionConfig | undefined, (err, detail) => platform.log.warn({ err }, detail));
    this.media = new LiveMediaPort({
      elapsed: (callId) => {
        const leg = this.legs.get(callId);
        return leg?.answeredAt === undefined ? null : (performance.now() - leg.answeredAt) / 1000;
      },
      callRecording: (callId) => {
        const leg = this.legs.get(callId);
        if (!leg || leg.answeredAt === undefined) return undefined;
        const path = leg.recordingPath;
        return {
          path,
          ended: leg.recorded,
          framesAvailable: async () => Math.max(0, Math.floor(((await stat(path)).size - 44) / 4)),
        };
      },
      sendDigits: (callId, digits) => this.engine.sendDigits(callId, digits),
      play: (callId, pcm) => (this.legs.get(callId)?.dialog ? this.engine.play(callId, pcm) : Promise.resolve({ interrupted: true })),
      stopPlayback: (callId) => (this.legs.get(callId)?.dialog ? this.engine.stopPlayback(callId) : Promise.resolve()),
      bridge: (callId, op, cutShort) => this.bridgeFromFlow(callId, op, cutShort),
      listen: (callId, on) => {
        const digit = (event: { digit: string }) => on.digit?.(event.digit);
        const voice = (event: { talking: boolean }) => on.voice?.(event.talking);
        this.engine.events.on(`digit:${callId}`, digit);
        this.engine.events.on(`voice:${callId}`, voice);
        return () => {
          this.engine.events.off(`digit:${callId}`, digit);
          this.engine.events.off(`voice:${callId}`, voice);
        };
      },
    }, () => this.speech.tts, (err, subject) => platform.log.error({ err, subject }, 'sip: live media failed'), this.speech.stt, this.commands);
  }

  connect(signals: CallSignals): void {
    this.signals = signals;
  }

  async start(): Promise<void> {
    await mkdir(this.mediaDir, { recursive: true });
    this.transport = new SipTransport({
      host: this.settings.bindHost, udpPort: this.settings.udpPort, tcpPort: this.settings.tcpPort, tlsPort: this.settings.tlsPort,
      tls: transportTls(this.settings.tls),
    });
    this.transport.onTlsFailure((err, peer) => this.platform.log.warn({ err, peer }, 'sip: a TLS handshake with our listener failed'));
    await this.transport.start();
    this.ua = new UserAgent({ transport: this.transport, publicHost: this.settings.publicHost, userAgent: 'Switchboard' });
    this.ua.on('error', (err) => this.platform.log.warn({ err }, 'sip: error handling a message'));
    this.ua.on('invite', (incoming) => {
      this.receiveInvite(incoming).catch((err: Error) => {
        this.platform.log.error({ err }, 'sip: taking an inbound call failed');
        this.ua.reject(incoming, 500, 'Server Internal Error');
      });
    });
    this.engine = new MediaEngine({ host: this.settings.bindHost, range: { min: this.settings.rtpPortMin, max: this.settings.rtpPortMax }, workers: this.settings.rtpWorkers });
    // Compiling the speech engine takes seconds: do it now, not while the first caller waits.
    this.speech.warm();
    this.lease = new NodeLease(this.platform.database.db, {
      nodeId: this.nodeId, leaseSeconds: this.settings.nodeLeaseSeconds,
      onDead: (nodeId) => this.endCallsOf(nodeId),
      log: (err) => this.platform.log.warn({ err }, 'sip: node lease'),
    });
    await this.lease.start();
    await this.commands.serve((payload) => this.carryOut(payload));
    // Trunks whose carrier sends calls only to a registered contact: register now (in the background).
    this.registrations = new TrunkRegistrations(this.ua, this.settings.trunks, this.settings.publicHost, this.platform.log);
    this.registrations.start();
  }

  ownerOf(call: CallRow): { node: string; here: boolean } | null {
    return this.commands.ownerOf(call);
  }

  /**
   * Another node acted on a call of ours (node-commands.ts): the same method runs here, on the
   * call as it is now, so its SIP and media work happens where the dialog and media are.
   */
  private async carryOut({ callId, command }: CommandPayload): Promise<void> {
    await this.withCall(callId, async (trx, row) => {
      // Released from a dead node to any node: that call's dialog died with it.
      if (row.node !== this.nodeId) return;
      switch (command.kind) {
        case 'hang_up':
          await this.hangUp(trx, row);
          return;
        case 'transfer':
          return this.transfer(trx, row, command.index, command.to, command.ringTimeout);
        case 'run':
          return this.media.run(trx, row, command.opId, command.op);
        case 'interrupt':
          return this.media.interrupt(trx, row, command.opId);
        case 'dtmf':
          return this.media.sendDtmf(trx, row, command.digits);
        case 'start_capture':
          return this.media.startCapture(trx, row, command.recordingId, command.format);
        case 'pause_capture':
          return this.media.pauseCapture(trx, row, command.recordingId);
        case 'stop_capture':
          return this.media.stopCapture(trx, row, command.recordingId);
      }
    });
  }

  /**
   * A node died with calls up: their dialogs and media died with it, so they end here, by the
   * system, `failed` (answered or not) with failure.carrier_code `node_lost`; an answered
   * one keeps its talk time up to now.
   */
  private async endCallsOf(nodeId: string): Promise<void> {
    const db = this.platform.database.db;
    const lost = await db.selectFrom('calls').select('id')
      .where('node', '=', nodeId).where('status', 'in', ['queued', 'ringing', 'in_progress']).execute();
    if (lost.length) this.platform.log.warn({ node: nodeId, calls: lost.length }, 'sip: a media node died; ending its calls');
    for (const { id } of lost) {
      await this.withCall(id, async (trx, locked) => {
        // Nothing the end of the call sets off (recordings stopping) is sent to the dead node.
        await trx.updateTable('calls').set({ node: null }).where('id', '=', id).execute();
        const row = { ...locked, node: null };
        if (row.status !== 'queued' && row.status !== 'ringing' && row.status !== 'in_progress') return;
        const talkSeconds = talkSecondsFromAnswer(row, this.platform.clock.now().getTime()) ?? undefined;
        await this.signals!.ended(trx, row, {
          status: 'failed', hangupCause: 'network_out_of_order', hangupSource: 'system', carrierCode: NODE_LOST, ...(talkSeconds === undefined ? {} : { talkSeconds }),
        });
      });
    }
    await inTransaction(db, (trx) => this.commands.release(trx, nodeId));
  }

  async stop(): Promise<void> {
    await this.commands.stop();
    await this.lease?.stop().catch((err: Error) => this.platform.log.warn({ err }, 'sip: leaving the node table'));
    for (const leg of this.legs.values()) {
      clearTimeout(leg.ringTimer);
      clearTimeout(leg.limitTimer);
      if (leg.dialog && !leg.dialog.ended) await leg.dialog.bye('Q.850 ;cause=41 ;text="node shutting down"').catch(() => undefined);
    }
    // Removed while the transport still runs: the registrar stops sending calls here.
    await this.registrations?.stop();
    this.ua?.shutdown();
    await this.transport?.stop();
    await this.engine?.shutdown();
    await this.speech.close();
  }

  /** The ports actually bound (tests and `carriers check` use them). */
  get ports(): { udp: number; tcp: number; tls: number } {
    return { udp: this.transport.udpPort, tcp: this.transport.tcpPort, tls: this.transport.tlsPort };
  }

  /** Media counters summed over the calls that ended on this node (a copy). */
  mediaTotals(): MediaTotals {
    return { ...this.totals };
  }

  /** The media worker's own figures: live legs, its loop delay p99 and the 20 ms clock's lateness. */
  mediaEngineStats(options: { reset?: boolean } = {}): Promise<EngineStats> {
    return this.engine.stats(options);
  }

  initialState(): string {
    return JSON.stringify({ trunk: null, sip_status: null, sip_reason: null } satisfies LiveCallState);
  }

  checkRoute(voiceTrunk: string | null): void {
    this.trunkNamed(voiceTrunk);
  }

  /** The trunk a number is bound to; an unbound number uses the only trunk, if there is one. */
  private trunkNamed(voiceTrunk: string | null): TrunkSettings {
    const trunks = this.settings.trunks;
    const trunk = voiceTrunk === null ? (trunks.length === 1 ? trunks[0] : undefined) : trunks.find((t) => t.name === voiceTrunk);
    if (trunk) return trunk;
    throw new Problem('number_has_no_trunk', voiceTrunk === null
      ? `The from number is bound to no SIP trunk and this server has ${trunks.length} (${trunks.map((t) => t.name).join(', ')}), so nothing was created. Bind it with \`switchboard numbers bind\`.`
      : `The from number is bound to the trunk "${voiceTrunk}", which the carriers file does not configure, so nothing was created.`, {
      errors: [{ field: 'from', message: 'is not bound to a configured SIP trunk', code: 'not_allowed' }],
    });
  }

  async place(trx: Trx, call: CallRow): Promise<void> {
    const number = await trx.selectFrom('numbers').select('voice_trunk')
      .where('account_id', '=', call.account_id).where('mode', '=', call.mode).where('phone_number', '=', call.from_number).executeTakeFirst();
    const trunk = this.trunkNamed(number?.voice_trunk ?? null);
    const state: LiveCallState = { trunk: trunk.name, sip_status: null, sip_reason: null };
    // The placing node holds the call: its dialog and media live here, in memory.
    await trx.updateTable('calls').set({ carrier_state: JSON.stringify(state), node: this.nodeId }).where('id', '=', call.id).execute();
    trx.afterCommit(() => {
      this.dial({ ...call, carrier_state: JSON.stringify(state), node: this.nodeId }).catch((err) => {
        this.platform.log.error({ err, call: call.id }, 'sip: placing a call failed');
        void this.finish(call.id, { status: 'failed', hangupCause: 'network_out_of_order', hangupSource: 'system' }, null, String((err as Error).message));
      });
    });
  }

  async hangUp(trx: Trx, call: CallRow): Promise<{ talkSeconds: number | null }> {
    if (this.commands.elsewhere(call)) {
      await this.commands.send(trx, call, { kind: 'hang_up' });
      // The owner measures talk time on its media clock; here the answer time stored with the call is what we know.
      return { talkSeconds: talkSecondsFromAnswer(call, this.platform.clock.now().getTime()) };
    }
    const leg = this.legs.get(call.id);
    if (!leg) return { talkSeconds: null };
    const talkSeconds = leg.answeredAt === undefined ? null : (performance.now() - leg.answeredAt) / 1000;
    trx.afterCommit(() => {
      if (leg.dialog) {
        leg.ending = true;
        void this.release(leg, true);
      } else {
        // Not sent yet (the media port is still opening): dial cancels as soon as it is.
        leg.abandoned = 'api';
        if (leg.invite) this.ua.cancel(leg.invite);
      }
    });
    return { talkSeconds };
  }

  async transfer(trx: Trx, call: CallRow, index: number, to: string, ringTimeout: number): Promise<void> {
    if (this.commands.elsewhere(call)) return this.commands.send(trx, call, { kind: 'transfer', index, to, ringTimeout });
    trx.afterCommit(() => {
      this.transferNow(call, index, to, ringTimeout).catch((err: Error) => {
        this.platform.log.error({ err, call: call.id }, 'sip: transfer failed');
        void this.settleTransfer(call.id, index, 'failed');
      });
    });
  }

  /** REFER when the trunk takes it; a failed transfer leaves the call as it was. */
  private async transferNow(call: CallRow, index: number, to: string, ringTimeout: number): Promise<void> {
    const leg = this.legs.get(call.id);
    if (!leg?.dialog || leg.dialog.ended || leg.ending) return this.settleTransfer(call.id, index, 'failed');
    if (leg.trunk.transfer === 'bridge') return this.bridgeTransfer(call, leg, index, to, ringTimeout);
    const trunk = leg.trunk;
    const target = trunkUri(trunk, toTrunkNumber(trunk.callerId, to));
    const ours = call.direction === 'inbound' ? call.to_number : call.from_number;
    const { outcome, detail } = await referTransfer(leg.dialog, target, `sip:${toTrunkNumber(trunk.callerId, ours)}@${this.settings.publicHost}`, ringTimeout + 5);
    this.platform.log.info({ call: call.id, to, outcome, detail }, 'sip: REFER transfer settled');
    await this.settleTransfer(call.id, index, outcome);
    if (outcome !== 'completed' || leg.ending) return;
    // The far end now talks to the target: we leave the call (RFC 5589), which completes it here.
    leg.ending = true;
    const talkSeconds = (performance.now() - (leg.answeredAt ?? 0)) / 1000;
    await this.release(leg, true);
    await this.finish(call.id, { status: 'completed', hangupCause: 'normal_clearing', hangupSource: 'system', talkSeconds }, null, null);
  }

  /**
   * Bridged transfer: we call the target ourselves over the same trunk and relay the media
   * between the two legs. The call goes on (recorded, its time limit running) until either
   * side hangs up; the target hanging up ends it. A target that does not answer leaves the
   * call as it was.
   */
  private async bridgeTransfer(call: CallRow, leg: Leg, index: number, to: string, ringTimeout: number): Promise<void> {
    if (leg.second) return this.settleTransfer(call.id, index, 'failed');
    const ours = call.direction === 'inbound' ? call.to_number : call.from_number;
    const placed = await placeSecondLeg({ ua: this.ua, engine: this.engine, settings: this.settings }, {
      id: `${call.id}~transfer${index}`, alongside: call.id, trunk: leg.trunk, from: ours, to, ringTimeoutSeconds: ringTimeout, abandoned: leg.recorded,
    });
    if (placed.kind === 'failed') {
      this.platform.log.info({ call: call.id, to, outcome: placed.outcome, sip_status: placed.sipStatus }, 'sip: bridged transfer failed');
      return this.settleTransfer(call.id, index, placed.outcome);
    }
    if (leg.ending || !leg.dialog || leg.dialog.ended) {
      await placed.leg.hangUp();
      return this.settleTransfer(call.id, index, 'failed');
    }
    leg.second = placed.leg;
    // The transfer takes over the line: whatever was being played to the caller stops.
    await this.engine.stopPlayback(call.id).catch(() => undefined);
    await this.engine.bridge(call.id, placed.leg.id);
    await this.settleTransfer(call.id, index, 'completed');
    void placed.leg.ended.then((by) => {
      if (by !== 'remote' || leg.ending) return;
      leg.ending = true;
      const talkSeconds = (performance.now() - (leg.answeredAt ?? 0)) / 1000;
      void this.release(leg, true).then(() => this.finish(call.id, { status: 'completed', hangupCause: 'normal_clearing', hangupSource: 'callee', talkSeconds }, null, null));
    });
  }

  /** A flow's `dial` on a live call: a bridged second leg until one side hangs up; then the flow goes on. */
  private async bridgeFromFlow(callId: string, op: BridgeOp, cutShort: Promise<CutShort>): Promise<BridgeResult> {
    const leg = this.legs.get(callId);
    if (!leg?.dialog || leg.ending || leg.second) return { kind: 'bridge', outcome: 'failed', talkSeconds: 0 };
    const placed = await placeSecondLeg({ ua: this.ua, engine: this.engine, settings: this.settings }, {
      id: `${callId}~dial${++this.dials}`, alongside: callId, trunk: leg.trunk, from: op.callerId, to: op.to, ringTimeoutSeconds: op.ringTimeoutSeconds,
      abandoned: Promise.race([cutShort, leg.recorded]),
    });
    if (placed.kind === 'failed') return { kind: 'bridge', outcome: placed.outcome, talkSeconds: 0 };
    if (leg.ending) {
      await placed.leg.hangUp();
      return { kind: 'bridge', outcome: 'hangup', talkSeconds: 0 };
    }
    leg.second = placed.leg;
    await this.engine.bridge(callId, placed.leg.id);
    const started = performance.now();
    let limitTimer: NodeJS.Timeout | undefined;
    const limit = new Promise<'time_limit'>((resolve) => {
      limitTimer = setTimeout(() => resolve('time_limit'), op.timeLimitSeconds * 1000);
    });
    const why = await Promise.race([placed.leg.ended.then(() => 'ended' as const), cutShort, limit]);
    clearTimeout(limitTimer);
    const talkSeconds = Math.round((performance.now() - started) / 10) / 100;
    await placed.leg.hangUp();
    if (leg.second === placed.leg) leg.second = undefined;
    if (!leg.ending) await this.engine.bridge(callId, null).catch(() => undefined);
    return { kind: 'bridge', outcome: why === 'ended' || why === 'time_limit' ? 'completed' : why, talkSeconds };
  }

  private dials = 0;

  private async settleTransfer(callId: string, index: number, outcome: TransferOutcome): Promise<void> {
    await this.withCall(callId, (trx, row) => this.signals!.transferSettled(trx, row, index, outcome));
  }

  // --- the call's life ---------------------------------------------------------------------

  private trunkFor(call: CallRow): TrunkSettings {
    return this.trunkNamed((JSON.parse(call.carrier_state) as LiveCallState).trunk);
  }

  private async dial(call: CallRow): Promise<void> {
    const trunk = this.trunkFor(call);
    const leg = this.newLeg(call.id, trunk);
    const port = await this.engine.open(call.id);
    const sdp = buildSdp({ address: this.settings.publicHost, port, codecs: trunk.codecs, dtmfPayloadType: 101, sessionId: Date.now() % 1e9, version: 1 });
    const invite = this.ua.invite(trunkInvite(trunk, this.settings.publicHost, call.from_number, call.to_number, sdp));
    leg.invite = invite;
    if (leg.abandoned === 'api') this.ua.cancel(invite);
    leg.ringTimer = setTimeout(() => {
      leg.abandoned = 'ring_timeout';
      this.ua.cancel(invite);
    }, call.timeout * 1000);
    invite.on('provisional', (response) => {
      if (response.status === 180 || response.status === 183) {
        void this.withCall(call.id, async (trx, row) => {
          if (row.status === 'queued') await this.signals!.ringing(trx, row);
        });
      }
    });
    const outcome = await invite.outcome;
    clearTimeout(leg.ringTimer);
    if (outcome.kind === 'failed') {
      await this.engine.close(call.id).catch(() => undefined);
      leg.markRecorded();
      this.legs.delete(call.id);
      const { status, reason } = outcome.response;
      // Nothing answered because nothing could be sent (refused, a certificate we do not trust): say why.
      if (outcome.response.local === 'transport') this.platform.log.warn({ call: call.id, trunk: trunk.name, reason }, 'sip: could not reach the trunk');
      if (leg.abandoned === 'api') {
        await this.saveSip(call.id, status, reason);
        return;
      }
      const end: CallEnd = leg.abandoned === 'ring_timeout'
        ? { status: 'no_answer', hangupCause: 'no_answer', hangupSource: 'carrier' }
        : this.endOf(status, outcome.response.headers.get('reason'));
      return this.finish(call.id, end, status, reason);
    }
    const media = negotiate(parseSdp(outcome.response.body), trunk.codecs);
    await this.connectMedia(leg, call, outcome.dialog, media);
    await this.withCall(call.id, async (trx, row) => {
      row = { ...row, carrier_state: await this.saveSip(call.id, outcome.response.status, outcome.response.reason, trx) };
      if (row.status === 'queued') row = await this.ringThen(trx, row);
      if (row.status === 'ringing') {
        this.media.answering(trx, call.id);
        await this.signals!.answered(trx, row);
      }
    });
  }

  /** The call is answered (either direction): media flows, and the far end's BYE or the time limit ends it. */
  private async connectMedia(leg: Leg, call: CallRow, dialog: Dialog, media: NegotiatedMedia): Promise<void> {
    leg.dialog = dialog;
    // Recorder first: audio that arrived with the 200 OK is held until the remote is set.
    await this.engine.startRecording(call.id, leg.recordingPath);
    await this.engine.setRemote(call.id, media);
    leg.answeredAt = performance.now();
    dialog.once('bye', () => {
      leg.ending = true;
      void this.release(leg, false).then(() => this.finish(call.id, {
        status: 'completed', hangupCause: 'normal_clearing', hangupSource: call.direction === 'inbound' ? 'caller' : 'callee',
        talkSeconds: (performance.now() - (leg.answeredAt ?? 0)) / 1000,
      }, null, null));
    });
    leg.limitTimer = setTimeout(() => {
      if (leg.ending) return;
      leg.ending = true;
      void this.release(leg, true).then(() => this.finish(call.id, {
        status: 'completed', hangupCause: 'time_limit_reached', hangupSource: 'system', talkSeconds: call.time_limit,
      }, null, null));
    }, call.time_limit * 1000);
  }

  // --- inbound ------------------------------------------------------------------------------

  /**
   * An INVITE from outside: admitted by source or digest (else 401/403), to a live number of
   * some account served by that trunk (else 404), from a caller with a number (else 433),
   * with media we can speak (else 488). Only then is a call created, and answered.
   */
  private async receiveInvite(incoming: IncomingInvite): Promise<void> {
    const request = incoming.request;
    const admission = this.admission.admit(request, incoming.from.address);
    if (admission.kind === 'challenge') return this.ua.reject(incoming, 401, 'Unauthorized', { 'WWW-Authenticate': admission.header });
    if (admission.kind === 'forbidden') {
      this.platform.log.info({ source: incoming.from.address, reason: admission.reason }, 'sip: inbound INVITE refused');
      return this.ua.reject(incoming, 403, 'Forbidden');
    }
    const trunk = admission.trunk;
    // The called number: the Request-URI's user, or, when that is not a number (a registrar
    // calling our registered contact, sip:username@us), the To header's.
    const rules = trunk.callerId;
    const to = fromTrunkNumber(rules, userOf(request.uri)) ?? fromTrunkNumber(rules, userOf(parseNameAddr(request.headers.get('to') ?? '').uri));
    if (!to) return this.ua.reject(incoming, 404, 'Not Found');
    const from = fromTrunkNumber(rules, userOf(parseNameAddr(request.headers.get('from') ?? '').uri));
    if (!from) return this.ua.reject(incoming, 433, 'Anonymity Disallowed');
    let media: NegotiatedMedia;
    try {
      media = negotiate(parseSdp(request.body), trunk.codecs);
    } catch {
      return this.ua.reject(incoming, 488, 'Not Acceptable Here', { Warning: `399 switchboard "offer ${trunk.codecs.join(' or ')}"` });
    }
    const number = await this.platform.database.db.selectFrom('numbers')
      .select(['account_id', 'capabilities', 'webhook_url', 'voice_trunk'])
      .where('mode', '=', 'live').where('phone_number', '=', to).where('status', '=', 'active').executeTakeFirst();
    // A trunk delivers only the numbers bound to it (or unbound ones): never another trunk's.
    if (!number || !(JSON.parse(number.capabilities) as string[]).includes('voice') || (number.voice_trunk ?? trunk.name) !== trunk.name) {
      return this.ua.reject(incoming, 404, 'Not Found');
    }
    let call: CallRow;
    try {
      call = await inTransaction(this.platform.database.db, async (trx) => {
        // The calls module sets the call up to run the number's voice configuration once answered.
        const row = await this.signals!.inboundCall(trx, { accountId: number.account_id, mode: 'live', from, to, webhookUrl: number.webhook_url }, this.platform.clock);
        const state: LiveCallState = { trunk: trunk.name, sip_status: 200, sip_reason: 'OK' };
        const changes: Partial<CallRow> = { carrier_state: JSON.stringify(state), node: this.nodeId };
        await trx.updateTable('calls').set(changes).where('id', '=', row.id).execute();
        return { ...row, ...changes };
      });
    } catch (err) {
      if (err instanceof Problem && err.code === 'concurrent_call_limit') return this.ua.reject(incoming, 486, 'Busy Here', { Reason: 'Q.850;cause=17;text="concurrent call limit"' });
      throw err;
    }
    const leg = this.newLeg(call.id, trunk);
    const port = await this.engine.open(call.id);
    this.ua.progress(incoming);
    if (incoming.canceled) {
      await this.engine.close(call.id).catch(() => undefined);
      leg.markRecorded();
      this.legs.delete(call.id);
      return this.finish(call.id, { status: 'no_answer', hangupCause: 'originator_cancel', hangupSource: 'caller' }, 487, 'Request Terminated');
    }
    const sdp = buildSdp({ address: this.settings.publicHost, port, codecs: [media.codec], dtmfPayloadType: media.dtmfPayloadType ?? 101, sessionId: Date.now() % 1e9, version: 1 });
    const dialog = this.ua.answer(incoming, sdp);
    await this.connectMedia(leg, call, dialog, media);
    await this.withCall(call.id, async (trx, row) => {
      if (row.status !== 'ringing') return;
      this.media.answering(trx, call.id);
      await this.signals!.answered(trx, row);
    });
  }

  private newLeg(callId: string, trunk: TrunkSettings): Leg {
    let markRecorded!: () => void;
    const recorded = new Promise<void>((resolve) => {
      markRecorded = resolve;
    });
    const leg: Leg = { callId, trunk, recordingPath: join(this.mediaDir, `${callId}.wav`), recorded, markRecorded };
    this.legs.set(callId, leg);
    return leg;
  }

  /** A 200 without a 180 first: the call still passes through ringing (the state machine's path). */
  private async ringThen(trx: Trx, row: CallRow): Promise<CallRow> {
    await this.signals!.ringing(trx, row);
    return (await this.signals!.lock(trx, row.id)) as CallRow;
  }

  private endOf(status: number, reasonHeader: string | undefined): CallEnd {
    const outcome = failureOutcome(status, parseReason(reasonHeader));
    const callEndStatus = outcome.status === 'canceled' ? 'failed' : outcome.status;
    return { status: callEndStatus, hangupCause: outcome.cause as CallEnd['hangupCause'], hangupSource: outcome.status === 'failed' ? 'carrier' : 'callee' };
  }

  /** Ends the media (and the dialog when we hang up); the recording is complete after this. */
  private async release(leg: Leg, sendBye: boolean): Promise<void> {
    clearTimeout(leg.limitTimer);
    this.media.hungUp(leg.callId);
    if (sendBye && leg.dialog && !leg.dialog.ended) await leg.dialog.bye().catch(() => undefined);
    // A bridged second leg goes with the call.
    await leg.second?.hangUp();
    try {
      // After shutdown the worker is gone and so is the leg: nothing left to release.
      await this.engine.stopRecording(leg.callId).catch(() => undefined);
      const stats = await this.engine.close(leg.callId).catch(() => undefined);
      if (stats) this.count(leg.callId, stats);
    } finally {
      leg.markRecorded();
      // Keep the leg a little so a recording processed right after the call finds its promise.
      setTimeout(() => this.legs.delete(leg.callId), 60_000).unref();
    }
  }

  /** One ended call's media counters: summed, and logged (a call with nothing received is one-way audio). */
  private count(callId: string, stats: SessionStats): void {
    this.totals.calls++;
    this.totals.packetsReceived += stats.packetsReceived;
    this.totals.packetsSent += stats.packetsSent;
    this.totals.packetsLost += stats.packetsLost;
    this.totals.latePackets += stats.latePackets;
    this.totals.concealedSamples += stats.concealedSamples;
    const log = stats.packetsReceived === 0 ? this.platform.log.warn.bind(this.platform.log) : this.platform.log.info.bind(this.platform.log);
    log({ call: callId, media: stats }, stats.packetsReceived === 0 ? 'sip: call ended without receiving any RTP (one-way audio?)' : 'sip: call media');
  }

  private async finish(callId: string, end: CallEnd, sipStatus: number | null, sipReason: string | null): Promise<void> {
    await this.withCall(callId, async (trx, row) => {
      if (sipStatus !== null) row = { ...row, carrier_state: await this.saveSip(callId, sipStatus, sipReason, trx) };
      if (row.status === 'completed' || row.status === 'busy' || row.status === 'no_answer' || row.status === 'failed' || row.status === 'canceled') return;
      if (end.status === 'completed' && row.status !== 'in_progress') return;
      // A call that failed says so with the carrier's own word too: failure.carrier_code is the SIP status.
      const carrierCode = end.carrierCode ?? (end.status !== 'completed' && sipStatus !== null ? String(sipStatus) : undefined);
      await this.signals!.ended(trx, row, carrierCode === undefined ? end : { ...end, carrierCode });
    });
  }

  /** Stores the final SIP response on the call; returns the new carrier state. */
  private async saveSip(callId: string, status: number, reason: string | null, trx?: Trx): Promise<string> {
    const write = async (t: Trx) => {
      const row = await t.selectFrom('calls').select('carrier_state').where('id', '=', callId).executeTakeFirst();
      const state = JSON.stringify({ ...(JSON.parse(row?.carrier_state ?? '{}') as LiveCallState), sip_status: status, sip_reason: reason });
      await t.updateTable('calls').set({ carrier_state: state }).where('id', '=', callId).execute();
      return state;
    };
    return trx ? write(trx) : inTransaction(this.platform.database.db, write);
  }

  private async withCall(callId: string, fn: (trx: Trx, row: CallRow) => Promise<void>): Promise<void> {
    const signals = this.signals;
    if (!signals) throw new Error('live SIP carrier used before the calls service connected');
    await inTransaction(this.platform.database.db, async (trx) => {
      const row = await signals.lock(trx, callId);
      if (row) await fn(trx, row);
    });
  }
}

/** The user part of a SIP or tel URI, or undefined. */
function userOf(uri: string): string | undefined {
  if (/^tel:/i.test(uri)) return uri.slice(4).split(';')[0];
  try {
    return parseUri(uri).user;
  } catch {
    return undefined;
  }
}

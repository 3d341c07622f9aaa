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
import type { CallEnd, CallSignals, VoiceCarrier } from '../carrier.ts';
import { LiveMediaPort } from './live-media.ts';
import { MediaEngine } from '../rtp/engine.ts';
import { SipTransport } from './transport.ts';
import { UserAgent, type OutgoingInvite } from './user-agent.ts';
import type { Dialog } from './dialog.ts';
import { buildSdp, negotiate, parseSdp } from './sdp.ts';
import { parseReason } from './headers.ts';
import { failureOutcome } from './causes.ts';
import { Problem } from '../../platform/problems.ts';
import type { SipSettings, TrunkSettings } from './settings.ts';
import { EmbeddedTextToSpeech } from '../speech/text-to-speech.ts';

/** What the carrier keeps in calls.carrier_state: the SIP facts a user may need to see. */
export interface LiveCallState {
  trunk: string | null;
  sip_status: number | null;
  sip_reason: string | null;
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
  recordingPath: string;
  /** Resolves when the call's WAV is complete on disk. */
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
  private readonly speech = new EmbeddedTextToSpeech();
  readonly media: LiveMediaPort;

  constructor(private readonly platform: Platform, readonly settings: SipSettings) {
    this.mediaDir = join(platform.config.dataDir, 'live-media');
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
    }, () => this.speech, (err, subject) => platform.log.error({ err, subject }, 'sip: live media failed'));
  }

  connect(signals: CallSignals): void {
    this.signals = signals;
  }

  async start(): Promise<void> {
    await mkdir(this.mediaDir, { recursive: true });
    this.transport = new SipTransport({ host: this.settings.bindHost, udpPort: this.settings.udpPort, tcpPort: this.settings.tcpPort });
    await this.transport.start();
    this.ua = new UserAgent({ transport: this.transport, publicHost: this.settings.publicHost, userAgent: 'Switchboard' });
    this.ua.on('error', (err) => this.platform.log.warn({ err }, 'sip: error handling a message'));
    this.engine = new MediaEngine({ host: this.settings.bindHost, range: { min: this.settings.rtpPortMin, max: this.settings.rtpPortMax } });
    // Compiling the speech engine takes seconds: do it now, not while the first caller waits.
    this.speech.warm();
  }

  async stop(): Promise<void> {
    for (const leg of this.legs.values()) {
      clearTimeout(leg.ringTimer);
      clearTimeout(leg.limitTimer);
      if (leg.dialog && !leg.dialog.ended) await leg.dialog.bye('Q.850 ;cause=41 ;text="node shutting down"').catch(() => undefined);
    }
    this.ua?.shutdown();
    await this.transport?.stop();
    await this.engine?.shutdown();
    await this.speech.close();
  }

  /** The ports actually bound (tests and `carriers check` use them). */
  get ports(): { udp: number; tcp: number } {
    return { udp: this.transport.udpPort, tcp: this.transport.tcpPort };
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
    await trx.updateTable('calls').set({ carrier_state: JSON.stringify(state) }).where('id', '=', call.id).execute();
    trx.afterCommit(() => {
      this.dial({ ...call, carrier_state: JSON.stringify(state) }).catch((err) => {
        this.platform.log.error({ err, call: call.id }, 'sip: placing a call failed');
        void this.finish(call.id, { status: 'failed', hangupCause: 'network_out_of_order', hangupSource: 'system' }, null, String((err as Error).message));
      });
    });
  }

  async hangUp(trx: Trx, call: CallRow): Promise<{ talkSeconds: number | null }> {
    const leg = this.legs.get(call.id);
    if (!leg) return { talkSeconds: null };
    const talkSeconds = leg.answeredAt === undefined ? null : (performance.now() - leg.answeredAt) / 1000;
    trx.afterCommit(() => {
      if (leg.dialog) {
        leg.ending = true;
        void this.release(leg, true);
      } else if (leg.invite) {
        leg.abandoned = 'api';
        this.ua.cancel(leg.invite);
      }
    });
    return { talkSeconds };
  }

  async transfer(trx: Trx, call: CallRow, index: number, to: string): Promise<void> {
    // REFER and bridged transfers are not wired yet: say so on the call rather than pretend.
    trx.afterCommit(() => {
      void this.withCall(call.id, (t, row) => this.signals!.transferSettled(t, row, index, 'failed'));
    });
    this.platform.log.warn({ call: call.id, to }, 'sip: transfers on live calls are not supported yet; reported as failed');
  }

  // --- the call's life ---------------------------------------------------------------------

  private trunkFor(call: CallRow): TrunkSettings {
    return this.trunkNamed((JSON.parse(call.carrier_state) as LiveCallState).trunk);
  }

  private async dial(call: CallRow): Promise<void> {
    const trunk = this.trunkFor(call);
    let markRecorded!: () => void;
    const recorded = new Promise<void>((resolve) => {
      markRecorded = resolve;
    });
    const leg: Leg = { callId: call.id, trunk, recordingPath: join(this.mediaDir, `${call.id}.wav`), recorded, markRecorded };
    this.legs.set(call.id, leg);
    const port = await this.engine.open(call.id);
    const sdp = buildSdp({ address: this.settings.publicHost, port, codecs: trunk.codecs, dtmfPayloadType: 101, sessionId: Date.now() % 1e9, version: 1 });
    const uri = `sip:${call.to_number}@${trunk.host}:${trunk.port}${trunk.transport === 'tcp' ? ';transport=tcp' : ''}`;
    const invite = this.ua.invite({
      uri,
      peer: { transport: trunk.transport === 'tcp' ? 'TCP' : 'UDP', address: trunk.host, port: trunk.port },
      from: { user: call.from_number, host: this.settings.publicHost },
      to: uri,
      sdp,
      credentials: trunk.username && trunk.password ? { username: trunk.username, password: trunk.password } : undefined,
    });
    leg.invite = invite;
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
      if (leg.abandoned === 'api') {
        await this.saveSip(call.id, status, reason);
        return;
      }
      const end: CallEnd = leg.abandoned === 'ring_timeout'
        ? { status: 'no_answer', hangupCause: 'no_answer', hangupSource: 'carrier' }
        : this.endOf(status, outcome.response.headers.get('reason'));
      return this.finish(call.id, end, status, reason);
    }
    const dialog = outcome.dialog;
    leg.dialog = dialog;
    const media = negotiate(parseSdp(outcome.response.body), trunk.codecs);
    // Recorder first: audio that arrived with the 200 OK is held until the remote is set.
    await this.engine.startRecording(call.id, leg.recordingPath);
    await this.engine.setRemote(call.id, media);
    leg.answeredAt = performance.now();
    dialog.once('bye', () => {
      leg.ending = true;
      void this.release(leg, false).then(() => this.finish(call.id, {
        status: 'completed', hangupCause: 'normal_clearing', hangupSource: 'callee', talkSeconds: (performance.now() - (leg.answeredAt ?? 0)) / 1000,
      }, null, null));
    });
    leg.limitTimer = setTimeout(() => {
      if (leg.ending) return;
      leg.ending = true;
      void this.release(leg, true).then(() => this.finish(call.id, {
        status: 'completed', hangupCause: 'time_limit_reached', hangupSource: 'system', talkSeconds: call.time_limit,
      }, null, null));
    }, call.time_limit * 1000);
    await this.withCall(call.id, async (trx, row) => {
      row = { ...row, carrier_state: await this.saveSip(call.id, outcome.response.status, outcome.response.reason, trx) };
      if (row.status === 'queued') row = await this.ringThen(trx, row);
      if (row.status === 'ringing') {
        this.media.answering(trx, call.id);
        await this.signals!.answered(trx, row);
      }
    });
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
    try {
      // After shutdown the worker is gone and so is the leg: nothing left to release.
      await this.engine.stopRecording(leg.callId).catch(() => undefined);
      await this.engine.close(leg.callId).catch(() => undefined);
    } finally {
      leg.markRecorded();
      // Keep the leg a little so a recording processed right after the call finds its promise.
      setTimeout(() => this.legs.delete(leg.callId), 60_000).unref();
    }
  }

  private async finish(callId: string, end: CallEnd, sipStatus: number | null, sipReason: string | null): Promise<void> {
    await this.withCall(callId, async (trx, row) => {
      if (sipStatus !== null) row = { ...row, carrier_state: await this.saveSip(callId, sipStatus, sipReason, trx) };
      if (row.status === 'completed' || row.status === 'busy' || row.status === 'no_answer' || row.status === 'failed' || row.status === 'canceled') return;
      if (end.status === 'completed' && row.status !== 'in_progress') return;
      await this.signals!.ended(trx, row, end);
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

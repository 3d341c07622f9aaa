// A live call's leg on this node: its trunk, its dialog once answered, its timers, its
// recording, a second leg bridged to it. Legs live in memory (a call's dialog and media
// cannot move), and an answered call ends from our side in one place, `end`.
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Trx } from '../../store/transaction.ts';
import type { CallRef } from '../../telephony/call-ref.ts';
import type { CallEnd } from '../../telephony/call-end.ts';
import type { RemoteMedia } from '../rtp/protocol.ts';
import type { Dialog } from './dialog.ts';
import type { OutgoingInvite } from './user-agent.ts';
import type { TrunkSettings } from './settings.ts';
import type { SecondLeg } from './second-leg.ts';
import type { SipStack } from './sip-stack.ts';
import type { CallRecords } from './call-records.ts';
import type { MediaCounters } from './media-totals.ts';
import { answerOffersOn } from './reoffers.ts';

export interface Leg {
  callId: string;
  direction: CallRef['direction'];
  /** The call's longest talk time, seconds. */
  timeLimit: number;
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

/** Why we end an answered call from this side of the carrier (the API's hangup ends it through its own transaction). */
export type LegEnd = 'far_end_hung_up' | 'time_limit' | 'transferred_away' | 'transfer_target_hung_up';

/** The end of an answered call for each reason we end it. */
const ENDS: Record<LegEnd, (direction: CallRef['direction']) => Omit<CallEnd, 'talkSeconds'>> = {
  far_end_hung_up: (direction) => ({ status: 'completed', hangupCause: 'normal_clearing', hangupSource: direction === 'inbound' ? 'caller' : 'callee' }),
  time_limit: () => ({ status: 'completed', hangupCause: 'time_limit_reached', hangupSource: 'system' }),
  transferred_away: () => ({ status: 'completed', hangupCause: 'normal_clearing', hangupSource: 'system' }),
  transfer_target_hung_up: () => ({ status: 'completed', hangupCause: 'normal_clearing', hangupSource: 'callee' }),
};

export interface LegsDeps {
  stack: SipStack;
  records: CallRecords;
  counters: MediaCounters;
  /** Where each call's recording is written (`<call id>.wav`). */
  mediaDir: string;
  /** Tells the media port the call hung up: its running operations end. */
  hungUp(callId: string): void;
}

export class Legs {
  private readonly legs = new Map<string, Leg>();

  constructor(private readonly deps: LegsDeps) {}

  get(callId: string): Leg | undefined {
    return this.legs.get(callId);
  }

  all(): IterableIterator<Leg> {
    return this.legs.values();
  }

  /** A new leg for `call` over `trunk`, not yet answered. */
  open(call: CallRef, trunk: TrunkSettings): Leg {
    let markRecorded!: () => void;
    const recorded = new Promise<void>((resolve) => {
      markRecorded = resolve;
    });
    const callId = call.id;
    const leg: Leg = { callId, direction: call.direction, timeLimit: call.time_limit, trunk, recordingPath: join(this.deps.mediaDir, `${callId}.wav`), recorded, markRecorded };
    this.legs.set(callId, leg);
    return leg;
  }

  /** Talk seconds so far, null when the call is not answered (or gone). */
  elapsed(callId: string): number | null {
    const leg = this.legs.get(callId);
    return leg?.answeredAt === undefined ? null : (performance.now() - leg.answeredAt) / 1000;
  }

  /** The call is answered (either direction): media flows, and the far end's BYE or the time limit ends it. */
  async connect(leg: Leg, dialog: Dialog, media: RemoteMedia): Promise<void> {
    const { engine } = this.deps.stack;
    leg.dialog = dialog;
    answerOffersOn(dialog, engine, leg.callId, leg.trunk.codecs, media.codec);
    // Recorder first: audio that arrived with the 200 OK is held until the remote is set.
    await engine.startRecording(leg.callId, leg.recordingPath);
    await engine.setRemote(leg.callId, media);
    leg.answeredAt = performance.now();
    dialog.once('bye', () => void this.end(leg, 'far_end_hung_up'));
    leg.limitTimer = setTimeout(() => void this.end(leg, 'time_limit'), leg.timeLimit * 1000);
  }

  /** The API hangs the call up: once `trx` commits, an answered call's leg is released; a ringing one is canceled. */
  hangUp(trx: Trx, leg: Leg): { talkSeconds: number | null } {
    const talkSeconds = this.elapsed(leg.callId);
    trx.afterCommit(() => {
      if (leg.dialog) {
        leg.ending = true;
        void this.release(leg, true);
      } else {
        // Not sent yet (the media port is still opening): dial cancels as soon as it is.
        leg.abandoned = 'api';
        if (leg.invite) this.deps.stack.ua.cancel(leg.invite);
      }
    });
    return { talkSeconds };
  }

  /**
   * Ends an answered call from our side, once: its leg is released (BYE sent unless the far
   * end sent one), then the call is finished with the end `why` means. Talk time runs to now.
   */
  async end(leg: Leg, why: LegEnd): Promise<void> {
    if (leg.ending) return;
    leg.ending = true;
    const talkSeconds = why === 'time_limit' ? leg.timeLimit : (performance.now() - (leg.answeredAt ?? 0)) / 1000;
    await this.release(leg, why !== 'far_end_hung_up');
    await this.deps.records.finish(leg.callId, { ...ENDS[why](leg.direction), talkSeconds }, null, null);
  }

  /** A leg that was never answered goes: its media port closes, and nothing will be recorded. */
  async drop(leg: Leg): Promise<void> {
    await this.deps.stack.engine.close(leg.callId).catch(() => undefined);
    leg.markRecorded();
    this.legs.delete(leg.callId);
  }

  /** Ends the media (and the dialog when we hang up); the recording is complete after this. */
  private async release(leg: Leg, sendBye: boolean): Promise<void> {
    const { engine } = this.deps.stack;
    clearTimeout(leg.limitTimer);
    this.deps.hungUp(leg.callId);
    if (sendBye && leg.dialog && !leg.dialog.ended) await leg.dialog.bye().catch(() => undefined);
    // A bridged second leg goes with the call.
    await leg.second?.hangUp();
    try {
      // After shutdown the worker is gone and so is the leg: nothing left to release.
      await engine.stopRecording(leg.callId).catch(() => undefined);
      const stats = await engine.close(leg.callId).catch(() => undefined);
      if (stats) this.deps.counters.count(leg.callId, stats);
    } finally {
      leg.markRecorded();
      // Keep the leg a little so a recording processed right after the call finds its promise.
      setTimeout(() => this.legs.delete(leg.callId), 60_000).unref();
    }
  }
}

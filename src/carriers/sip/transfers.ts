// Moving a live call's far end to someone else: a blind transfer by REFER when the trunk
// takes it, else a bridged transfer (we call the target over the same trunk and relay the
// media), and a flow's `dial` (a bridged second leg for as long as it lasts, after which the
// flow goes on). A transfer that fails leaves the call as it was.
import { performance } from 'node:perf_hooks';
import type { Platform } from '../../platform/context.ts';
import type { Trx } from '../../store/transaction.ts';
import type { CallRef } from '../../telephony/call-ref.ts';
import type { BridgeOp, CutShort } from '../../telephony/media-ops.ts';
import type { BridgeResult } from './live-operations.ts';
import type { SipSettings } from './settings.ts';
import type { SipStack } from './sip-stack.ts';
import type { Leg, Legs } from './legs.ts';
import type { CallRecords } from './call-records.ts';
import { referTransfer } from './refer.ts';
import { placeSecondLeg } from './second-leg.ts';
import { trunkUri } from './trunk-target.ts';
import { toTrunkNumber } from './caller-id.ts';

export interface TransfersDeps {
  platform: Platform;
  settings: SipSettings;
  stack: SipStack;
  legs: Legs;
  records: CallRecords;
}

export class Transfers {
  private dials = 0;

  constructor(private readonly deps: TransfersDeps) {}

  /** Transfer `index` of a call of this node starts once `trx` commits; its outcome is settled on the call. */
  transfer(trx: Trx, call: CallRef, index: number, to: string, ringTimeout: number): void {
    trx.afterCommit(() => {
      this.transferNow(call, index, to, ringTimeout).catch((err: Error) => {
        this.deps.platform.log.error({ err, call: call.id }, 'sip: transfer failed');
        void this.deps.records.settleTransfer(call.id, index, 'failed');
      });
    });
  }

  /** REFER when the trunk takes it; a failed transfer leaves the call as it was. */
  private async transferNow(call: CallRef, index: number, to: string, ringTimeout: number): Promise<void> {
    const { legs, records, settings } = this.deps;
    const leg = legs.get(call.id);
    if (!leg?.dialog || leg.dialog.ended || leg.ending) return records.settleTransfer(call.id, index, 'failed');
    if (leg.trunk.transfer === 'bridge') return this.bridgeTransfer(call, leg, index, to, ringTimeout);
    const trunk = leg.trunk;
    const target = trunkUri(trunk, toTrunkNumber(trunk.callerId, to));
    const ours = call.direction === 'inbound' ? call.to_number : call.from_number;
    const { outcome, detail } = await referTransfer(leg.dialog, target, `sip:${toTrunkNumber(trunk.callerId, ours)}@${settings.publicHost}`, ringTimeout + 5);
    this.deps.platform.log.info({ call: call.id, to, outcome, detail }, 'sip: REFER transfer settled');
    await records.settleTransfer(call.id, index, outcome);
    // The far end now talks to the target: we leave the call (RFC 5589), which completes it here.
    if (outcome === 'completed') await legs.end(leg, 'transferred_away');
  }

  /**
   * Bridged transfer: we call the target ourselves over the same trunk and relay the media
   * between the two legs. The call goes on (recorded, its time limit running) until either
   * side hangs up; the target hanging up ends it. A target that does not answer leaves the
   * call as it was.
   */
  private async bridgeTransfer(call: CallRef, leg: Leg, index: number, to: string, ringTimeout: number): Promise<void> {
    const { stack: { ua, engine }, settings, legs, records } = this.deps;
    if (leg.second) return records.settleTransfer(call.id, index, 'failed');
    const ours = call.direction === 'inbound' ? call.to_number : call.from_number;
    const placed = await placeSecondLeg({ ua, engine, settings }, {
      id: `${call.id}~transfer${index}`, alongside: call.id, trunk: leg.trunk, from: ours, to, ringTimeoutSeconds: ringTimeout, abandoned: leg.recorded,
    });
    if (placed.kind === 'failed') {
      this.deps.platform.log.info({ call: call.id, to, outcome: placed.outcome, sip_status: placed.sipStatus }, 'sip: bridged transfer failed');
      return records.settleTransfer(call.id, index, placed.outcome);
    }
    if (leg.ending || !leg.dialog || leg.dialog.ended) {
      await placed.leg.hangUp();
      return records.settleTransfer(call.id, index, 'failed');
    }
    leg.second = placed.leg;
    // The transfer takes over the line: whatever was being played to the caller stops.
    await engine.stopPlayback(call.id).catch(() => undefined);
    await engine.bridge(call.id, placed.leg.id);
    await records.settleTransfer(call.id, index, 'completed');
    void placed.leg.ended.then((by) => {
      if (by === 'remote') void legs.end(leg, 'transfer_target_hung_up');
    });
  }

  /** A flow's `dial` on a live call: a bridged second leg until one side hangs up; then the flow goes on. */
  async dial(callId: string, op: BridgeOp, cutShort: Promise<CutShort>): Promise<BridgeResult> {
    const { stack: { ua, engine }, settings } = this.deps;
    const leg = this.deps.legs.get(callId);
    if (!leg?.dialog || leg.ending || leg.second) return { kind: 'bridge', outcome: 'failed', talkSeconds: 0 };
    const placed = await placeSecondLeg({ ua, engine, settings }, {
      id: `${callId}~dial${++this.dials}`, alongside: callId, trunk: leg.trunk, from: op.callerId, to: op.to, ringTimeoutSeconds: op.ringTimeoutSeconds,
      abandoned: Promise.race([cutShort, leg.recorded]),
    });
    if (placed.kind === 'failed') return { kind: 'bridge', outcome: placed.outcome, talkSeconds: 0 };
    if (leg.ending) {
      await placed.leg.hangUp();
      return { kind: 'bridge', outcome: 'hangup', talkSeconds: 0 };
    }
    leg.second = placed.leg;
    await engine.bridge(callId, placed.leg.id);
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
    if (!leg.ending) await engine.bridge(callId, null).catch(() => undefined);
    return { kind: 'bridge', outcome: why === 'ended' || why === 'time_limit' ? 'completed' : why, talkSeconds };
  }
}

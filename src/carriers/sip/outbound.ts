// Outbound calls: the trunk a call goes over, the INVITE once the request that placed the
// call commits, ringing on 180/183, and the answer (or the final failure) reported back.
// A call to `softphone:<user>` goes over no trunk: it rings the softphone's most recently
// refreshed registration (softphone-target.ts), or fails at once (480) when none is live.
// A call to a SIP URI (`sip:alice@pbx.example.com`) goes over no trunk either: straight to
// the URI's host (uri-target.ts), or fails at once when that host is not allowed.
import type { Platform } from '../../platform/context.ts';
import type { Trx } from '../../store/transaction.ts';
import type { CallRef } from '../../telephony/call-ref.ts';
import type { CallEnd } from '../../telephony/call-end.ts';
import { Problem } from '../../platform/problems.ts';
import type { CarrierCallStore } from '../carrier.ts';
import type { LiveMediaPort } from './live-media.ts';
import type { SipSettings, TrunkSettings } from './settings.ts';
import type { SipStack } from './sip-stack.ts';
import type { Legs } from './legs.ts';
import type { CallRecords, LiveCallState } from './call-records.ts';
import { trunkInvite } from './trunk-target.ts';
import type { InviteOptions } from './user-agent.ts';
import { softphoneUserOf, type SoftphoneRegistry } from '../softphones.ts';
import { softphoneInvite, softphoneTrunk } from './softphone-target.ts';
import { isSipUriTarget, sipUriInvite, sipUriTrunk, type Unreachable } from './uri-target.ts';
import { buildSdp, parseSdp, remoteMedia } from './sdp.ts';
import { parseReason } from './headers.ts';
import { failureOutcome } from './causes.ts';

/** The trunk a number is bound to; an unbound number uses the only trunk, if there is one. */
export function trunkNamed(trunks: readonly TrunkSettings[], voiceTrunk: string | null): TrunkSettings {
  const trunk = voiceTrunk === null ? (trunks.length === 1 ? trunks[0] : undefined) : trunks.find((t) => t.name === voiceTrunk);
  if (trunk) return trunk;
  throw new Problem('number_has_no_trunk', voiceTrunk === null
    ? `The from number is bound to no SIP trunk and this server has ${trunks.length} (${trunks.map((t) => t.name).join(', ')}), so nothing was created. Bind it with \`switchboard numbers bind\`.`
    : `The from number is bound to the trunk "${voiceTrunk}", which the carriers file does not configure, so nothing was created.`, {
    errors: [{ field: 'from', message: 'is not bound to a configured SIP trunk', code: 'not_allowed' }],
  });
}

export interface OutboundDeps {
  platform: Platform;
  settings: SipSettings;
  store: CarrierCallStore;
  stack: SipStack;
  legs: Legs;
  records: CallRecords;
  media: LiveMediaPort;
  nodeId: string;
  softphones: () => SoftphoneRegistry;
}

/** Where a call goes: the trunk its leg runs on and, once known, the INVITE that rings it (or why nothing can). */
interface Route {
  trunk: TrunkSettings;
  invite: (sdp: string) => Promise<InviteOptions | Unreachable>;
}

/** A softphone whose registration lapsed (or was removed) since the call was placed. */
const NOT_REGISTERED: Unreachable = { status: 480, reason: 'Temporarily Unavailable (not registered)' };

export class OutboundCalls {
  constructor(private readonly deps: OutboundDeps) {}

  async place(trx: Trx, call: CallRef, binding: string | null): Promise<void> {
    const { store, nodeId, platform, records } = this.deps;
    const route = this.routeOf(call, binding);
    const { trunk } = route;
    const state: LiveCallState = { trunk: trunk.name, sip_status: null, sip_reason: null };
    // The placing node holds the call: its dialog and media live here, in memory.
    await store.writeState(trx, call.id, JSON.stringify(state));
    await store.hold(trx, call.id, nodeId);
    trx.afterCommit(() => {
      this.dial({ ...call, carrier_state: JSON.stringify(state), node: nodeId }, route).catch((err) => {
        platform.log.error({ err, call: call.id }, 'sip: placing a call failed');
        void records.finish(call.id, { status: 'failed', hangupCause: 'network_out_of_order', hangupSource: 'system' }, null, String((err as Error).message));
      });
    });
  }

  /**
   * A trunk's route, a registered softphone's (whose contact is looked up when the INVITE
   * leaves), or a SIP URI's (whose host is resolved and judged then).
   */
  private routeOf(call: CallRef, binding: string | null): Route {
    const { settings, platform } = this.deps;
    if (isSipUriTarget(call.to_number)) {
      return {
        trunk: sipUriTrunk(call.to_number),
        invite: (sdp) => sipUriInvite(call.to_number, settings.publicHost, call.from_number, sdp, platform.config.webhookAllowPrivate),
      };
    }
    const user = softphoneUserOf(call.to_number);
    if (user === undefined) {
      const trunk = trunkNamed(settings.trunks, binding);
      return { trunk, invite: async (sdp) => trunkInvite(trunk, settings.publicHost, call.from_number, call.to_number, sdp) };
    }
    return {
      trunk: softphoneTrunk(user),
      invite: async (sdp) => {
        const [newest] = await this.deps.softphones().bindings(user, new Date());
        return newest ? softphoneInvite(newest, user, settings.registrar.nat, settings.publicHost, call.from_number, sdp) : NOT_REGISTERED;
      },
    };
  }

  private async dial(call: CallRef, { trunk, invite: inviteFor }: Route): Promise<void> {
    const { stack: { ua, engine }, settings, legs, records } = this.deps;
    const leg = legs.open(call, trunk);
    const port = await engine.open(call.id);
    const sdp = buildSdp({ address: settings.publicHost, port, codecs: trunk.codecs, dtmfPayloadType: 101, sessionId: Date.now() % 1e9, version: 1 });
    const options = await inviteFor(sdp);
    if (!('uri' in options)) {
      await legs.drop(leg);
      return records.finish(call.id, { status: 'failed', hangupCause: 'unallocated_number', hangupSource: 'carrier' }, options.status, options.reason);
    }
    // Post-dial delay is measured here, where both instants happen: the call's stored
    // timestamps hold when the API accepted it, not when the INVITE left.
    const invitedAt = performance.now();
    const invite = ua.invite(options);
    leg.invite = invite;
    if (leg.abandoned === 'api') ua.cancel(invite);
    leg.ringTimer = setTimeout(() => {
      leg.abandoned = 'ring_timeout';
      ua.cancel(invite);
    }, call.timeout * 1000);
    invite.on('provisional', (response) => {
      if (response.status === 180 || response.status === 183) {
        const postDialDelayMs = Math.round(performance.now() - invitedAt);
        void records.withCall(call.id, async (trx, row) => {
          if (row.status === 'queued') await records.signals.ringing(trx, row, { postDialDelayMs });
        });
      }
    });
    const outcome = await invite.outcome;
    clearTimeout(leg.ringTimer);
    if (outcome.kind === 'failed') {
      await legs.drop(leg);
      const { status, reason } = outcome.response;
      // Nothing answered because nothing could be sent (refused, a certificate we do not trust): say why.
      if (outcome.response.local === 'transport') this.deps.platform.log.warn({ call: call.id, trunk: trunk.name, reason }, 'sip: could not reach the trunk');
      if (leg.abandoned === 'api') {
        await records.saveSip(call.id, status, reason);
        return;
      }
      const end: CallEnd = leg.abandoned === 'ring_timeout'
        ? { status: 'no_answer', hangupCause: 'no_answer', hangupSource: 'carrier' }
        : failedEnd(status, outcome.response.headers.get('reason'));
      return records.finish(call.id, end, status, reason);
    }
    const media = remoteMedia(parseSdp(outcome.response.body), trunk.codecs);
    await legs.connect(leg, outcome.dialog, media);
    await records.withCall(call.id, async (trx, row) => {
      row = { ...row, carrier_state: await records.saveSip(call.id, outcome.response.status, outcome.response.reason, trx) };
      if (row.status === 'queued') row = await records.ringThen(trx, row);
      if (row.status === 'ringing') {
        this.deps.media.answering(trx, call.id);
        await records.signals.answered(trx, row);
      }
    });
  }
}

/** How a call whose INVITE got a final failure ends. */
function failedEnd(status: number, reasonHeader: string | undefined): CallEnd {
  const outcome = failureOutcome(status, parseReason(reasonHeader));
  const callEndStatus = outcome.status === 'canceled' ? 'failed' : outcome.status;
  return { status: callEndStatus, hangupCause: outcome.cause as CallEnd['hangupCause'], hangupSource: outcome.status === 'failed' ? 'carrier' : 'callee' };
}

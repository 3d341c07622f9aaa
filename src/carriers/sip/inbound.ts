// Inbound calls: an INVITE from outside passes a named chain of steps, each of which either
// lets it on or answers it with a final response (the way jambonz's middleware chain
// admits a call). Only an INVITE that passes them all is a call, and it is answered.
import { inTransaction } from '../../store/transaction.ts';
import type { Platform } from '../../platform/context.ts';
import type { CallRef } from '../../telephony/call-ref.ts';
import type { RemoteMedia } from '../rtp/protocol.ts';
import type { LiveMediaPort } from './live-media.ts';
import type { InboundAdmission } from './inbound-admission.ts';
import type { IncomingInvite } from './user-agent.ts';
import type { SipSettings, TrunkSettings } from './settings.ts';
import type { SipStack } from './sip-stack.ts';
import type { Legs } from './legs.ts';
import type { CallRecords, LiveCallState } from './call-records.ts';
import { fromTrunkNumber } from './caller-id.ts';
import { parseNameAddr, parseUri } from './headers.ts';
import { buildSdp, parseOffer, remoteMedia, type SessionOffer } from './sdp.ts';

/** An INVITE on its way through the steps; each step fills in what it found out, in order. */
class InboundInvite {
  trunk!: TrunkSettings;
  to!: string;
  from!: string;
  offer!: SessionOffer;
  media!: RemoteMedia;
  call!: CallRef;
  constructor(readonly incoming: IncomingInvite) {}
}

/** A final response that ends the INVITE's way through the steps. */
interface Refusal {
  status: number;
  reason: string;
  headers?: Record<string, string>;
}

type Step = (invite: InboundInvite) => Refusal | undefined | Promise<Refusal | undefined>;

export interface InboundDeps {
  platform: Platform;
  settings: SipSettings;
  stack: SipStack;
  admission: InboundAdmission;
  legs: Legs;
  records: CallRecords;
  media: LiveMediaPort;
  nodeId: string;
}

export class InboundCalls {
  /**
   * Admitted by source or digest (else 401/403), to a number (else 404), from a caller with
   * a number (else 433), with media we can speak (else 488), and taken by the calls module
   * (a live number of some account served by that trunk, under its cap: else 404 or 486).
   */
  private readonly steps: [name: string, step: Step][] = [
    ['trunk', (invite) => this.admitTrunk(invite)],
    ['called number', (invite) => this.calledNumber(invite)],
    ['caller', (invite) => this.caller(invite)],
    ['media offer', (invite) => this.mediaOffer(invite)],
    ['calls module', (invite) => this.decide(invite)],
  ];

  constructor(private readonly deps: InboundDeps) {}

  async receive(incoming: IncomingInvite): Promise<void> {
    const invite = new InboundInvite(incoming);
    for (const [name, step] of this.steps) {
      const refusal = await step(invite);
      if (!refusal) continue;
      this.deps.platform.log.debug({ source: incoming.from.address, step: name, status: refusal.status }, 'sip: inbound INVITE answered by a step');
      return this.deps.stack.ua.reject(incoming, refusal.status, refusal.reason, refusal.headers);
    }
    await this.answer(invite);
  }

  private admitTrunk(invite: InboundInvite): Refusal | undefined {
    const { incoming } = invite;
    const admission = this.deps.admission.admit(incoming.request, incoming.from.address);
    if (admission.kind === 'challenge') return { status: 401, reason: 'Unauthorized', headers: { 'WWW-Authenticate': admission.header } };
    if (admission.kind === 'forbidden') {
      this.deps.platform.log.info({ source: incoming.from.address, reason: admission.reason }, 'sip: inbound INVITE refused');
      return { status: 403, reason: 'Forbidden' };
    }
    invite.trunk = admission.trunk;
    return undefined;
  }

  /**
   * The called number: the Request-URI's user, or, when that is not a number (a registrar
   * calling our registered contact, sip:username@us), the To header's.
   */
  private calledNumber(invite: InboundInvite): Refusal | undefined {
    const { request } = invite.incoming;
    const rules = invite.trunk.callerId;
    const to = fromTrunkNumber(rules, userOf(request.uri)) ?? fromTrunkNumber(rules, userOf(parseNameAddr(request.headers.get('to') ?? '').uri));
    if (!to) return { status: 404, reason: 'Not Found' };
    invite.to = to;
    return undefined;
  }

  private caller(invite: InboundInvite): Refusal | undefined {
    const from = fromTrunkNumber(invite.trunk.callerId, userOf(parseNameAddr(invite.incoming.request.headers.get('from') ?? '').uri));
    if (!from) return { status: 433, reason: 'Anonymity Disallowed' };
    invite.from = from;
    return undefined;
  }

  private mediaOffer(invite: InboundInvite): Refusal | undefined {
    const { codecs } = invite.trunk;
    try {
      invite.offer = parseOffer(invite.incoming.request.body);
      invite.media = remoteMedia(invite.offer.audio, codecs);
    } catch {
      return { status: 488, reason: 'Not Acceptable Here', headers: { Warning: `399 switchboard "offer ${codecs.join(' or ')}"` } };
    }
    return undefined;
  }

  /** The calls module decides (number, binding, cap) and creates the call with our state on it. */
  private async decide(invite: InboundInvite): Promise<Refusal | undefined> {
    const { platform, records, nodeId } = this.deps;
    const state: LiveCallState = { trunk: invite.trunk.name, sip_status: 200, sip_reason: 'OK' };
    const signals = records.signals;
    const decision = await inTransaction(platform.database.db, (trx) => signals.admit(trx, {
      mode: 'live', from: invite.from, to: invite.to, binding: invite.trunk.name, carrierState: JSON.stringify(state), node: nodeId,
    }, platform.clock));
    if (!decision.admitted) {
      if (decision.reason === 'at_capacity') return { status: 486, reason: 'Busy Here', headers: { Reason: 'Q.850;cause=17;text="concurrent call limit"' } };
      return { status: 404, reason: 'Not Found' };
    }
    invite.call = decision.call;
    return undefined;
  }

  /** The call exists, ringing: answer it, unless the caller gave up meanwhile. */
  private async answer({ incoming, call, trunk, offer, media }: InboundInvite): Promise<void> {
    const { stack: { ua, engine }, settings, legs, records } = this.deps;
    const leg = legs.open(call, trunk);
    const port = await engine.open(call.id);
    ua.progress(incoming);
    if (incoming.canceled) {
      await legs.drop(leg);
      return records.finish(call.id, { status: 'no_answer', hangupCause: 'originator_cancel', hangupSource: 'caller' }, 487, 'Request Terminated');
    }
    const sdp = buildSdp({ address: settings.publicHost, port, codecs: [media.codec], dtmfPayloadType: media.dtmfPayloadType ?? 101, sessionId: Date.now() % 1e9, version: 1 }, offer);
    const dialog = ua.answer(incoming, sdp);
    await legs.connect(leg, dialog, media);
    await records.withCall(call.id, async (trx, row) => {
      if (row.status !== 'ringing') return;
      this.deps.media.answering(trx, call.id);
      await records.signals.answered(trx, row);
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

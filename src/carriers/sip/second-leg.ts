// A second call leg placed from a live call: a bridged transfer, or a flow's `dial`. It is
// an outbound INVITE over the call's trunk with its own RTP port in the media engine; once
// answered the carrier bridges it to the first leg (the engine relays and transcodes
// frame by frame). It has no call row of its own: its outcome belongs to the call it
// serves (a transfer outcome, or the bridge op's result).
//
// Early media (RFC 3960): a 180 or 183 with an SDP answer means the far end streams audio
// before answering (ringback, or an announcement such as "the number you have called is
// not in service" followed by a failure). The leg's media is connected to that answer and
// bridged to the first leg at once, so the caller hears it and the call's recording holds
// it, whether the leg is then answered or fails (closing a failed leg drops the bridge).
// A 180 or 183 without SDP starts our own ringback tone on the first leg instead (RFC
// 3960's local ringback) until the leg is answered or fails; early media is heard over it.
import type { MediaEngine } from '../rtp/engine.ts';
import type { Dialog } from './dialog.ts';
import type { UserAgent } from './user-agent.ts';
import type { SipSettings, TrunkSettings } from './settings.ts';
import { trunkInvite } from './trunk-target.ts';
import { buildSdp, parseSdp, remoteMedia } from './sdp.ts';
import { answerOffersOn } from './reoffers.ts';
import { failureOutcome } from './causes.ts';
import { parseReason } from './headers.ts';

export type SecondLegFailure = 'busy' | 'no_answer' | 'failed';

export type SecondLegResult =
  | { kind: 'answered'; leg: SecondLeg }
  | { kind: 'failed'; outcome: SecondLegFailure; sipStatus: number };

/** An answered second leg. `ended` resolves when either side hangs it up. */
export class SecondLeg {
  readonly ended: Promise<'remote' | 'local'>;
  private settle!: (by: 'remote' | 'local') => void;
  private closed = false;

  constructor(readonly id: string, readonly dialog: Dialog, private readonly engine: MediaEngine) {
    this.ended = new Promise((resolve) => {
      this.settle = resolve;
    });
    dialog.once('bye', () => void this.close('remote'));
  }

  /** Ends the leg from our side (BYE) and frees its media port; safe to call twice. */
  async hangUp(): Promise<void> {
    if (!this.dialog.ended) await this.dialog.bye().catch(() => undefined);
    await this.close('local');
  }

  private async close(by: 'remote' | 'local'): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.engine.close(this.id).catch(() => undefined);
    this.settle(by);
  }
}

export interface SecondLegRequest {
  /** The media engine's id for the leg (distinct from the call's own leg). */
  id: string;
  /** The call's own media leg, which this one will be bridged to (they must share a media worker). */
  alongside: string;
  trunk: TrunkSettings;
  /** The number the far end sees as calling. */
  from: string;
  to: string;
  ringTimeoutSeconds: number;
  /** Resolves when the caller gave up meanwhile (the first leg hung up): we CANCEL. */
  abandoned?: Promise<unknown>;
}

/** Places the leg; resolves once it is answered (media connected) or has failed. */
export async function placeSecondLeg(deps: { ua: UserAgent; engine: MediaEngine; settings: SipSettings }, request: SecondLegRequest): Promise<SecondLegResult> {
  const { ua, engine, settings } = deps;
  const { trunk } = request;
  const port = await engine.open(request.id, { alongside: request.alongside });
  const sdp = buildSdp({ address: settings.publicHost, port, codecs: trunk.codecs, dtmfPayloadType: 101, sessionId: Date.now() % 1e9, version: 1 });
  const invite = ua.invite(trunkInvite(trunk, settings.publicHost, request.from, request.to, sdp));
  let timedOut = false;
  const ringTimer = setTimeout(() => {
    timedOut = true;
    ua.cancel(invite);
  }, request.ringTimeoutSeconds * 1000);
  void request.abandoned?.then(() => ua.cancel(invite));
  let earlyMedia: Promise<void> | undefined;
  let ringback: Promise<void> | undefined;
  invite.on('provisional', (response) => {
    if (response.status < 180) return;
    if (response.body.trim() === '') ringback ??= engine.ringback(request.alongside, true).catch(() => undefined);
    else earlyMedia ??= connectEarlyMedia(engine, request, response.body);
  });
  const outcome = await invite.outcome;
  clearTimeout(ringTimer);
  // The early media's setup finishes before the leg is answered or closed; the ringing is over.
  await earlyMedia;
  if (ringback) await ringback.then(() => engine.ringback(request.alongside, false)).catch(() => undefined);
  if (outcome.kind === 'failed') {
    await engine.close(request.id).catch(() => undefined);
    const { status } = outcome.response;
    if (timedOut) return { kind: 'failed', outcome: 'no_answer', sipStatus: status };
    const failure = failureOutcome(status, parseReason(outcome.response.headers.get('reason')));
    return { kind: 'failed', outcome: failure.status === 'canceled' ? 'no_answer' : failure.status, sipStatus: status };
  }
  try {
    const media = remoteMedia(parseSdp(outcome.response.body), trunk.codecs);
    await engine.setRemote(request.id, media);
    answerOffersOn(outcome.dialog, engine, request.id, trunk.codecs, media.codec);
  } catch {
    // An answer we cannot speak with: hang it up rather than bridge silence.
    await outcome.dialog.bye('SIP ;cause=488 ;text="Not Acceptable Here"').catch(() => undefined);
    await engine.close(request.id).catch(() => undefined);
    return { kind: 'failed', outcome: 'failed', sipStatus: 488 };
  }
  return { kind: 'answered', leg: new SecondLeg(request.id, outcome.dialog, engine) };
}

async function connectEarlyMedia(engine: MediaEngine, request: SecondLegRequest, sdp: string): Promise<void> {
  try {
    await engine.setRemote(request.id, remoteMedia(parseSdp(sdp), request.trunk.codecs));
  } catch {
    // Early media we cannot speak with: the caller hears our ringback, or nothing, until an answer.
    return;
  }
  // What is being played to the caller still wins over it; a first leg already gone refuses the bridge.
  await engine.bridge(request.alongside, request.id).catch(() => undefined);
}

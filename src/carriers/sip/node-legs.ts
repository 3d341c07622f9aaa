// Node-to-node media legs: a conference is mixed on one media node (its home, the node of its
// first participant), and a participant whose call another node holds joins it over a SIP
// leg between the two nodes. The participant's node places the leg (an INVITE to the home
// node's SIP listener, advertised in sip_nodes) and relays between it and the call's own leg
// in its media worker (engine.bridge, frame by frame, as a bridged transfer does); the home
// node answers it as an RTP session named after the participant's call, so the conference
// mixes it as that call: mute, hold, coach, beeps and announcements all happen there. The
// leg lasts as long as the participant's conference operation.
//
// A call connected to a queue's caller held by another node (a dequeue) reaches it the same
// way: the connection (telephony/conference.ts connectionMixId) is mixed on the caller's node.
//
// The INVITE carries the conference, the call and the home node, signed with a key derived
// from the secret key every node of one database shares (SWITCHBOARD_SECRET_KEY), a time
// stamp and a nonce: a node answers only legs another node of its own deployment signed in
// the last minute, aimed at itself, and each claim once (a claim names a node id, which lives
// as long as its process, so the claims seen in the last minute are kept in memory); anyone
// else, and a replay, gets a 403.
//
// While a conference waits for its start the home tells each leg so, and again when it
// starts (an INFO in the leg's dialog, X-Switchboard-Conference: waiting | in_progress): a
// participant with a wait flow of its own hears it on its own node, not the home's hold tone.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { MediaEngine } from '../rtp/engine.ts';
import type { G711Codec } from '../rtp/g711.ts';
import type { Dialog } from './dialog.ts';
import type { IncomingInvite, UserAgent } from './user-agent.ts';
import { SecondLeg } from './second-leg.ts';
import { buildSdp, parseOffer, parseSdp, remoteMedia, type SessionOffer } from './sdp.ts';

/** The header that marks a node-to-node leg, and its claim. */
export const NODE_LEG_HEADER = 'X-Switchboard-Node-Leg';
/** The header of the home's INFO that tells a participant's node whether the conference waits. */
const STATUS_HEADER = 'X-Switchboard-Conference';
const FRESH_MS = 60_000;
/** Between our own nodes: µ-law (the far legs are transcoded in the relay like any bridge). */
const CODECS: G711Codec[] = ['PCMU'];

export interface NodeLegsDeps {
  ua(): UserAgent;
  engine(): MediaEngine;
  nodeId: string;
  publicHost: string;
  /** The secret key the nodes of one database share; absent, there are no node-to-node legs. */
  secretKey: string | undefined;
  /** host:port where a node takes node-to-node legs (sip_nodes), null when it is gone. */
  addressOf(nodeId: string): Promise<string | null>;
  /** Whether `callId` is still in progress (on whichever node holds it). */
  inProgress(callId: string): Promise<boolean>;
  /** How often the legs answered here are checked against their calls (ms). */
  checkEveryMs: number;
  /** A participant's leg arrived here: its conference's (or connection's) mix is applied again (live-conferences.ts). */
  arrived(conferenceId: string, callId: string): void;
  log(err: Error, subject: string): void;
}

interface Claim {
  conferenceId: string;
  callId: string;
  home: string;
  at: number;
  nonce: string;
}

/** Told by the home, on the participant's node: whether the conference waits (its own wait audio plays) or runs. */
export type WaitingListener = (waiting: boolean) => void;

export class NodeLegs {
  /** Legs answered here, by participant call id. */
  private readonly answered = new Map<string, { dialog: Dialog; conferenceId: string }>();
  private readonly key: Buffer | null;
  /** Claims answered in the last minute (nonce to time stamp): each is good once. */
  private readonly seen = new Map<string, number>();

  private readonly checker: NodeJS.Timeout;

  constructor(private readonly deps: NodeLegsDeps) {
    this.key = deps.secretKey ? createHash('sha256').update(`switchboard node-to-node media legs\n${deps.secretKey}`).digest() : null;
    this.checker = setInterval(() => void this.dropEnded().catch((err: Error) => deps.log(err, 'checking node-to-node legs')), deps.checkEveryMs);
    this.checker.unref();
  }

  /**
   * On the home node: a leg whose call ended is hung up. Its own node hangs it up when the
   * call's operation ends, but a node that died sends no BYE (its calls are ended by a
   * survivor), and the leg would stay open here, silent, until this node stops.
   */
  private async dropEnded(): Promise<void> {
    for (const [callId, { dialog }] of [...this.answered]) {
      if (await this.deps.inProgress(callId)) continue;
      if (!dialog.ended) void dialog.bye().catch(() => undefined);
      await this.drop(callId, dialog);
    }
  }

  /** The call's conference leg arrived here from its own node (the mix treats it as the call). */
  has(callId: string): boolean {
    return this.answered.has(callId);
  }

  isNodeLeg(incoming: IncomingInvite): boolean {
    return incoming.request.headers.get(NODE_LEG_HEADER.toLowerCase()) !== undefined;
  }

  /**
   * On the participant's node: places the leg to `home` and relays it to the call's leg until
   * `cutShort` settles (removed, the conference ended, hang-up) or the home node hangs it up.
   * With `onWaiting` the call plays its own wait audio: while the home says the conference
   * waits, the leg is not relayed to the call (the home's hold tone is not heard), and
   * `onWaiting` is told each change.
   */
  async joinHome(callId: string, conferenceId: string, home: string, cutShort: Promise<unknown>, onWaiting?: WaitingListener): Promise<void> {
    if (!this.key) throw new Error('node-to-node legs need SWITCHBOARD_SECRET_KEY (the key the nodes share)');
    const address = await this.deps.addressOf(home);
    if (!address) throw new Error(`node ${home}, which mixes conference ${conferenceId}, is not in the node table`);
    const at = address.lastIndexOf(':');
    const [host, port] = [address.slice(0, at), Number(address.slice(at + 1))];
    const ua = this.deps.ua();
    const engine = this.deps.engine();
    // Its own id each time: a leg whose BYE is still out (below) never shares one with the call's next leg.
    const id = `${callId}~node-leg-${randomBytes(4).toString('hex')}`;
    const local = await engine.open(id, { alongside: callId });
    const uri = `sip:conference@${address}`;
    const invite = ua.invite({
      uri, peer: { transport: 'UDP', address: host, port }, from: { user: 'node', host: this.deps.publicHost }, to: uri,
      sdp: buildSdp({ address: this.deps.publicHost, port: local, codecs: CODECS, dtmfPayloadType: 101, sessionId: Date.now() % 1e9, version: 1 }),
      headers: { [NODE_LEG_HEADER]: this.sign({ conferenceId, callId, home, at: Date.now(), nonce: randomBytes(12).toString('hex') }) },
    });
    let cut = false;
    void cutShort.then(() => {
      cut = true;
      ua.cancel(invite);
    });
    const outcome = await invite.outcome;
    if (outcome.kind === 'failed') {
      await engine.close(id).catch(() => undefined);
      if (cut) return;
      throw new Error(`node ${home} refused the conference leg: ${outcome.response.status} ${outcome.response.reason}`);
    }
    const leg = new SecondLeg(id, outcome.dialog, engine);
    // The home tells the conference's state as soon as it seats the leg, maybe before the relay below is set up: the last word waits for it.
    let told: string | undefined;
    let relaying = false;
    if (onWaiting) {
      outcome.dialog.on('info', (request) => {
        told = request.headers.get(STATUS_HEADER.toLowerCase());
        if (relaying) void this.heardStatus(callId, id, told, onWaiting);
      });
    }
    try {
      await engine.setRemote(id, remoteMedia(parseSdp(outcome.response.body), CODECS));
      if (cut) return;
      // The conference takes over the line (the home node sends the wait audio, or the room).
      await engine.stopPlayback(callId).catch(() => undefined);
      await engine.bridge(callId, id);
      relaying = true;
      if (onWaiting && told) await this.heardStatus(callId, id, told, onWaiting);
      await Promise.race([leg.ended, cutShort]);
    } finally {
      await engine.bridge(callId, null).catch(() => undefined);
      // Not awaited: a home that died never answers the BYE, and the call's flow must not wait
      // for its transaction's timeout to go on. The leg's port closes once the BYE is done.
      void leg.hangUp();
    }
  }

  /** The home said the conference waits or runs: the call hears its own wait audio, or the home's room. */
  private async heardStatus(callId: string, legId: string, status: string | undefined, onWaiting: WaitingListener): Promise<void> {
    if (status !== 'waiting' && status !== 'in_progress') return;
    const engine = this.deps.engine();
    onWaiting(status === 'waiting');
    try {
      if (status === 'waiting') return await engine.bridge(callId, null);
      await engine.stopPlayback(callId);
      await engine.bridge(callId, legId);
    } catch (err) {
      this.deps.log(err as Error, `${callId} conference leg`);
    }
  }

  /**
   * On the home node: tells a participant's node whether its conference waits (a no-op for a
   * call that has no leg here). An INFO lost (the leg is going) is not retried: the leg is.
   */
  tellWaiting(callId: string, waiting: boolean): void {
    const leg = this.answered.get(callId);
    if (!leg || leg.dialog.ended) return;
    void leg.dialog.request('INFO', { headers: { [STATUS_HEADER]: waiting ? 'waiting' : 'in_progress' } })
      .catch((err: Error) => this.deps.log(err, `${callId} conference leg`));
  }

  /** On the home node: answers a signed leg as the participant's call on the conference's bus. */
  async receive(incoming: IncomingInvite): Promise<void> {
    const ua = this.deps.ua();
    const engine = this.deps.engine();
    const claim = this.verify(incoming.request.headers.get(NODE_LEG_HEADER.toLowerCase()) ?? '');
    if (!claim) return ua.reject(incoming, 403, 'Forbidden');
    if (this.answered.has(claim.callId)) return ua.reject(incoming, 486, 'Busy Here');
    let offer: SessionOffer;
    let media: ReturnType<typeof remoteMedia>;
    try {
      offer = parseOffer(incoming.request.body);
      media = remoteMedia(offer.audio, CODECS);
    } catch {
      return ua.reject(incoming, 488, 'Not Acceptable Here');
    }
    const port = await engine.open(claim.callId);
    const dialog = ua.answer(incoming, buildSdp({ address: this.deps.publicHost, port, codecs: [media.codec], dtmfPayloadType: media.dtmfPayloadType ?? 101, sessionId: Date.now() % 1e9, version: 1 }, offer));
    this.answered.set(claim.callId, { dialog, conferenceId: claim.conferenceId });
    dialog.once('bye', () => void this.drop(claim.callId, dialog));
    try {
      await engine.setRemote(claim.callId, media);
    } catch (err) {
      await dialog.bye().catch(() => undefined);
      await this.drop(claim.callId, dialog);
      throw err;
    }
    this.deps.arrived(claim.conferenceId, claim.callId);
  }

  /** The node stops: the legs answered here end (their participants' nodes stop relaying). */
  async stop(): Promise<void> {
    clearInterval(this.checker);
    for (const [callId, { dialog }] of [...this.answered]) {
      if (!dialog.ended) await dialog.bye().catch(() => undefined);
      await this.drop(callId, dialog);
    }
  }

  private async drop(callId: string, dialog: Dialog): Promise<void> {
    if (this.answered.get(callId)?.dialog !== dialog) return;
    this.answered.delete(callId);
    await this.deps.engine().close(callId).catch((err: Error) => this.deps.log(err, `${callId} conference leg`));
  }

  private sign(claim: Claim): string {
    const text = `${claim.conferenceId};${claim.callId};${claim.home};${claim.at};${claim.nonce}`;
    return `${text};${createHmac('sha256', this.key!).update(text).digest('hex')}`;
  }

  /** The claim of a header this deployment signed for this node in the last minute and not seen before, or null. */
  private verify(header: string): Claim | null {
    if (!this.key) return null;
    const parts = header.trim().split(';');
    if (parts.length !== 6) return null;
    const [conferenceId, callId, home, at, nonce, signature] = parts as [string, string, string, string, string, string];
    const expected = createHmac('sha256', this.key).update(parts.slice(0, 5).join(';')).digest();
    const given = Buffer.from(signature, 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    const now = Date.now();
    if (home !== this.deps.nodeId || Math.abs(now - Number(at)) > FRESH_MS) return null;
    // Seen claims older than the window can no longer pass the check above: they are forgotten.
    for (const [old, stamp] of this.seen) if (Math.abs(now - stamp) > FRESH_MS) this.seen.delete(old);
    if (nonce === '' || this.seen.has(nonce)) return null;
    this.seen.set(nonce, Number(at));
    return { conferenceId, callId, home, at: Number(at), nonce };
  }
}

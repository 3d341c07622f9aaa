// Several media nodes on one PostgreSQL database. A live call's dialog and media live in one
// node's memory (calls.node), so an action on that call that another node takes (an API
// request that reached it, a job it claimed: hang up, transfer, run a flow verb, send
// digits, start or stop a recording) is carried to the owner as a command: a job only the
// owner claims, written in the transaction of the change it belongs to (so it exists exactly
// when that change committed, and survives a crash of the sender), plus a NOTIFY, delivered
// at that same commit, that wakes the owner's job worker at once instead of at its next poll.
// The NOTIFY is only the fast path: a lost one (the owner's listening connection dropping)
// delays the command by one poll, never loses it. A dead owner's calls are ended by a
// survivor (node-lease.ts), and its commands go with them.
//
// On SQLite one process is the deployment: every call is this node's, nothing is sent.
import pg from 'pg';
import type { Platform } from '../../platform/context.ts';
import type { Trx } from '../../store/transaction.ts';
import type { CallRef } from '../../telephony/call-ref.ts';
import type { MediaOp, PlayOp, RecordingFormat, SpeakOp } from '../../telephony/media-ops.ts';
import type { ConferenceMix } from '../../telephony/conference.ts';
import { NODE_WAKE_CHANNEL } from '../../jobs/queue.ts';
import type { StreamOrder } from '../../telephony/media-streams.ts';

/** What another node asks of the owner of a call; each is a VoiceCarrier or MediaPort method, carried out there. */
export type CallCommand =
  | { kind: 'hang_up' }
  | { kind: 'transfer'; index: number; to: string; ringTimeout: number }
  | { kind: 'run'; opId: string; op: MediaOp }
  | { kind: 'interrupt'; opId: string }
  | { kind: 'dtmf'; digits: string }
  | { kind: 'start_capture'; recordingId: string; format: RecordingFormat }
  | { kind: 'pause_capture'; recordingId: string }
  | { kind: 'stop_capture'; recordingId: string }
  | { kind: 'start_stream'; order: StreamOrder };

export interface CommandPayload {
  callId: string;
  command: CallCommand;
}

/**
 * An announcement's file as another node is told of it: its URL, not the path where the node
 * the request reached cached it (that disk is not the home's); the home fetches it into its
 * own cache (live-conferences.ts).
 */
export type ForwardedPlay = Omit<PlayOp, 'path'>;

/**
 * What a node tells the node that mixes a conference (its home, ConferenceMix.home): each is
 * a ConferenceMedia method, carried out there, where the conference's bus is.
 */
export type ConferenceMessage =
  | { kind: 'mix'; mix: ConferenceMix }
  | { kind: 'announce'; mix: ConferenceMix; prompt: SpeakOp | ForwardedPlay }
  | { kind: 'start_capture'; mix: ConferenceMix; recordingId: string; format: RecordingFormat }
  | { kind: 'stop_capture'; mix: ConferenceMix; recordingId: string };

export interface ConferencePayload {
  conferenceId: string;
  message: ConferenceMessage;
}

/**
 * Talk time of a call whose media clock this node cannot read (held by another node, or lost
 * with a dead one), from the answer time stored with the call; null while unanswered.
 */
export function talkSecondsFromAnswer(call: Pick<CallRef, 'answered_at'>, nowMs: number): number | null {
  return call.answered_at ? Math.max(0, nowMs - Date.parse(call.answered_at)) / 1000 : null;
}

export const COMMAND_JOB = 'sip.command';
export const CONFERENCE_JOB = 'sip.conference';
/** One channel for every node (the job queue notifies it when a job is given to a node); the payload names the node to wake. */
const WAKE_CHANNEL = NODE_WAKE_CHANNEL;
const RELISTEN_MS = 2000;

export class NodeCommands {
  /** Commands of one call run one after another, in the order they were sent. */
  private readonly queues = new Map<string, Promise<void>>();
  private listener: pg.Client | null = null;
  private stopped = false;
  private relisten: NodeJS.Timeout | undefined;

  constructor(private readonly platform: Platform, readonly nodeId: string) {}

  /** Several nodes exist only on PostgreSQL. */
  private get shared(): boolean {
    return this.platform.database.engine === 'postgres';
  }

  /** The node that holds `call`, and whether it is this one; null when any node may act on it. */
  ownerOf(call: CallRef): { node: string; here: boolean } | null {
    if (!this.shared || !call.node) return null;
    return { node: call.node, here: call.node === this.nodeId };
  }

  /** The node this call's media lives on, to give its jobs to; null: no node in particular. */
  nodeFor(): string | null {
    return this.shared ? this.nodeId : null;
  }

  /** True when `node` is another node of the shared database (on SQLite every node is this one). */
  isOther(node: string | null | undefined): boolean {
    return this.shared && !!node && node !== this.nodeId;
  }

  /** True when `call` lives on another node: the caller sends a command instead of acting. */
  elsewhere(call: CallRef): boolean {
    return this.ownerOf(call)?.here === false;
  }

  /** Sends `command` to the node that holds `call`, committed with `trx`. */
  async send(trx: Trx, call: CallRef, command: CallCommand): Promise<void> {
    const node = call.node as string;
    // Enqueued for `node`, the job also wakes it (NOTIFY) when the transaction commits.
    await this.platform.jobs.enqueue(trx, COMMAND_JOB, { callId: call.id, command } satisfies CommandPayload, { node, maxAttempts: 5 });
  }

  /** Sends `message` to `node`, the home of its conference, committed with `trx` (the same way as a call's command). */
  async tell(trx: Trx, node: string, conferenceId: string, message: ConferenceMessage): Promise<void> {
    await this.platform.jobs.enqueue(trx, CONFERENCE_JOB, { conferenceId, message } satisfies ConferencePayload, { node, maxAttempts: 5 });
  }

  /**
   * This node carries out the commands sent to it: claims the jobs of its node, and listens
   * for the NOTIFY that says one is waiting. `execute` acts on the call as if the request had
   * reached this node.
   */
  async serve(execute: (payload: CommandPayload) => Promise<void>, hear: (payload: ConferencePayload) => Promise<void>): Promise<void> {
    this.platform.jobs.register<CommandPayload>(COMMAND_JOB, (payload) => this.inOrder(payload.callId, () => execute(payload)), {
      maxAttempts: 5, backoffSeconds: (n) => n,
    });
    // A conference's messages keep their order too (a mix never overtakes an earlier one).
    this.platform.jobs.register<ConferencePayload>(CONFERENCE_JOB, (payload) => this.inOrder(payload.conferenceId, () => hear(payload)), {
      maxAttempts: 5, backoffSeconds: (n) => n,
    });
    if (!this.shared) return;
    this.platform.jobs.serveNode(this.nodeId);
    await this.listen();
  }

  private inOrder(key: string, execute: () => Promise<void>): Promise<void> {
    const previous = this.queues.get(key) ?? Promise.resolve();
    const mine = previous.catch(() => undefined).then(execute);
    const tail = mine.catch(() => undefined);
    this.queues.set(key, tail);
    void tail.then(() => {
      if (this.queues.get(key) === tail) this.queues.delete(key);
    });
    return mine;
  }

  /** Listens for wake-ups; never throws: a failed connection is retried (the job poll covers the gap). */
  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.platform.config.databaseUrl });
    let lost = false;
    const onLost = (err: Error) => {
      if (lost) return;
      lost = true;
      this.platform.log.warn({ err }, 'sip: the node wake-up connection failed; commands wait for the job poll until it is back');
      client.removeAllListeners();
      void client.end().catch(() => undefined);
      if (this.listener === client) this.listener = null;
      if (this.stopped) return;
      this.relisten = setTimeout(() => void this.listen(), RELISTEN_MS);
      this.relisten.unref();
    };
    client.on('error', onLost);
    client.on('end', () => onLost(new Error('connection ended')));
    client.on('notification', (message) => {
      if (message.channel === WAKE_CHANNEL && message.payload === this.nodeId) this.platform.jobs.notify();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${WAKE_CHANNEL}`);
    } catch (err) {
      onLost(err as Error);
      return;
    }
    this.listener = client;
    // Commands sent while we were not listening are waiting already.
    this.platform.jobs.notify();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.relisten);
    const client = this.listener;
    this.listener = null;
    client?.removeAllListeners();
    await client?.end().catch(() => undefined);
  }

  /**
   * `nodeId` died: the commands sent to it are moot (its calls are ending), and any other job
   * given to it goes to whichever node claims it first (its handler finds the call ended).
   */
  async release(trx: Trx, nodeId: string): Promise<void> {
    await trx.deleteFrom('jobs').where('node', '=', nodeId).where('kind', 'in', [COMMAND_JOB, CONFERENCE_JOB]).execute();
    await trx.updateTable('jobs').set({ node: null }).where('node', '=', nodeId).execute();
  }
}

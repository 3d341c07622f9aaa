// Media streams (docs/media-streams.md): a call's audio to the customer's WebSocket server,
// asked for by POST /v1/calls/{id}/streams or a flow's stream verb. This service keeps the
// stream resources and their events; the call's carrier (its media port's `streams`) does the
// audio. A stream is written `connecting` in the asking transaction; after it commits, its URL
// is checked again and resolved (the port connects to that address), the handshake is signed
// with the account's default webhook secret (Standard Webhooks: id = the stream id, content =
// handshakeContent), and the port is told. The port reports started, then ended (with the frames it
// dropped), or failed; a stream that held a flow then lets it go on. A call that ends stops
// its streams (call_ended).
//
// A stream's socket lives in one process: the node holding the call's media (a live call), or
// the node that connected it (the sandbox), recorded as the stream's `node`. A stop asked of
// another node is a job given to that node (the job queue wakes it, as for every command to a
// media node); a stream whose node died, or a server process that restarted, ends
// (`node_lost`, or `call_ended` if the call is over) so it never stays open (docs/media-streams.md).
import type { Platform } from '../../platform/context.ts';
import type { Clock } from '../../platform/clock.ts';
import type { EventEmitter } from '../../events/emit.ts';
import { inTransaction, type Trx } from '../../store/transaction.ts';
import { newId } from '../../platform/ids.ts';
import { Problem, notFound } from '../../platform/problems.ts';
import { fetchPage, type PageInput } from '../../platform/pagination.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import type { MediaStreamPort, StreamEvents, VoiceCarriers } from '../../carriers/index.ts';
import type { StreamEnd, StreamFailure, StreamFormat, StreamOrder, StreamStopReason, StreamTrack } from '../../telephony/media-streams.ts';
import type { CallRow } from '../calls/tables.ts';
import type { CallService, Caller } from '../calls/service.ts';
import { isFinal } from '../calls/states.ts';
import type { FlowRuntime } from '../calls/flows/verbs/verb.ts';
import { releaseHold, type FlowStreamStart, type FlowStreams } from '../calls/flows/verbs/stream.ts';
import { UrlNotAllowed, assertWebhookUrlAllowed } from '../webhooks/url-policy.ts';
import { webhookHeaders } from '../webhooks/signing.ts';
import { activeSecrets, type DefaultSecrets } from '../webhooks/default-secrets.ts';
import { OPEN_STATUSES, transition, type StreamStatus } from './states.ts';
import { presentStream, type Stream } from './presenter.ts';
import { assertStreamUrlAllowed, resolveStreamAddress } from './stream-url.ts';
import type { StreamRow } from './tables.ts';

/**
 * What the handshake's signature covers: the stream id and the URL as asked for, as compact
 * JSON in this key order (Standard Webhooks libraries verify a JSON payload). The server
 * rebuilds it from the webhook-id header and the URL it serves.
 */
export function handshakeContent(streamId: string, url: string): string {
  return JSON.stringify({ stream_id: streamId, url });
}

/** A stop for the node that holds the stream's socket. */
const STOP_JOB = 'streams.stop';
interface StopOrder {
  callId: string;
  streamId: string;
  reason: StreamStopReason;
}

export interface StreamRequest {
  url: string;
  track?: StreamTrack | undefined;
  bidirectional?: boolean | undefined;
  format?: StreamFormat | undefined;
  parameters?: Record<string, string> | undefined;
  status_url?: string | undefined;
}

export class StreamService implements StreamEvents, FlowStreams {
  constructor(
    private readonly platform: Platform,
    private readonly events: EventEmitter,
    private readonly calls: CallService,
    private readonly carriers: VoiceCarriers,
    private readonly secrets: { defaults: DefaultSecrets; box: SecretBox },
    /** The flow interpreter's runtime: a stream verb's held flow goes on through it. */
    private readonly runtime: FlowRuntime,
  ) {
    calls.onTransition(async (trx, call, from) => {
      if (from === 'in_progress' && isFinal(call.status)) await this.callEnded(trx, call);
    });
    platform.jobs.register<StopOrder>(STOP_JOB, (order) => this.stopHere(order), { maxAttempts: 5, backoffSeconds: (n) => n });
  }

  readonly present = presentStream;

  private get db() {
    return this.platform.database.db;
  }

  async startByApi(caller: Caller, callId: string, body: StreamRequest): Promise<Stream> {
    await assertStreamUrlAllowed(body.url, caller.mode, this.platform.config, 'url');
    if (body.status_url) await assertWebhookUrlAllowed(body.status_url, caller.mode, this.platform.config, 'status_url');
    return inTransaction(this.db, async (trx) => {
      const call = await this.calls.lockOwned(trx, caller.account.id, caller.mode, callId);
      return this.present(await this.create(trx, call, body, 'api', null, caller.clock));
    });
  }

  async startForFlow(trx: Trx, call: CallRow, body: StreamRequest, clock: Clock, holdOp: string | null): Promise<FlowStreamStart> {
    try {
      return { ok: true, streamId: (await this.create(trx, call, body, 'flow', holdOp, clock)).id };
    } catch (err) {
      if (err instanceof Problem) return { ok: false, detail: err.message };
      throw err;
    }
  }

  async list(caller: Caller, callId: string, page: PageInput): Promise<StreamRow[]> {
    await this.calls.get(caller.account.id, caller.mode, callId);
    return fetchPage(this.db.selectFrom('call_streams').selectAll().where('call_id', '=', callId)
      .where('account_id', '=', caller.account.id).where('mode', '=', caller.mode), page);
  }

  /**
   * POST .../stop: the stream is stopped now (call.stream.stopped, reason stopped, in this
   * transaction, so the answer says `stopped` as Twilio's does) and the port sends `stop` and
   * closes after the commit; frames it drops meanwhile are added when it reports. A held flow
   * goes on. A stream already over is returned as it is.
   */
  async stopByApi(caller: Caller, callId: string, streamId: string): Promise<Stream> {
    return inTransaction(this.db, async (trx) => {
      const call = await this.calls.lockOwned(trx, caller.account.id, caller.mode, callId);
      const row = await this.lock(trx, streamId);
      if (!row || row.call_id !== call.id) throw notFound('stream', streamId);
      if (!OPEN_STATUSES.includes(row.status)) return this.present(row);
      await this.stopSocket(trx, call, row, 'stopped');
      const next = await this.move(trx, call, row, 'stopped', { reason: 'stopped' });
      await this.release(trx, call, next);
      return this.present(next);
    });
  }

  private port(call: CallRow): MediaStreamPort | undefined {
    return this.carriers.named(call.carrier).media.streams;
  }

  /** This process's media node; null on a single-node deployment. */
  private get here(): string | null {
    return this.platform.jobs.servedNode;
  }

  /** The node whose process will hold a stream's socket: the live call's media node, else this one. */
  private holderOf(call: CallRow): string | null {
    return this.carriers.named(call.carrier).ownerOf?.(call)?.node ?? this.here;
  }

  /** The port closes the socket with a `stop` frame: here, or on the node that holds it (a job given to that node). */
  private async stopSocket(trx: Trx, call: CallRow, stream: StreamRow, reason: StreamStopReason): Promise<void> {
    if (stream.node && stream.node !== this.here) {
      await this.platform.jobs.enqueue(trx, STOP_JOB, { callId: call.id, streamId: stream.id, reason } satisfies StopOrder, { node: stream.node, maxAttempts: 5 });
      return;
    }
    await this.port(call)?.stop(trx, call, stream.id, reason);
  }

  /**
   * A stop sent to this node. A job given to a node that died goes to whichever node claims it
   * first: that node finds the stream held elsewhere, its socket gone with the dead node.
   */
  private async stopHere(order: StopOrder): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      const { call, stream } = await this.lockBoth(trx, order.callId, order.streamId);
      if (!call || !stream) return;
      if (stream.node === this.here) await this.port(call)?.stop(trx, call, stream.id, order.reason);
      else if (OPEN_STATUSES.includes(stream.status)) await this.lost(trx, call, stream);
    });
  }

  /** Media node `nodeId` died (its lease ran out): the streams it held are over. */
  async nodeLost(nodeId: string): Promise<void> {
    await this.endOpen(this.db.selectFrom('call_streams').select(['id', 'call_id']).where('node', '=', nodeId).where('status', 'in', [...OPEN_STATUSES]).execute(), nodeId);
  }

  /**
   * At start: streams left open by a process with no media node (a single-node deployment:
   * SQLite, or a PostgreSQL process with no live carrier) had their sockets in a process that
   * is gone (crashed or restarted). A media node's own previous life is a dead node (nodeLost).
   */
  async endOrphans(): Promise<void> {
    if (this.here !== null) return;
    await this.endOpen(this.db.selectFrom('call_streams').select(['id', 'call_id']).where('node', 'is', null).where('status', 'in', [...OPEN_STATUSES]).execute(), null);
  }

  private async endOpen(found: Promise<Array<{ id: string; call_id: string }>>, node: string | null): Promise<void> {
    const open = await found;
    if (open.length) this.platform.log.warn({ node, streams: open.length }, 'media streams whose sockets were in a process that is gone: ending them');
    for (const { id, call_id: callId } of open) {
      await inTransaction(this.db, async (trx) => {
        const { call, stream } = await this.lockBoth(trx, callId, id);
        if (stream && stream.node === node && OPEN_STATUSES.includes(stream.status)) await this.lost(trx, call, stream);
      });
    }
  }

  /** Its socket went with its process: stopped, `call_ended` if the call is over, else `node_lost` (a held flow goes on). */
  private async lost(trx: Trx, call: CallRow | undefined, stream: StreamRow): Promise<void> {
    const reason: StreamStopReason = call?.status === 'in_progress' ? 'node_lost' : 'call_ended';
    const next = await this.move(trx, call, stream, 'stopped', { reason });
    await this.release(trx, call, next);
  }

  private async create(trx: Trx, call: CallRow, body: StreamRequest, source: 'api' | 'flow', holdOp: string | null, clock: Clock): Promise<StreamRow> {
    if (call.status !== 'in_progress') throw new Problem('call_not_in_progress', `Streams start on a call in progress; call ${call.id} is ${call.status}.`);
    if (!this.port(call)) throw new Problem('streams_unavailable', `Media streams are not available on ${call.mode} calls of this server yet (carrier ${call.carrier}).`);
    const bidirectional = body.bidirectional === true;
    if (bidirectional) {
      const running = await trx.selectFrom('call_streams').select('id').where('call_id', '=', call.id)
        .where('bidirectional', '=', 1).where('status', 'in', [...OPEN_STATUSES]).executeTakeFirst();
      if (running) throw new Problem('stream_bidirectional_in_progress', `Call ${call.id} already has a bidirectional stream (${running.id}); one runs per call. Stop it first.`);
    }
    const now = clock.now().toISOString();
    const row: StreamRow = {
      id: newId('stream'), account_id: call.account_id, mode: call.mode, call_id: call.id, status: 'connecting', source,
      url: body.url, track: body.track ?? 'inbound', format: body.format ?? 'mulaw_8000', bidirectional: bidirectional ? 1 : 0,
      parameters: JSON.stringify(body.parameters ?? {}), status_url: body.status_url ?? null, flow_op: holdOp,
      reason: null, error: null, dropped_frames: 0, node: this.holderOf(call), created_at: now, started_at: null, ended_at: null, updated_at: now,
    };
    await trx.insertInto('call_streams').values(row).execute();
    trx.afterCommit(() => void this.connect(row).catch((err: Error) => this.platform.log.error({ err, stream: row.id }, 'starting a media stream failed')));
    return row;
  }

  /** After the asking transaction: check and resolve the URL, sign the handshake, tell the port. */
  private async connect(row: StreamRow): Promise<void> {
    let address: string | null;
    try {
      address = await resolveStreamAddress(row.url, row.mode, this.platform.config);
    } catch (err) {
      if (!(err instanceof UrlNotAllowed)) throw err;
      return this.failed(row.call_id, row.id, { reason: 'url_not_allowed', detail: `the URL is not allowed: ${err.message}` });
    }
    const now = this.platform.clock.now();
    const secret = await this.secrets.defaults.ensure(row.account_id, row.mode);
    const headers = webhookHeaders(row.id, Math.floor(now.getTime() / 1000), handshakeContent(row.id, row.url), activeSecrets(this.secrets.box, secret, now.toISOString()));
    await inTransaction(this.db, async (trx) => {
      const { call, stream } = await this.lockBoth(trx, row.call_id, row.id);
      if (!stream || stream.status !== 'connecting') return;
      const port = call && this.port(call);
      if (!call || !port || call.status !== 'in_progress') return this.move(trx, call, stream, 'stopped', { reason: 'call_ended' });
      const order: StreamOrder = {
        streamId: row.id, callId: call.id, accountId: call.account_id, url: row.url, address,
        track: row.track as StreamTrack, bidirectional: row.bidirectional === 1, format: row.format as StreamFormat,
        parameters: JSON.parse(row.parameters), headers,
      };
      await port.start(trx, call, order);
    });
  }

  async started(callId: string, streamId: string): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      const { call, stream } = await this.lockBoth(trx, callId, streamId);
      if (stream?.status === 'connecting') await this.move(trx, call, stream, 'started');
    });
  }

  async ended(callId: string, streamId: string, end: StreamEnd): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      const { call, stream } = await this.lockBoth(trx, callId, streamId);
      if (!stream) return;
      if (!OPEN_STATUSES.includes(stream.status)) {
        // Stopped through the API before the port closed: only the frames dropped meanwhile are news.
        if (stream.status === 'stopped' && end.droppedFrames > stream.dropped_frames) {
          await trx.updateTable('call_streams').set({ dropped_frames: end.droppedFrames }).where('id', '=', stream.id).execute();
        }
        return;
      }
      const next = await this.move(trx, call, stream, 'stopped', { reason: end.reason, dropped_frames: end.droppedFrames });
      await this.release(trx, call, next);
    });
  }

  async failed(callId: string, streamId: string, failure: StreamFailure): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      const { call, stream } = await this.lockBoth(trx, callId, streamId);
      if (stream?.status !== 'connecting') return;
      const next = await this.move(trx, call, stream, 'failed', { reason: failure.reason, error: failure.detail });
      await this.release(trx, call, next);
    });
  }

  /** A stream that held the flow is over: the flow goes on (on a call still in progress). */
  private async release(trx: Trx, call: CallRow | undefined, stream: StreamRow): Promise<void> {
    if (!stream.flow_op || !call || call.status !== 'in_progress') return;
    const result = { stream_id: stream.id, status: stream.status, reason: stream.reason, ...(stream.error ? { detail: stream.error } : {}) };
    await releaseHold(this.runtime, trx, call, stream.flow_op, result);
  }

  /** The call ended: its running streams stop (call_ended); one still connecting is stopped here. */
  private async callEnded(trx: Trx, call: CallRow): Promise<void> {
    const open = await trx.selectFrom('call_streams').selectAll().where('call_id', '=', call.id).where('status', 'in', [...OPEN_STATUSES]).execute();
    for (const stream of open) await this.stopSocket(trx, call, stream, 'call_ended');
  }

  /** The call, then the stream: the order every writer takes them in. */
  private async lockBoth(trx: Trx, callId: string, streamId: string): Promise<{ call: CallRow | undefined; stream: StreamRow | undefined }> {
    const call = await this.calls.lock(trx, callId);
    return { call, stream: await this.lock(trx, streamId) };
  }

  private async lock(trx: Trx, id: string): Promise<StreamRow | undefined> {
    let q = trx.selectFrom('call_streams').selectAll().where('id', '=', id);
    if (this.platform.database.engine === 'postgres') q = q.forUpdate();
    return q.executeTakeFirst();
  }

  private async move(trx: Trx, call: CallRow | undefined, row: StreamRow, to: StreamStatus, set: Partial<StreamRow> = {}): Promise<StreamRow> {
    const clock = await this.platform.sandboxClocks.clockFor(row.account_id, row.mode, trx);
    return transition(trx, { events: this.events, clock, present: this.present, webhookUrl: row.status_url ?? call?.webhook_url ?? null }, row, to, set);
  }
}

// The flow interpreter: runs a call's flow verb by verb through the carrier's MediaPort and
// nothing else, so the sandbox and a live call behave the same. Each step is one transaction
// on the locked call: close the verb that ended, start the next (its media command commits
// with the new state), or end the call when the flow says so or runs out (as TwiML does).
// The port reports back through MediaEvents outside any transaction; a report for another
// op id than the one the state awaits is stale (late, repeated after a restart) and ignored.
//
// Flows may come from the customer's server (answer_url, voice_url, a gather's action_url,
// redirect): the state records the pending webhook and a durable job fetches it outside any
// transaction (flow-webhook.ts). A failed fetch tries the fallback URL once, then the flow
// apologises and hangs up; every failure fires call.flow.failed. Never silence.
//
// The interpreter knows no verb by name: each verb is a definition under verbs/ (registered
// in verbs/registry.ts) whose hooks say what it runs and what its result does.
import type { Platform } from '../../../platform/context.ts';
import type { Clock } from '../../../platform/clock.ts';
import { inTransaction, type Trx } from '../../../store/transaction.ts';
import type { MediaEvents, VoiceCarriers } from '../../../carriers/index.ts';
import type { HeardInput, MediaResult } from '../../../telephony/media-ops.ts';
import type { EventEmitter } from '../../../events/emit.ts';
import type { EventType } from '../../../events/catalogue.ts';
import type { CallRow } from '../tables.ts';
import type { CallService } from '../service.ts';
import { presentOne } from '../presenter.ts';
import { isFinal } from '../states.ts';
import { FLOW_LIMITS, type Verb } from './schema.ts';
import { audioUrlsOf, type CachedAudio, type FlowAudio } from './flow-audio.ts';
import { unheardSpeechErrors } from './validate.ts';
import type { FlowFailure, FlowWebhookClient } from './flow-webhook.ts';
import { closeEntry, flowLogOf, flowStateOf, newFlowState, saveFlow, type FlowLogEntry, type FlowReplacement, type FlowState, type PendingFetch } from './state.ts';
import { VERBS, definitionOf, verbNamed } from './verbs/registry.ts';
import { plainResult, type FlowConferences, type FlowRecordings, type FlowRuntime, type VerbStep } from './verbs/verb.ts';
import type { FlowAgents } from './verbs/agent.ts';
import type { FlowQueues } from './verbs/enqueue.ts';
import type { FlowStreams } from './verbs/stream.ts';
import type { FlowMonitors } from './verbs/monitor.ts';

export type { FlowRecordings };

/** Media operations someone else than the flow runs on a call (the AI agent's live turns, a queue's wait audio), known by their id's prefix. */
export interface OwnedMedia {
  prefix: string;
  events: MediaEvents;
}

/**
 * The services the verbs hand calls to, and the owners of media operations that are not the
 * flow's. All are built after the interpreter, so each is a getter of a late-bound port of
 * the composition root (src/modules/wiring.ts), filled before the server starts.
 */
export interface FlowPorts {
  recordings(): FlowRecordings;
  agents(): FlowAgents;
  queues(): FlowQueues;
  conferences(): FlowConferences;
  monitors(): FlowMonitors;
  streams(): FlowStreams;
  ownedMedia: ReadonlyArray<() => OwnedMedia>;
}

const FETCH_JOB = 'flows.fetch';
const AUDIO_JOB = 'flows.audio';
/** The backup fetch job waits the webhook timeout plus this, so it never races a fetch in flight. */
const FETCH_BACKUP_GRACE_SECONDS = 5;
/** What a caller hears when the flow cannot go on. */
export const APOLOGY_TEXT = 'We are sorry, an application error has occurred. Goodbye.';
const APOLOGY: Verb[] = [{ say: { text: APOLOGY_TEXT, loop: 1 } }, { hangup: {} }];

interface FetchStep {
  callId: string;
  opId: string;
}

export class FlowInterpreter implements MediaEvents {
  /** What verbs may ask of the flow (verbs/verb.ts); the queues and the streams settle the calls they hold through it. */
  readonly runtime: FlowRuntime;

  constructor(
    private readonly platform: Platform,
    private readonly calls: CallService,
    private readonly carriers: VoiceCarriers,
    private readonly events: EventEmitter,
    private readonly webhooks: FlowWebhookClient,
    private readonly audio: FlowAudio,
    private readonly ports: FlowPorts,
  ) {
    platform.jobs.register<FetchStep>(FETCH_JOB, (step) => this.fetchStep(step, true), { maxAttempts: 5, backoffSeconds: (n) => n });
    platform.jobs.register<FetchStep>(AUDIO_JOB, (step) => this.audioStep(step), { maxAttempts: 5, backoffSeconds: (n) => n });
    this.runtime = {
      platform,
      calls,
      recordings: ports.recordings,
      agents: ports.agents,
      queues: ports.queues,
      conferences: ports.conferences,
      monitors: ports.monitors,
      streams: ports.streams,
      advance: (...a) => this.advance(...a),
      apologise: (...a) => this.apologise(...a),
      switchTo: (...a) => this.switchTo(...a),
      startFetch: (...a) => this.startFetch(...a),
      runMedia: (step) => this.runMedia(step.trx, step.call, step.state, step.log, step.clock, false),
      emit: (...a) => this.emit(...a),
    };
    for (const verb of VERBS) verb.install?.(this.runtime);
    calls.onTransition(async (trx, call, from, clock) => {
      if (call.status === 'in_progress' && from !== 'in_progress' && call.flow_state) await this.start(trx, call, clock);
      if (from === 'in_progress' && isFinal(call.status) && call.flow_state) await this.callEnded(trx, call, clock);
    });
  }

  private stopping = false;

  /** The server is closing: webhook answers that arrive from now on are left to the backup job of the next process. */
  stop(): void {
    this.stopping = true;
  }

  private get db() {
    return this.platform.database.db;
  }

  private async start(trx: Trx, call: CallRow, clock: Clock): Promise<void> {
    const state = flowStateOf(call);
    if (!state || state.op !== null || state.pc !== 0) return;
    if (state.verbs.length === 0 && state.fetch) return this.startFetch(trx, call, state, flowLogOf(call), clock, state.fetch);
    await this.advance(trx, call, state, flowLogOf(call), clock);
  }

  /** Runs verbs from `state.pc` until one waits on the media or a webhook, or the flow ends the call. */
  private async advance(trx: Trx, call: CallRow, state: FlowState, log: FlowLogEntry[], clock: Clock): Promise<void> {
    const now = clock.now().toISOString();
    const verb = state.verbs[state.pc];
    if (!verb) {
      // The flow ran out: the call ends, as it does after the last TwiML verb.
      const saved = await saveFlow(trx, call, { ...state, op: null, ended: state.failed ? 'apology' : 'ran_out' }, log);
      await this.calls.endFromFlow(trx, saved, clock);
      return;
    }
    const { name, body, def } = definitionOf(verb);
    log.push({ index: state.pc, verb: name, started_at: now, ended_at: null, result: null });
    const step: VerbStep = { trx, call, state, log, clock, now };
    if (def.run) return def.run(this.runtime, step, body, `${call.id}:${state.seq + 1}`);
    await this.runtime.runMedia(step);
  }

  /**
   * Starts the media operation of the verb at `state.pc` (its log entry is open). Audio it
   * plays that is not cached yet is fetched first by a durable job (audioStep), which comes
   * back here; `skipMissing` (after that fetch failed) leaves a gather's missing prompts out.
   */
  private async runMedia(trx: Trx, call: CallRow, state: FlowState, log: FlowLogEntry[], clock: Clock, skipMissing: boolean): Promise<void> {
    const opId = `${call.id}:${state.seq + 1}`;
    const verb = state.verbs[state.pc]!;
    const urls = audioUrlsOf(verb);
    const audio = new Map<string, CachedAudio>();
    // The audio cache is on each node's disk: a call held by another node plays from that
    // node's cache, so the fetch job goes there and runs the verb there.
    const elsewhere = this.ownerOf(call)?.here === false;
    for (const url of elsewhere ? [] : urls) {
      const hit = await this.audio.cached(url);
      if (hit) audio.set(url, hit);
    }
    if (audio.size < urls.length && !skipMissing) {
      await saveFlow(trx, call, { ...state, op: opId, seq: state.seq + 1, loading: true }, log);
      await this.platform.jobs.enqueue(trx, AUDIO_JOB, { callId: call.id, opId } satisfies FetchStep, this.jobOptions(call));
      return;
    }
    const { name, body, def } = definitionOf(verb);
    if (!def.op) throw new Error(`verb ${name} has no media operation`);
    const media = this.carriers.named(call.carrier).media;
    let op = def.op(body, call, audio);
    const refusal = media.cannotRun?.(op) ?? null;
    if (refusal) {
      closeEntry(log, clock.now().toISOString(), { reason: 'unsupported', detail: refusal });
      return this.apologise(trx, call, state, log, clock, {
        cause: 'unsupported_verb', url: null, statusCode: null, field: `flow[${state.pc}].${name}`,
        detail: `flow[${state.pc}].${name} cannot run on this call: ${refusal}.`,
      });
    }
    // A record verb fills a recording resource of its own, created now (call.recording.started).
    let kept: Partial<FlowState> = {};
    if (def.prepare) ({ op, state: kept = {} } = await def.prepare(this.runtime, { trx, call, state, log, clock, now: clock.now().toISOString() }, op));
    const saved = await saveFlow(trx, call, { ...state, op: opId, seq: state.seq + 1, loading: false, recordingId: null, ...kept }, log);
    await media.run(trx, saved, opId, op);
  }

  /** The node holding a live call's media, when several share the database (null: any node). */
  private ownerOf(call: CallRow): { node: string; here: boolean } | null {
    return this.carriers.named(call.carrier).ownerOf?.(call) ?? null;
  }

  /**
   * A job acting on the call runs where its media is (a sandbox call's, on its test clock):
   * claimed by another node it would only send each step back as a command.
   */
  private jobOptions(call: CallRow): { clockId: string | null; node: string | null } {
    return { clockId: call.mode === 'sandbox' ? call.account_id : null, node: this.ownerOf(call)?.node ?? null };
  }


  /** Fetches the audio the running verb plays (no transaction held meanwhile), then runs it; a play that cannot be fetched is skipped, logged failed. */
  private async audioStep(step: FetchStep): Promise<void> {
    const call = await this.db.selectFrom('calls').selectAll().where('id', '=', step.callId).executeTakeFirst();
    const state = call ? flowStateOf(call) : null;
    if (!call || !state?.loading || state.op !== step.opId || call.status !== 'in_progress') return;
    const verb = state.verbs[state.pc]!;
    const failures: string[] = [];
    for (const url of audioUrlsOf(verb)) {
      const got = await this.audio.fetch(url, call.mode);
      if (!got.ok) failures.push(got.detail);
    }
    await inTransaction(this.db, async (trx) => {
      const locked = await this.calls.lock(trx, step.callId);
      const now = locked ? flowStateOf(locked) : null;
      if (!locked || !now?.loading || now.op !== step.opId || locked.status !== 'in_progress') return;
      const clock = await this.platform.sandboxClocks.clockFor(locked.account_id, locked.mode, trx);
      const log = flowLogOf(locked);
      const loaded: FlowState = { ...now, op: null, loading: false };
      if (failures.length > 0 && definitionOf(verb).def.withoutAudio === 'skip') {
        closeEntry(log, clock.now().toISOString(), { reason: 'failed', detail: failures.join(' ') });
        return this.advance(trx, locked, { ...loaded, pc: now.pc + 1 }, log, clock);
      }
      await this.runMedia(trx, locked, loaded, log, clock, true);
    });
  }

  /** The owner of an operation that is not the flow's (its id starts with the owner's prefix): its ends go there. */
  private ownerOfOp(opId: string): MediaEvents | undefined {
    return this.ports.ownedMedia.map((owned) => owned()).find((owned) => opId.startsWith(owned.prefix))?.events;
  }

  async finished(callId: string, opId: string, result: MediaResult): Promise<void> {
    const owner = this.ownerOfOp(opId);
    if (owner) return owner.finished(callId, opId, result);
    await inTransaction(this.db, async (trx) => {
      const call = await this.calls.lock(trx, callId);
      const state = call ? flowStateOf(call) : null;
      if (!call || !state || state.op !== opId || call.status !== 'in_progress') return;
      const clock = await this.platform.sandboxClocks.clockFor(call.account_id, call.mode, trx);
      const log = flowLogOf(call);
      const verb = state.verbs[state.pc];
      const { name, body, def } = verb ? definitionOf(verb) : { name: null, body: null, def: null };
      const at = clock.now().toISOString();
      closeEntry(log, at, def?.logResult ? def.logResult(body, result, state) : plainResult(result));
      // A verb ran on the media: the chain of webhook answers is broken, the hop count restarts.
      const next: FlowState = { ...state, op: null, pc: state.pc + 1, hops: 0, recordingId: null };
      const action = def?.finished ? await def.finished(this.runtime, { trx, call, state, log, clock, now: at }, body, result) : undefined;
      // A live update that came in meanwhile wins over the action_url.
      if (name && action?.actionUrl && !state.replacement && !['hangup', 'interrupted'].includes(endOf(result))) {
        return this.startFetch(trx, call, next, log, clock, { reason: name, url: action.actionUrl, fallback: false, [name]: action.result });
      }
      // The far end hung up: the carrier is ending the call (its BYE may commit just after
      // this), so the flow stops here instead of running on and hanging up itself.
      if (cutByHangup(result)) {
        await saveFlow(trx, call, next, log);
        return;
      }
      if (state.replacement) return this.switchTo(trx, call, next, log, clock, state.replacement);
      await this.advance(trx, call, next, log, clock);
    });
  }

  /**
   * POST /v1/calls/{id}/flow, inside the request's transaction on the locked call (in
   * progress): a running verb is interrupted and the new flow starts once the port reports
   * its end (so its log entry says what it had: `interrupted`, a gather's digits so far); a
   * call waiting on a webhook, between verbs or without a flow switches at once. A second
   * update before the first took over simply wins.
   */
  async replace(trx: Trx, call: CallRow, replacement: FlowReplacement, clock: Clock): Promise<void> {
    const state = flowStateOf(call) ?? newFlowState([]);
    const log = flowLogOf(call);
    // A media operation reports its end when interrupted; a webhook or audio fetch, or what a
    // verb without an operation waits on (a ringing transfer), is simply left behind.
    const running = state.verbs[state.pc];
    const mediaRunning = state.op !== null && !state.fetch && !state.loading && running !== undefined && definitionOf(running).def.op !== undefined;
    if (mediaRunning) {
      await saveFlow(trx, call, { ...state, replacement }, log);
      await this.carriers.named(call.carrier).media.interrupt(trx, call, state.op!);
      return;
    }
    // A redirect waiting on its webhook has an open log entry: the update cut it short.
    if (state.op !== null) closeEntry(log, clock.now().toISOString(), { reason: 'interrupted' });
    await this.switchTo(trx, call, { ...state, op: null, fetch: null }, log, clock, replacement);
  }

  /** The call's flow becomes the replacement (or the one its URL answers), from its first verb. */
  private async switchTo(trx: Trx, call: CallRow, state: FlowState, log: FlowLogEntry[], clock: Clock, replacement: FlowReplacement): Promise<void> {
    // The customer took over again: a failed flow's apology no longer runs, the webhook chain restarts.
    const fresh: FlowState = { ...state, verbs: [], pc: 0, op: null, fetch: null, transfer: null, loading: false, hops: 0, failed: false, replacement: null };
    if ('url' in replacement) return this.startFetch(trx, call, fresh, log, clock, { reason: 'update', url: replacement.url, fallback: false });
    await this.advance(trx, call, { ...fresh, verbs: replacement.verbs }, log, clock);
  }

  async heard(_callId: string, _input: HeardInput): Promise<void> {
    // Input outside a gather has no effect on the flow.
  }

  /** The flow waits on a webhook: the state says which, and a durable job asks it. */
  private async startFetch(trx: Trx, call: CallRow, state: FlowState, log: FlowLogEntry[], clock: Clock, fetch: PendingFetch): Promise<void> {
    const hops = (state.hops ?? 0) + (fetch.fallback ? 0 : 1);
    if (hops > FLOW_LIMITS.hops) {
      return this.failFlow(trx, call, state, log, clock, fetch, {
        cause: 'redirect_loop', statusCode: null, field: null,
        detail: `${FLOW_LIMITS.hops} flow webhooks answered in a row without a verb that speaks, plays, gathers or dials between them; the last asked was ${fetch.url}.`,
      });
    }
    const opId = `${call.id}:${state.seq + 1}`;
    await saveFlow(trx, call, { ...state, op: opId, seq: state.seq + 1, fetch, hops }, log);
    // A caller listens to silence until the webhook answers, so the fetch starts as soon as
    // this commits instead of waiting its turn in the job queue behind event deliveries (under
    // a burst of calls that wait was seconds: docs/benchmarks.md). The durable job is the
    // backup for a crash in between: it runs once the fetch would have timed out, and finds
    // the flow moved on (op changed) if the fetch already answered.
    const step: FetchStep = { callId: call.id, opId };
    await this.platform.jobs.enqueue(trx, FETCH_JOB, step, {
      ...this.jobOptions(call),
      delaySeconds: this.platform.config.flowWebhookTimeoutMs / 1000 + FETCH_BACKUP_GRACE_SECONDS,
    });
    trx.afterCommit(() => {
      void this.fetchStep(step, false).catch((err) => this.platform.log.error({ err, callId: call.id }, 'flow webhook fetch failed; the backup job retries it'));
    });
  }

  /** Asks the pending webhook (no transaction held meanwhile), then takes its answer or its failure. */
  private async fetchStep(step: FetchStep, fromJob: boolean): Promise<void> {
    const call = await this.db.selectFrom('calls').selectAll().where('id', '=', step.callId).executeTakeFirst();
    const state = call ? flowStateOf(call) : null;
    if (!call || !state?.fetch || state.op !== step.opId || call.status !== 'in_progress') return;
    const pending = state.fetch;
    const payload = {
      object: 'flow_request',
      reason: pending.reason,
      call: await presentOne(this.db, call, this.platform.publicUrl.base),
      // Each verb that posts its result has its field, null unless that verb asks.
      ...Object.fromEntries(VERBS.filter((v) => v.postsResult).map((v) => [v.name, pending[v.name] ?? null])),
    };
    const answer = await this.webhooks.fetch(pending.url, call.account_id, call.mode, `flowreq_${step.opId.replace(':', '_')}`, payload);
    // A server shutting down cut this fetch short (or its answer came too late to trust): the
    // backup job asks again in the next process, rather than the caller hearing an apology.
    if (this.stopping) {
      if (fromJob) throw new Error(`server stopping: the flow webhook of ${step.callId} is asked again by the next process`);
      return;
    }
    await inTransaction(this.db, async (trx) => {
      const locked = await this.calls.lock(trx, step.callId);
      const now = locked ? flowStateOf(locked) : null;
      if (!locked || !now || now.op !== step.opId || locked.status !== 'in_progress') return;
      const clock = await this.platform.sandboxClocks.clockFor(locked.account_id, locked.mode, trx);
      const log = flowLogOf(locked);
      // A verb that waits on its own webhook (redirect) ends with its answer.
      const asking = verbNamed(pending.reason);
      if (asking?.answered) closeEntry(log, clock.now().toISOString(), asking.answered(pending, answer));
      if (!answer.ok) return this.failFlow(trx, locked, now, log, clock, pending, answer);
      // A flow this call's media cannot run is an invalid answer, like one that breaks the schema.
      const [unheard] = unheardSpeechErrors(answer.verbs, this.carriers.named(locked.carrier).media);
      if (unheard) {
        return this.failFlow(trx, locked, now, log, clock, pending, {
          cause: 'invalid_flow', statusCode: answer.statusCode, field: unheard.field, detail: `${unheard.field} ${unheard.message}.`,
        });
      }
      await this.advance(trx, locked, { ...now, verbs: answer.verbs, pc: 0, op: null, fetch: null }, log, clock);
    });
  }

  /** A flow webhook failed: call.flow.failed, then the fallback URL once, else the apology and hang-up. */
  private async failFlow(trx: Trx, call: CallRow, state: FlowState, log: FlowLogEntry[], clock: Clock, pending: PendingFetch, failure: FlowFailure): Promise<void> {
    const fallback = !pending.fallback && state.fallbackUrl ? state.fallbackUrl : null;
    await this.emit(trx, call, 'call.flow.failed', {
      object: 'call_flow_failure', call_id: call.id, cause: failure.cause, detail: failure.detail, url: pending.url,
      status_code: failure.statusCode, field: failure.field, next: fallback ? 'fallback' : 'apology',
    }, clock);
    if (fallback) return this.startFetch(trx, call, { ...state, op: null }, log, clock, { ...pending, url: fallback, fallback: true });
    await this.advance(trx, call, { ...state, verbs: APOLOGY, pc: 0, op: null, fetch: null, failed: true }, log, clock);
  }

  /** The flow cannot go on and no webhook can help: call.flow.failed, the apology (the generic one, or `apology`), the hang-up. */
  private async apologise(trx: Trx, call: CallRow, state: FlowState, log: FlowLogEntry[], clock: Clock, failure: FlowFailure & { url: null }, apology?: string): Promise<void> {
    await this.emit(trx, call, 'call.flow.failed', {
      object: 'call_flow_failure', call_id: call.id, cause: failure.cause, detail: failure.detail, url: null,
      status_code: null, field: failure.field, next: 'apology',
    }, clock);
    const verbs: Verb[] = apology ? [{ say: { text: apology, loop: 1 } }, { hangup: {} }] : APOLOGY;
    await this.advance(trx, call, { ...state, verbs, pc: 0, op: null, fetch: null, failed: true }, log, clock);
  }

  private async emit(trx: Trx, call: CallRow, type: EventType, object: Record<string, unknown>, clock: Clock): Promise<void> {
    await this.events.emit(trx, {
      accountId: call.account_id, mode: call.mode, type, resourceType: 'call', resourceId: call.id, object, webhookUrl: call.webhook_url, clock,
    });
  }

  /** The call ended under a running verb: its log entry ends with the call. */
  private async callEnded(trx: Trx, call: CallRow, clock: Clock): Promise<void> {
    const state = flowStateOf(call);
    if (!state || state.op === null) return;
    const log = flowLogOf(call);
    closeEntry(log, call.ended_at ?? clock.now().toISOString(), { reason: 'hangup' });
    await saveFlow(trx, call, { ...state, op: null, fetch: null }, log);
  }
}

/** How an operation ended: a bridge's outcome, any other's reason (`hangup`, `interrupted`, ...). */
function endOf(result: MediaResult): string {
  return result.kind === 'bridge' ? result.outcome : result.reason;
}

/** The operation ended because the other party hung up (not because it finished or was interrupted). */
function cutByHangup(result: MediaResult): boolean {
  return endOf(result) === 'hangup';
}

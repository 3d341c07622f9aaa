// The simulator's MediaPort: the sandbox's audio, on the account's test clock. Recordings
// are captured as spans of the call's talk time (state in calls.carrier_state); on a flow
// call, every operation and every word of the far end adds to the call's sound
// (flow-sound.ts) as it happens. When a recording stops, a durable render job synthesises
// what was heard in its spans and streams it to
// the recording's sink in one-second-aligned slices, at most RENDER_CHUNK_SECONDS per job,
// yielding to the event loop between slices. Memory stays bounded by one slice whatever the
// call's length, no job holds its lease for long, and a crash resumes the file where the
// last job left it (the audio is deterministic, so regenerating a slice gives the same bytes).
import type { Platform } from '../../platform/context.ts';
import type { Trx } from '../../store/transaction.ts';
import { inTransaction } from '../../store/transaction.ts';
import type { CallRef } from '../../telephony/call-ref.ts';
import type { MediaEvents, MediaPort, RecordingSinks } from '../media-port.ts';
import type { HeardInput, MediaOp, MediaResult, RecordingFormat } from '../../telephony/media-ops.ts';
import { CallerScripts } from './caller-script.ts';
import { collectResult, pressDigits, sayWords, timerResult, type CollectState } from './collect.ts';
import { recordingTranscript } from './call-audio.ts';
import { SimStates, type SimState } from './sim-state.ts';
import type { CarrierCallStore } from '../carrier.ts';
import { bridgePlan, bridgedWords } from './bridge.ts';
import { recordKey, recordResult, recordTimer, recordWords, startRecord } from './record.ts';
import { addSound, cutSound, farEndChannel, farEndSpeaker, farEndWords, flowChannel, mixPlays, opSeconds, promptSound, soundOfSpans, type PlayedAudio } from './flow-sound.ts';
import { SimulatedConferenceMedia } from './conference-media.ts';
import { streamRecording } from './recording-stream.ts';
import { readFile } from 'node:fs/promises';
import { LINE_RATE } from '../../media/call-file.ts';
import { toLineRate } from '../../media/resample.ts';
import { readPcm16Wav } from '../../media/wav.ts';
import { SimulatedStreams } from './streams.ts';
import type { CarrierListeners } from '../listeners.ts';

const RENDER_JOB = 'simulator.recording_render';
const OP_JOB = 'simulator.media_op';

interface OpStep {
  callId: string;
  opId: string;
  reason: 'finished' | 'interrupted';
  /** Collect timers: the tick they were set at (a newer input made them stale). */
  tick?: number;
  /** Collect: the result decided when the job was scheduled (a finish key, an utterance). */
  result?: MediaResult;
}
const RENDER_ATTEMPTS = 5;

interface RenderStep {
  callId: string;
  recordingId: string;
  generation: number;
  fromFrame: number;
}

const round3 = (s: number) => Math.round(s * 1000) / 1000;

export class SimulatedMediaPort implements MediaPort {
  /** Calls answered in a transaction still running: their talk time is exactly 0 there. */
  private readonly answeredIn = new WeakMap<Trx, Set<string>>();

  /** The simulator's per-call state, kept with the call by the calls module. */
  readonly states: SimStates;
  readonly conferences: SimulatedConferenceMedia;

  /** Media streams to the customer's WebSocket server, fed from this port's simulated audio. */
  readonly streams: SimulatedStreams;

  constructor(private readonly platform: Platform, private readonly store: CarrierCallStore, private readonly listeners: CarrierListeners) {
    this.states = new SimStates(store);
    this.streams = new SimulatedStreams(platform, {
      readSound: async (trx, callId) => (await this.states.read(trx, callId)).sound,
      writeSound: async (trx, callId, sound) => this.states.write(trx, callId, { ...await this.states.read(trx, callId), sound }),
      elapsed: (trx, call) => this.elapsed(trx, call),
    }, (trx, callId) => store.lock(trx, callId), () => listeners.streams());
    this.conferences = new SimulatedConferenceMedia(platform, () => listeners.sinks());
    platform.jobs.register<RenderStep>(RENDER_JOB, (step, ctx) => this.render(step, ctx.attempt), { maxAttempts: RENDER_ATTEMPTS });
    platform.jobs.register<OpStep>(OP_JOB, (step) => this.opEnded(step));
  }

  /** The flow interpreter (every operation's end and input heard). */
  private get events(): MediaEvents {
    return this.listeners.media();
  }

  /** The recordings service's sinks for captured audio. */
  private get sinks(): RecordingSinks {
    return this.listeners.sinks();
  }

  /** Starts `op`: it ends after its simulated duration on the test clock (a durable job). */
  async run(trx: Trx, call: CallRef, opId: string, op: MediaOp): Promise<void> {
    const state = await this.states.read(trx, call.id);
    if (op.kind === 'collect') {
      // Prompts play, then the timer for the first input runs; input moves it (collect.ts).
      const prompts = round3(op.prompts.reduce((sum, p) => sum + opSeconds(p), 0));
      const now = await this.elapsed(trx, call);
      const collect: CollectState = { op, promptsEndAt: round3(now + prompts), digits: '', speech: null, tick: 0 };
      const script = state.script?.waiting ? { ...state.script, waiting: false } : state.script;
      const sound = addSound(state.sound, promptSound(op.prompts, now, flowChannel(call)));
      await this.states.write(trx, call.id, { ...state, sound, op: { id: opId, kind: op.kind, collect }, ...(script ? { script } : {}) });
      // A scripted caller waiting to press or speak does so once the prompts are over.
      if (state.script?.waiting) await CallerScripts.schedule(this.platform, trx, call, state.script.pos, prompts);
      await this.scheduleOp(trx, call, { callId: call.id, opId, reason: 'finished', tick: 0 }, prompts + op.timeoutSeconds);
      return;
    }
    if (op.kind === 'record') {
      const now = await this.elapsed(trx, call);
      const record = startRecord(op, now);
      const captures = { ...state.captures, [op.recordingId]: { format: op.format, spans: [{ start: record.startAt, end: null }], generation: 0, words: [], transcribe: op.transcribe === true } };
      const script = state.script?.waiting ? { ...state.script, waiting: false } : state.script;
      await this.states.write(trx, call.id, { ...state, captures, op: { id: opId, kind: op.kind, record }, ...(script ? { script } : {}) });
      // A scripted caller waiting to speak does so after the beep.
      if (state.script?.waiting) await CallerScripts.schedule(this.platform, trx, call, state.script.pos, record.startAt - now);
      const timer = recordTimer(record);
      await this.scheduleOp(trx, call, { callId: call.id, opId, reason: 'finished', tick: 0, result: recordResult(record, timer.reason, timer.atSeconds) }, timer.atSeconds - now);
      return;
    }
    if (op.kind === 'bridge') {
      // The dialled leg's whole course is known now (bridge.ts): one job ends it with its outcome.
      const plan = bridgePlan(op, call.id, state.legs.length);
      const answerAt = plan.answerAfter === null ? null : round3(await this.elapsed(trx, call) + plan.answerAfter);
      // What the dialled party says is heard on the flow's side (a bridge cut short cuts it too, in opEnded).
      const said = answerAt === null ? [] : bridgedWords(op, call.id, state.legs.length, answerAt, plan.result.talkSeconds, flowChannel(call));
      const sound = said.length > 0 ? addSound(state.sound, { segments: said }) : state.sound;
      await this.states.write(trx, call.id, { ...state, ...(sound ? { sound } : {}), op: { id: opId, kind: op.kind, bridge: { answerAt } } });
      await this.scheduleOp(trx, call, { callId: call.id, opId, reason: 'finished', result: plan.result }, plan.endsAfter);
      return;
    }
    if (op.kind === 'connect') {
      // Two sandbox calls connected hear each other's far ends: a mix of two seats (a monitor
      // seats a supervisor in it too, conference-media.ts). The connection lasts until one
      // ends (its owner interrupts the other's) or the time limit.
      const connection = await this.conferences.connected(trx, call, op.peerCallId, await this.elapsed(trx, call));
      await this.states.write(trx, call.id, { ...state, stays: [...(state.stays ?? []), connection], op: { id: opId, kind: op.kind, connection } });
      await this.scheduleOp(trx, call, { callId: call.id, opId, reason: 'finished' }, op.timeLimitSeconds);
      return;
    }
    if (op.kind === 'conference') {
      // The call hears the conference from now; it stays until interrupted (removed, ended) or hung up.
      const stay = await this.conferences.joined(trx, call, op.conferenceId, op.wait, await this.elapsed(trx, call));
      const script = state.script?.waiting ? { ...state.script, waiting: false } : state.script;
      await this.states.write(trx, call.id, { ...state, stays: [...(state.stays ?? []), stay], op: { id: opId, kind: op.kind, conference: stay }, ...(script ? { script } : {}) });
      // A scripted caller waiting to speak talks to the conference at once.
      if (state.script?.waiting) await CallerScripts.schedule(this.platform, trx, call, state.script.pos, 0);
      return;
    }
    // say, play and pause: the flow's side is heard from now (flow-sound.ts).
    const at = await this.elapsed(trx, call);
    if (op.kind === 'speak') this.streams.said(trx, call, op.text, at);
    const sound = addSound(state.sound, promptSound([op], at, flowChannel(call)));
    await this.states.write(trx, call.id, { ...state, sound, op: { id: opId, kind: op.kind } });
    await this.scheduleOp(trx, call, { callId: call.id, opId, reason: 'finished' }, opSeconds(op));
  }

  async interrupt(trx: Trx, call: CallRef, opId: string): Promise<void> {
    const state = await this.states.read(trx, call.id);
    if (state.op?.id === opId) await this.scheduleOp(trx, call, { callId: call.id, opId, reason: 'interrupted' }, 0);
  }

  /**
   * The simulated far end acts (a developer with POST /v1/sandbox/calls/{id}/press or /say, or
   * a caller script): a running collect hears it; anything else only reports it as heard.
   */
  async farEnd(trx: Trx, call: CallRef, input: Extract<HeardInput, { kind: 'dtmf' | 'speech' }>): Promise<void> {
    const state = await this.states.read(trx, call.id);
    const collect = state.op?.collect;
    // One instant for everything this input does, so the words and a barge-in's cut line up.
    const now = await this.elapsed(trx, call);
    if (input.kind === 'speech') {
      // Whatever the flow is doing, the far end's words are on the call (its recordings hear them).
      const said = farEndWords(input.text, now, farEndChannel(call));
      if (said) {
        state.sound = addSound(state.sound, { segments: [said] });
        await this.states.write(trx, call.id, state);
        // In a conference the others hear it too (as the mix's rule says).
        const mixed = state.op?.conference ?? state.op?.connection;
        if (mixed) await this.conferences.said(trx, call, mixed, said);
      }
    }
    this.streams.heard(trx, call, input, now);
    if (state.op?.record) await this.recordHears(trx, call, state, input, now);
    if (state.op && collect) {
      const promptsEndAt = collect.promptsEndAt;
      const decision = input.kind === 'dtmf' ? pressDigits(collect, input.digits, now) : sayWords(collect, input.text, now);
      // Barge-in cut the prompts: nothing of them sounds after this moment.
      if (collect.promptsEndAt < promptsEndAt) state.sound = cutSound(state.sound, flowChannel(call), now);
      if (decision.kind !== 'ignored') {
        await this.states.write(trx, call.id, state);
        const step: OpStep = { callId: call.id, opId: state.op.id, reason: 'finished', tick: collect.tick };
        if (decision.kind === 'finish') {
          collect.tick += 1; // every timer set so far is now stale
          await this.states.write(trx, call.id, state);
          await this.scheduleOp(trx, call, { ...step, tick: collect.tick, result: decision.result }, 0);
        } else {
          await this.scheduleOp(trx, call, { ...step, ...(decision.result ? { result: decision.result } : {}) }, Math.max(0, decision.atSeconds - now));
        }
      }
    }
    const events = this.events;
    trx.afterCommit(() => { void events.heard(call.id, input).catch((err) => this.platform.log.error({ err }, 'reporting input heard failed')); });
  }

  /** A running record hears the far end: its words go into the capture, a finish key ends it. */
  private async recordHears(trx: Trx, call: CallRef, state: SimState, input: Extract<HeardInput, { kind: 'dtmf' | 'speech' }>, now: number): Promise<void> {
    const op = state.op!;
    const record = op.record!;
    if (input.kind === 'dtmf') {
      if (!recordKey(record, input.digits)) return;
      record.tick += 1; // every timer set so far is now stale
      await this.states.write(trx, call.id, state);
      await this.scheduleOp(trx, call, { callId: call.id, opId: op.id, reason: 'finished', tick: record.tick, result: recordResult(record, 'finish_key', now) }, 0);
      return;
    }
    const segment = recordWords(record, input.text, now, farEndSpeaker(call));
    if (!segment) return;
    state.captures?.[record.recordingId]?.words?.push(segment);
    await this.states.write(trx, call.id, state);
    const timer = recordTimer(record);
    await this.scheduleOp(trx, call, { callId: call.id, opId: op.id, reason: 'finished', tick: record.tick, result: recordResult(record, timer.reason, timer.atSeconds) }, Math.max(0, timer.atSeconds - now));
  }

  private async scheduleOp(trx: Trx, call: CallRef, step: OpStep, simulatedSeconds: number): Promise<void> {
    await this.platform.jobs.enqueue(trx, OP_JOB, step, {
      delaySeconds: simulatedSeconds * this.platform.config.simTimeScale,
      clockId: call.mode === 'sandbox' ? call.account_id : null,
    });
  }

  /** The op's time is up (or it was cut short): clear it, then report it once, after the commit. */
  private async opEnded(step: OpStep): Promise<void> {
    const result = await inTransaction(this.platform.database.db, async (trx) => {
      const call = await this.store.lock(trx, step.callId);
      if (!call) return null;
      const state = JSON.parse(call.carrier_state) as SimState;
      if (state.op?.id !== step.opId) return null;
      const { kind, collect, bridge, record, conference, connection } = state.op;
      const timer = collect ?? record;
      if (timer && step.tick !== undefined && step.tick !== timer.tick) return null; // a newer input moved the timer
      delete state.op;
      const reason = call.status === 'in_progress' ? step.reason : 'hangup';
      if (record) {
        const now = await this.elapsed(trx, call);
        const result = reason === 'finished' && step.result?.kind === 'record' ? step.result : recordResult(record, reason === 'finished' ? 'max_length' : reason, now);
        // The capture ends where the record did (a hang-up may have closed it already); the flow's stop renders it.
        const open = state.captures?.[record.recordingId]?.spans.at(-1);
        if (open && open.end === null) open.end = round3(record.startAt + result.durationSeconds);
        await this.states.write(trx, call.id, state);
        return result;
      }
      if (connection) await this.conferences.disconnected(trx, call, connection);
      // A conference is only left, never finished: removed or ended (interrupted), or hung up.
      if (kind === 'conference') {
        await this.states.write(trx, call.id, state);
        return { kind: 'conference', conferenceId: conference?.conferenceId ?? '', reason: reason === 'hangup' ? 'hangup' : 'interrupted' } satisfies MediaResult;
      }
      // Cut short: the prompt stops sounding now.
      if (reason !== 'finished') state.sound = cutSound(state.sound, flowChannel(call), await this.elapsed(trx, call));
      await this.states.write(trx, call.id, state);
      if (collect) return reason === 'finished' ? (step.result ?? timerResult(collect)) : collectResult(collect, reason);
      if (bridge) {
        if (reason === 'finished' && step.result) return step.result;
        // Cut short: the two talked from the answer until now.
        const talked = bridge.answerAt === null ? 0 : Math.max(0, round3(await this.elapsed(trx, call) - bridge.answerAt));
        return { kind: 'bridge', outcome: reason === 'finished' ? 'completed' : reason, talkSeconds: talked } satisfies MediaResult;
      }
      return simpleResult(kind, reason);
    });
    if (!result) return;
    await this.events.finished(step.callId, step.opId, result);
  }

  /**
   * The simulated other party hears every key at once: nothing in the simulator reacts to
   * keys (its parties follow their scripts), so there is nothing to schedule. What it heard
   * is the call.dtmf.sent event the calls module fires in the same transaction.
   */
  async sendDtmf(): Promise<void> {}

  /**
   * The voice steps mark the transaction that answers a call: a recording started with the
   * answer starts at 0, not at the few real milliseconds the transaction took (which the
   * time scale would magnify).
   */
  answering(trx: Trx, callId: string): void {
    const set = this.answeredIn.get(trx) ?? new Set<string>();
    set.add(callId);
    this.answeredIn.set(trx, set);
  }

  async elapsed(trx: Trx, call: CallRef): Promise<number> {
    if (!call.answered_at || this.answeredIn.get(trx)?.has(call.id)) return 0;
    // An ended call's media stopped at its end, whenever the job that noticed runs.
    if (call.ended_at && call.duration_seconds !== null) return Number(call.duration_seconds);
    const clock = await this.platform.sandboxClocks.clockFor(call.account_id, call.mode, trx);
    const elapsedMs = clock.now().getTime() - Date.parse(call.answered_at);
    return Math.max(0, Math.round(elapsedMs / this.platform.config.simTimeScale) / 1000);
  }

  async startCapture(trx: Trx, call: CallRef, recordingId: string, format: RecordingFormat): Promise<void> {
    const at = await this.elapsed(trx, call);
    const state = await this.states.read(trx, call.id);
    const captures = state.captures ?? {};
    const previous = captures[recordingId];
    if (previous?.spans.at(-1)?.end === null) return;
    captures[recordingId] = { format, spans: [...(previous?.spans ?? []), { start: at, end: null }], generation: previous?.generation ?? 0 };
    await this.states.write(trx, call.id, { ...state, captures });
  }

  async pauseCapture(trx: Trx, call: CallRef, recordingId: string): Promise<void> {
    await this.closeSpan(trx, call, recordingId);
  }

  async stopCapture(trx: Trx, call: CallRef, recordingId: string): Promise<void> {
    const capture = await this.closeSpan(trx, call, recordingId, true);
    if (!capture) return;
    const step: RenderStep = { callId: call.id, recordingId, generation: capture.generation, fromFrame: 0 };
    await this.platform.jobs.enqueue(trx, RENDER_JOB, step, { clockId: call.mode === 'sandbox' ? call.account_id : null });
  }

  private async closeSpan(trx: Trx, call: CallRef, recordingId: string, stop = false) {
    const state = await this.states.read(trx, call.id);
    const capture = state.captures?.[recordingId];
    if (!capture) return undefined;
    const open = capture.spans.at(-1);
    if (open && open.end === null) open.end = round3(Math.max(open.start, await this.elapsed(trx, call)));
    if (stop) capture.generation += 1;
    await this.states.write(trx, call.id, state);
    return capture;
  }

  /** One render job: up to RENDER_CHUNK_SECONDS of audio into the sink, then close it or hand over to the next job. */
  private async render(step: RenderStep, attempt: number): Promise<void> {
    const sinks = this.sinks;
    const db = this.platform.database.db;
    const found = await this.store.peek(step.callId);
    if (!found) return;
    const { call, runsFlow } = found;
    const state = JSON.parse(call.carrier_state) as SimState;
    const capture = state.captures?.[step.recordingId];
    if (!capture || capture.generation !== step.generation || capture.spans.at(-1)?.end === null) return;
    const { format } = capture;
    // A record verb hears the far end only; a tap of a flow call hears the flow and the far end
    // (flow-sound.ts), and in a conference what the call heard there on the flow's side
    // (conference-media.ts); a tap of any other call hears its scripted parties (call-audio.ts).
    const until = Math.max(...capture.spans.map((s) => s.end ?? s.start));
    const heard = runsFlow && state.stays?.length ? await this.conferences.heardOnCall(call, state.stays, flowChannel(call), until) : undefined;
    const { transcript, durationSeconds, plays } = capture.words
      ? { transcript: capture.words, durationSeconds: capture.spans.reduce((sum, s) => sum + Math.max(0, (s.end ?? s.start) - s.start), 0), plays: [] }
      : runsFlow ? soundOfSpans(heard ? addSound(state.sound, heard) : state.sound, capture.spans) : { ...recordingTranscript(call.id, state.legs, capture.spans), plays: [] };
    const next = await streamRecording(sinks, {
      accountId: call.account_id, recordingId: step.recordingId, format, transcript, plays, durationSeconds, transcribe: capture.transcribe !== false,
    }, step.fromFrame, attempt >= RENDER_ATTEMPTS);
    if (next === null) return;
    await inTransaction(db, (trx) => this.platform.jobs.enqueue(trx, RENDER_JOB, { ...step, fromFrame: next } satisfies RenderStep, {
      clockId: call.mode === 'sandbox' ? call.account_id : null,
    }));
  }
}

function simpleResult(kind: string, reason: 'finished' | 'interrupted' | 'hangup'): MediaResult {
  if (kind !== 'speak' && kind !== 'play' && kind !== 'silence' && kind !== 'connect') throw new Error(`no simple result for a ${kind} operation`);
  return { kind, reason };
}

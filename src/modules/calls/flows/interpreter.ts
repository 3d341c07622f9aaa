// The flow interpreter: runs a call's flow verb by verb through the carrier's MediaPort and
// nothing else, so the sandbox and a live call behave the same. Each step is one transaction
// on the locked call: close the verb that ended, start the next (its media command commits
// with the new state), or end the call when the flow says so or runs out (as TwiML does).
// The port reports back through MediaEvents outside any transaction; a report for another
// op id than the one the state awaits is stale (late, repeated after a restart) and ignored.
import type { Platform } from '../../../platform/context.ts';
import type { Clock } from '../../../platform/clock.ts';
import { inTransaction, type Trx } from '../../../store/transaction.ts';
import type { HeardInput, MediaEvents, MediaOp, MediaResult, PromptOp } from '../../../carriers/media-port.ts';
import type { EventEmitter } from '../../../events/emit.ts';
import type { VoiceCarriers } from '../../../carriers/carrier.ts';
import type { CallRow } from '../tables.ts';
import type { CallService } from '../service.ts';
import { isFinal } from '../states.ts';
import type { Verb } from './schema.ts';
import { flowLogOf, flowStateOf, saveFlow, verbName, type FlowLogEntry, type FlowState } from './state.ts';

export class FlowInterpreter implements MediaEvents {
  constructor(
    private readonly platform: Platform,
    private readonly calls: CallService,
    private readonly carriers: VoiceCarriers,
    private readonly events: EventEmitter,
  ) {
    for (const carrier of carriers.all()) carrier.media.connectEvents(this);
    calls.onTransition(async (trx, call, from, clock) => {
      if (call.status === 'in_progress' && from !== 'in_progress' && call.flow_state) await this.start(trx, call, clock);
      if (from === 'in_progress' && isFinal(call.status) && call.flow_state) await this.callEnded(trx, call, clock);
    });
  }

  private get db() {
    return this.platform.database.db;
  }

  private async start(trx: Trx, call: CallRow, clock: Clock): Promise<void> {
    const state = flowStateOf(call);
    if (!state || state.op !== null || state.pc !== 0) return;
    await this.advance(trx, call, state, flowLogOf(call), clock);
  }

  /** Runs verbs from `state.pc` until one waits on the media, or the flow ends the call. */
  private async advance(trx: Trx, call: CallRow, state: FlowState, log: FlowLogEntry[], clock: Clock): Promise<void> {
    const now = clock.now().toISOString();
    const verb = state.verbs[state.pc];
    if (!verb) {
      // The flow ran out: the call ends, as it does after the last TwiML verb.
      const saved = await saveFlow(trx, call, { ...state, op: null }, log);
      await this.calls.endFromFlow(trx, saved, clock);
      return;
    }
    const name = verbName(verb);
    if (name === 'hangup') {
      log.push({ index: state.pc, verb: name, started_at: now, ended_at: now, result: {} });
      const saved = await saveFlow(trx, call, { ...state, op: null, pc: state.pc + 1 }, log);
      await this.calls.endFromFlow(trx, saved, clock);
      return;
    }
    const opId = `${call.id}:${state.seq + 1}`;
    log.push({ index: state.pc, verb: name, started_at: now, ended_at: null, result: null });
    const saved = await saveFlow(trx, call, { ...state, op: opId, seq: state.seq + 1 }, log);
    await this.carriers.named(call.carrier).media.run(trx, saved, opId, mediaOpOf(verb));
  }

  async finished(callId: string, opId: string, result: MediaResult): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      const call = await this.calls.lock(trx, callId);
      const state = call ? flowStateOf(call) : null;
      if (!call || !state || state.op !== opId || call.status !== 'in_progress') return;
      const clock = await this.platform.sandboxClocks.clockFor(call.account_id, call.mode, trx);
      const log = flowLogOf(call);
      closeEntry(log, clock.now().toISOString(), resultOf(result));
      const verb = state.verbs[state.pc];
      if (result.kind === 'collect' && verb && 'gather' in verb) await this.gathered(trx, call, state.pc, result, clock);
      await this.advance(trx, call, { ...state, op: null, pc: state.pc + 1 }, log, clock);
    });
  }

  /** A gather ended: call.gather.completed says with what. */
  private async gathered(trx: Trx, call: CallRow, index: number, result: Extract<MediaResult, { kind: 'collect' }>, clock: Clock): Promise<void> {
    await this.events.emit(trx, {
      accountId: call.account_id, mode: call.mode, type: 'call.gather.completed', resourceType: 'call', resourceId: call.id,
      object: gatherOf(call, index, result), webhookUrl: call.webhook_url, clock,
    });
  }

  async heard(_callId: string, _input: HeardInput): Promise<void> {
    // Input outside a gather has no effect on the flow.
  }

  /** The call ended under a running verb: its log entry ends with the call. */
  private async callEnded(trx: Trx, call: CallRow, clock: Clock): Promise<void> {
    const state = flowStateOf(call);
    if (!state || state.op === null) return;
    const log = flowLogOf(call);
    closeEntry(log, call.ended_at ?? clock.now().toISOString(), { reason: 'hangup' });
    await saveFlow(trx, call, { ...state, op: null }, log);
  }
}

function closeEntry(log: FlowLogEntry[], at: string, result: Record<string, unknown>): void {
  const open = log.at(-1);
  if (open && open.ended_at === null) {
    open.ended_at = at;
    open.result = result;
  }
}

function resultOf(result: MediaResult): Record<string, unknown> {
  const { kind: _kind, ...rest } = result;
  return rest;
}

/** The object of call.gather.completed (the CallGather schema). */
export function gatherOf(call: CallRow, index: number, result: Extract<MediaResult, { kind: 'collect' }>) {
  return {
    object: 'call_gather' as const,
    call_id: call.id,
    index,
    digits: result.digits,
    speech: result.speech,
    confidence: result.confidence,
    reason: result.reason,
  };
}

function mediaOpOf(verb: Verb): MediaOp {
  if ('gather' in verb) {
    const g = verb.gather;
    const input = g.input ?? ['dtmf'];
    return {
      kind: 'collect',
      prompts: (g.prompts ?? []).map((p) => promptOf(p as Verb)),
      bargeIn: g.barge_in ?? true,
      dtmf: input.includes('dtmf'),
      speech: input.includes('speech'),
      numDigits: g.num_digits,
      finishOnKey: g.finish_on_key ?? '#',
      timeoutSeconds: g.timeout ?? 5,
      speechTimeoutSeconds: g.speech_timeout ?? 2,
      hints: g.hints ?? [],
    };
  }
  return promptOf(verb);
}

function promptOf(verb: Verb): PromptOp {
  if ('say' in verb) return { kind: 'speak', text: verb.say.text, voice: verb.say.voice, language: verb.say.language, loop: verb.say.loop ?? 1 };
  if ('pause' in verb) return { kind: 'silence', seconds: verb.pause.seconds };
  throw new Error(`verb ${verbName(verb)} has no media operation`);
}

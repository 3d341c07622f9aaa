// The simulated carrier for voice (sandbox). Deterministic: what happens depends only on
// the destination (magic-numbers.ts) and the call's settings. Every step is a durable
// job on the account's sandbox test clock whose payload names the call; the handler locks
// the call, and does nothing if the call has already moved on (a job may run twice after
// a crash, or find that the call was hung up meanwhile). A restart mid-call simply lets the
// next process run the pending steps. Delays are multiplied by SWITCHBOARD_SIM_TIME_SCALE;
// talk times, durations and recordings are in simulated seconds, independent of the scale.
import type { Platform } from '../../platform/context.ts';
import type { Trx } from '../../store/transaction.ts';
import { inTransaction } from '../../store/transaction.ts';
import type { CallRef } from '../../telephony/call-ref.ts';
import type { CallSignals, CarrierCallStore, VoiceCarrier } from '../carrier.ts';
import type { CarrierListeners } from '../listeners.ts';
import { RING_SECONDS, destination } from './magic-numbers.ts';
import { SimulatedMediaPort } from './media.ts';
import type { SimState } from './sim-state.ts';
import { CallerScripts } from './caller-script.ts';
import type { CallerStep } from '../sandbox-network.ts';
import { talkTime } from './talk-time.ts';

type Step =
  | { step: 'dial'; callId: string }
  | { step: 'answer'; callId: string }
  | { step: 'ring_timeout'; callId: string }
  | { step: 'hangup'; callId: string; leg: number; at: number; cause: 'normal_clearing' | 'time_limit_reached' }
  | { step: 'transfer'; callId: string; index: number; to: string }
  | { step: 'inbound_answer'; callId: string };

const JOB_KIND = 'simulator.voice';

export class SimulatedVoiceCarrier implements VoiceCarrier {
  readonly name = 'simulator';
  readonly media: SimulatedMediaPort;

  constructor(private readonly platform: Platform, store: CarrierCallStore, private readonly listeners: CarrierListeners) {
    platform.jobs.register<Step>(JOB_KIND, (step) => this.run(step));
    this.media = new SimulatedMediaPort(platform, store, listeners);
    this.scripts = new CallerScripts(platform, this.media, () => listeners.signals());
  }

  private readonly scripts: CallerScripts;

  /**
   * An inbound sandbox call answered by a flow: it rings for RING_SECONDS, then Switchboard
   * answers (the flow starts) and the scripted caller, if any, begins.
   */
  async ringInbound(trx: Trx, call: CallRef, script: CallerStep[]): Promise<void> {
    const state = await this.media.states.read(trx, call.id);
    await this.media.states.write(trx, call.id, { ...state, script: { steps: script, pos: 0, waiting: false } });
    await this.schedule(trx, call, { step: 'inbound_answer', callId: call.id }, RING_SECONDS);
  }

  /**
   * A flow handed the call to an AI agent: the caller's remaining `say` steps become its lines
   * to the agent, and the script stops acting (the conversation plays the caller from now on).
   */
  async takeCallerLines(trx: Trx, call: CallRef): Promise<string[]> {
    const state = await this.media.states.read(trx, call.id);
    if (!state.script || call.carrier !== this.name) return [];
    const lines = state.script.steps.slice(state.script.pos).flatMap((step) => ('say' in step ? [step.say] : []));
    await this.media.states.write(trx, call.id, { ...state, script: { ...state.script, pos: state.script.steps.length, waiting: false } });
    return lines;
  }


  initialState(): string {
    return JSON.stringify({ leg: 0, legs: [] } satisfies SimState);
  }

  async place(trx: Trx, call: CallRef): Promise<void> {
    await this.schedule(trx, call, { step: 'dial', callId: call.id }, 0);
  }

  async hangUp(trx: Trx, call: CallRef): Promise<{ talkSeconds: number | null }> {
    // Pending steps find the call ended and do nothing: there is nothing to cancel.
    return { talkSeconds: call.answered_at ? await this.media.elapsed(trx, call) : null };
  }

  async transfer(trx: Trx, call: CallRef, index: number, to: string, ringTimeout: number): Promise<void> {
    const target = destination(to);
    // Busy and failing targets answer at once; others ring (1 s, or until the timeout).
    const delay = target.answer === 'no_answer' ? ringTimeout
      : target.answer === 'answers' && target.acceptsTransfer ? Math.min(RING_SECONDS, ringTimeout) : 0;
    await this.schedule(trx, call, { step: 'transfer', callId: call.id, index, to }, delay);
  }

  private async schedule(trx: Trx, call: CallRef, step: Step, simulatedSeconds: number): Promise<void> {
    await this.platform.jobs.enqueue(trx, JOB_KIND, step, {
      delaySeconds: simulatedSeconds * this.platform.config.simTimeScale,
      clockId: call.mode === 'sandbox' ? call.account_id : null,
    });
  }

  private async run(step: Step): Promise<void> {
    const signals: CallSignals = this.listeners.signals();
    await inTransaction(this.platform.database.db, async (trx) => {
      const call = await this.media.states.store.lock(trx, step.callId);
      if (!call) return;
      const target = destination(call.to_number);
      switch (step.step) {
        case 'dial': {
          if (call.status !== 'queued') return;
          if (target.answer === 'busy') return signals.ended(trx, call, { status: 'busy', hangupCause: 'user_busy', hangupSource: 'callee' });
          if (target.answer === 'fails') {
            return signals.ended(trx, call, { status: 'failed', hangupCause: 'network_out_of_order', hangupSource: 'carrier' });
          }
          await signals.ringing(trx, call);
          const answers = target.answer === 'answers' && RING_SECONDS < call.timeout;
          await this.schedule(trx, call, { step: answers ? 'answer' : 'ring_timeout', callId: call.id }, answers ? RING_SECONDS : call.timeout);
          return;
        }
        case 'ring_timeout':
          if (call.status !== 'ringing') return;
          return signals.ended(trx, call, { status: 'no_answer', hangupCause: 'no_answer', hangupSource: 'carrier' });
        case 'answer': {
          if (call.status !== 'ringing') return;
          const state: SimState = { ...await this.media.states.read(trx, call.id), leg: 1, legs: [{ at: 0, party: call.to_number, dialogue: target.dialogue }] };
          await this.media.states.write(trx, call.id, state);
          this.media.answering(trx, call.id);
          await signals.answered(trx, { ...call, carrier_state: JSON.stringify(state) });
          await this.scheduleHangup(trx, call, state, 0, target.talk === 'forever' ? null : talkTime(target, call.id, 0));
          return;
        }
        case 'inbound_answer': {
          if (call.status !== 'ringing') return;
          const state: SimState = { ...await this.media.states.read(trx, call.id), leg: 1, legs: [] };
          await this.media.states.write(trx, call.id, state);
          this.media.answering(trx, call.id);
          await signals.answered(trx, { ...call, carrier_state: JSON.stringify(state) });
          await this.scheduleHangup(trx, call, state, 0, null); // the caller stays until the script or the flow ends it, or time_limit
          await this.scripts.start(trx, call);
          return;
        }
        case 'hangup': {
          const state = await this.media.states.read(trx, call.id);
          if (call.status !== 'in_progress' || state.leg !== step.leg) return;
          const source = step.cause === 'time_limit_reached' ? 'system' : 'callee';
          return signals.ended(trx, call, { status: 'completed', hangupCause: step.cause, hangupSource: source, talkSeconds: step.at });
        }
        case 'transfer': {
          if (call.status !== 'in_progress') return;
          if (!await signals.transferPending(trx, call, step.index)) return;
          const to = destination(step.to);
          if (to.answer !== 'answers' || !to.acceptsTransfer) {
            const outcome = to.answer === 'no_answer' ? 'no_answer' : to.answer === 'fails' ? 'failed' : 'busy';
            return signals.transferSettled(trx, call, step.index, outcome);
          }
          // The called party is handed over: the new party talks from now on, with a fresh hang-up.
          const at = await this.media.elapsed(trx, call);
          const previous = await this.media.states.read(trx, call.id);
          const state: SimState = { ...previous, leg: previous.leg + 1, legs: [...previous.legs, { at, party: step.to, dialogue: to.dialogue }] };
          await this.media.states.write(trx, call.id, state);
          await signals.transferSettled(trx, { ...call, carrier_state: JSON.stringify(state) }, step.index, 'completed');
          await this.scheduleHangup(trx, call, state, at, to.talk === 'forever' ? null : at + talkTime(to, call.id, state.legs.length - 1));
          return;
        }
      }
    });
  }

  /** Schedules the end of the current leg: the party hangs up, or the call's time limit hits first. */
  private async scheduleHangup(trx: Trx, call: CallRef, state: SimState, now: number, talkEnd: number | null): Promise<void> {
    const limited = talkEnd === null || talkEnd > call.time_limit;
    const at = limited ? call.time_limit : talkEnd;
    const step: Step = { step: 'hangup', callId: call.id, leg: state.leg, at, cause: limited ? 'time_limit_reached' : 'normal_clearing' };
    await this.schedule(trx, call, step, Math.max(0, at - now));
  }
}


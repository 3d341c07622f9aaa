// The sandbox caller of an inbound flow call, acting from a script (POST
// /v1/sandbox/inbound_calls `caller_script`): `{"press": "12#"}`, `{"say": "billing please"}`,
// `{"wait": 3}`, `{"hangup": true}`, in order, from the answer. Like a polite caller, a press
// or say step waits until a gather is listening and its prompts have ended (or a record has
// beeped); a wait step
// passes simulated time; after the last step the caller stays on the line until the flow
// hangs up. In a conference a press or say step is taken at once. Every step is a durable job on the account's test clock; the script's position is
// in the simulator's call state, so a restart resumes it and a stale job does nothing.
import type { Platform } from '../../platform/context.ts';
import type { Trx } from '../../store/transaction.ts';
import { inTransaction } from '../../store/transaction.ts';
import type { CallRef } from '../../telephony/call-ref.ts';
import type { CallSignals } from '../carrier.ts';
import type { HeardInput } from '../../telephony/media-ops.ts';
import type { SimStates } from './sim-state.ts';

/** What a script needs of the simulator's media port (media.ts), named here so the two do not import each other. */
export interface ScriptedMedia {
  readonly states: SimStates;
  elapsed(trx: Trx, call: CallRef): Promise<number>;
  farEnd(trx: Trx, call: CallRef, input: Extract<HeardInput, { kind: 'dtmf' | 'speech' }>): Promise<void>;
}

export const SCRIPT_JOB = 'simulator.caller_script';

interface ScriptStep {
  callId: string;
  pos: number;
}

export class CallerScripts {
  constructor(
    private readonly platform: Platform,
    private readonly media: ScriptedMedia,
    private readonly signals: () => CallSignals,
  ) {
    platform.jobs.register<ScriptStep>(SCRIPT_JOB, (step) => this.run(step));
  }

  /** Schedules the step at `pos` in `simulatedSeconds` (inside the caller's transaction). */
  static async schedule(platform: Platform, trx: Trx, call: Pick<CallRef, 'id' | 'mode' | 'account_id'>, pos: number, simulatedSeconds: number): Promise<void> {
    await platform.jobs.enqueue(trx, SCRIPT_JOB, { callId: call.id, pos } satisfies ScriptStep, {
      delaySeconds: simulatedSeconds * platform.config.simTimeScale,
      clockId: call.mode === 'sandbox' ? call.account_id : null,
    });
  }

  /** The call was answered: the script starts now. */
  async start(trx: Trx, call: CallRef): Promise<void> {
    const state = await this.media.states.read(trx, call.id);
    if (!state.script || state.script.steps.length === 0) return;
    await CallerScripts.schedule(this.platform, trx, call, 0, 0);
  }

  private async run(step: ScriptStep): Promise<void> {
    await inTransaction(this.platform.database.db, async (trx) => {
      const signals = this.signals();
      const call = await this.media.states.store.lock(trx, step.callId);
      if (!call || call.status !== 'in_progress') return;
      let state = await this.media.states.read(trx, call.id);
      if (!state.script || state.script.pos !== step.pos) return;
      for (;;) {
        const script = state.script!;
        const next = script.steps[script.pos];
        if (!next) return;
        if ('wait' in next) {
          script.pos += 1;
          await this.media.states.write(trx, call.id, state);
          return CallerScripts.schedule(this.platform, trx, call, script.pos, next.wait);
        }
        if ('hangup' in next) {
          script.pos += 1;
          await this.media.states.write(trx, call.id, state);
          const talkSeconds = await this.media.elapsed(trx, call);
          return signals.ended(trx, call, { status: 'completed', hangupCause: 'normal_clearing', hangupSource: call.direction === 'inbound' ? 'caller' : 'callee', talkSeconds });
        }
        const collect = state.op?.collect;
        const record = state.op?.record;
        const now = await this.media.elapsed(trx, call);
        // In a conference there is nothing to wait for: the caller talks to the others now.
        if (state.op?.conference) {
          script.pos += 1;
          await this.media.states.write(trx, call.id, state);
          await this.media.farEnd(trx, call, 'press' in next ? { kind: 'dtmf', digits: next.press } : { kind: 'speech', text: next.say });
          state = await this.media.states.read(trx, call.id);
          continue;
        }
        if (!collect && !record) {
          script.waiting = true; // the next gather (or record) wakes the script when its prompts (or beep) end
          await this.media.states.write(trx, call.id, state);
          return;
        }
        // A gather listens but still plays its prompts (a record still beeps): act when they end.
        const readyAt = collect ? collect.promptsEndAt : record!.startAt;
        if (now + 1e-6 < readyAt) return CallerScripts.schedule(this.platform, trx, call, script.pos, readyAt - now);
        script.pos += 1;
        script.waiting = false;
        await this.media.states.write(trx, call.id, state);
        await this.media.farEnd(trx, call, 'press' in next ? { kind: 'dtmf', digits: next.press } : { kind: 'speech', text: next.say });
        state = await this.media.states.read(trx, call.id);
      }
    });
  }
}

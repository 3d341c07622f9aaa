// The verbs that hand the call to someone else: `transfer` (the call's blind transfer) and
// `agent` (an AI conversation, started by the AI module). Both end the flow's part when they
// succeed; a failure is an outcome in the log and the flow goes on, except a call that cannot
// do it at all (an agent on a live server that cannot hear speech), which fails the flow like
// any unsupported verb.
import type { Platform } from '../../../platform/context.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { Trx } from '../../../store/transaction.ts';
import type { TransferOutcome } from '../../../carriers/carrier.ts';
import { Problem } from '../../../platform/problems.ts';
import type { CallRow } from '../tables.ts';
import type { CallService } from '../service.ts';
import type { FlowFailure } from './flow-webhook.ts';
import { closeEntry, flowLogOf, flowStateOf, saveFlow, type FlowLogEntry, type FlowReplacement, type FlowState } from './state.ts';

export type FlowAgentHandover =
  | { ok: true; conversationId: string }
  /** `apology`: what the caller hears instead of the generic apology when the call cannot have an agent. */
  | { ok: false; unsupported: boolean; detail: string; apology?: string };

/** How the agent verb hands a call to an AI agent (implemented by the AI module). */
export interface FlowAgents {
  start(trx: Trx, call: CallRow, agentId: string, clock: Clock): Promise<FlowAgentHandover>;
}

/** What the interpreter does next, called back from here. */
export interface FlowSteps {
  advance(trx: Trx, call: CallRow, state: FlowState, log: FlowLogEntry[], clock: Clock): Promise<void>;
  apologise(trx: Trx, call: CallRow, state: FlowState, log: FlowLogEntry[], clock: Clock, failure: FlowFailure & { url: null }, apology?: string): Promise<void>;
  switchTo(trx: Trx, call: CallRow, state: FlowState, log: FlowLogEntry[], clock: Clock, replacement: FlowReplacement): Promise<void>;
}

export class FlowHandovers {
  private agents: FlowAgents | null = null;

  constructor(private readonly platform: Platform, private readonly calls: CallService, private readonly steps: FlowSteps) {
    calls.onTransferSettled((trx, call, index, outcome) => this.transferSettled(trx, call, index, outcome));
  }

  connectAgents(agents: FlowAgents): void {
    this.agents = agents;
  }

  /**
   * The transfer verb is the call's blind transfer (CallService.startTransfer, as POST
   * /v1/calls/{id}/transfer): the flow waits for it to settle (transferSettled). One the
   * call cannot start (another transfer pending, the party already on the call) is a failed
   * outcome at once, and the flow goes on.
   */
  async transfer(trx: Trx, call: CallRow, state: FlowState, log: FlowLogEntry[], clock: Clock, opId: string, verb: { to: string; timeout?: number }): Promise<void> {
    try {
      const { call: moved, index } = await this.calls.startTransfer(trx, call, verb.to, verb.timeout ?? 30, clock);
      await saveFlow(trx, moved, { ...state, op: opId, transfer: index }, log);
    } catch (err) {
      if (!(err instanceof Problem)) throw err;
      closeEntry(log, clock.now().toISOString(), { to: verb.to, outcome: 'failed', detail: err.message });
      await this.steps.advance(trx, call, { ...state, op: null, pc: state.pc + 1 }, log, clock);
    }
  }

  /** A transfer settled (listener of CallService): if the flow waits on it, connected ends the flow's part, else it goes on. */
  private async transferSettled(trx: Trx, call: CallRow, index: number, outcome: TransferOutcome): Promise<void> {
    const state = flowStateOf(call);
    if (!state || state.op === null || state.transfer !== index) return;
    const clock = await this.platform.sandboxClocks.clockFor(call.account_id, call.mode, trx);
    const log = flowLogOf(call);
    const transfer = state.verbs[state.pc];
    closeEntry(log, clock.now().toISOString(), { to: transfer && 'transfer' in transfer ? transfer.transfer.to : null, outcome });
    const next: FlowState = { ...state, op: null, transfer: null, pc: state.pc + 1, hops: 0 };
    if (state.replacement) return this.steps.switchTo(trx, call, next, log, clock, state.replacement);
    // Connected: the caller talks to the target now and the rest of the flow is not for them.
    if (outcome === 'completed') {
      await saveFlow(trx, call, next, log);
      return;
    }
    await this.steps.advance(trx, call, next, log, clock);
  }

  /**
   * The agent verb: an AI conversation takes the call over (the AI module starts it in this
   * transaction) and the flow's part is done. An agent that cannot take it (unknown, paused)
   * is a failed verb and the flow goes on; a call that cannot have one (live, without speech-to-text) fails the flow.
   */
  async agent(trx: Trx, call: CallRow, state: FlowState, log: FlowLogEntry[], clock: Clock, agentId: string): Promise<void> {
    if (!this.agents) throw new Error('a flow handed a call to an agent before the AI module connected');
    const handover = await this.agents.start(trx, call, agentId, clock);
    const now = clock.now().toISOString();
    if (handover.ok) {
      closeEntry(log, now, { agent_id: agentId, conversation_id: handover.conversationId });
      await saveFlow(trx, call, { ...state, op: null, pc: state.pc + 1 }, log);
      return;
    }
    closeEntry(log, now, { reason: handover.unsupported ? 'unsupported' : 'failed', detail: handover.detail });
    if (!handover.unsupported) return this.steps.advance(trx, call, { ...state, pc: state.pc + 1 }, log, clock);
    await this.steps.apologise(trx, call, state, log, clock, {
      cause: 'unsupported_verb', url: null, statusCode: null, field: `flow[${state.pc}].agent`, detail: `flow[${state.pc}].agent cannot run on this call: ${handover.detail}.`,
    }, handover.apology);
  }
}

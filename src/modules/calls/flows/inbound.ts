// Inbound calls answered by what the called number's voice configuration says, on every
// carrier: a sandbox caller (POST /v1/sandbox/inbound_calls) or a live one (a SIP INVITE to
// the account's number). voice_url is fetched when the call is answered (voice_fallback_url
// on failure); voice_flow runs as stored; agent_id hands the answered call to the AI agent
// (on live calls, where the sandbox's simulated conversation does not apply); with none of
// these the caller hears that the number is not set up, the call hangs up, and
// call.flow.failed (`no_voice_config`) says why.
import type { Platform } from '../../../platform/context.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { Mode, NumberRow } from '../../../store/platform-tables.ts';
import { inTransaction, type Trx } from '../../../store/transaction.ts';
import type { EventEmitter } from '../../../events/emit.ts';
import type { CallerStep, SandboxNetwork } from '../../../carriers/index.ts';
import { voiceHandlerOf } from '../../numbers/voice-config.ts';
import type { CallService, InboundCall } from '../service.ts';
import type { CallRow } from '../tables.ts';
import { presentOne, type Call } from '../presenter.ts';
import type { Verb } from './schema.ts';
import { fetchedFlowState, newFlowState, type FlowState } from './state.ts';

export const NOT_CONFIGURED_TEXT = 'The number you have called is not set up to take calls. Goodbye.';
/** Heard only when the number's AI agent could not take the call (paused, deleted). */
export const AGENT_AWAY_TEXT = 'Sorry, nobody can take your call right now. Please try again later. Goodbye.';

/** What answers a call to `number`, as the flow the call runs once answered. */
export function inboundFlowOf(number: NumberRow): { state: FlowState; configured: boolean; announce: boolean } {
  const handler = voiceHandlerOf(number);
  switch (handler.kind) {
    case 'url':
      return { state: fetchedFlowState(handler.url, handler.fallbackUrl), configured: true, announce: true };
    case 'flow':
      return { state: { ...newFlowState(handler.verbs as Verb[]), fallbackUrl: handler.fallbackUrl }, configured: true, announce: true };
    case 'agent':
      // The agent's conversation announces itself (ai.conversation.started), as in the sandbox.
      return { state: newFlowState([{ agent: { agent_id: handler.agentId } }, { say: { text: AGENT_AWAY_TEXT, loop: 1 } }]), configured: true, announce: false };
    case 'none':
      return { state: newFlowState([{ say: { text: NOT_CONFIGURED_TEXT, loop: 1 } }, { hangup: {} }]), configured: false, announce: true };
  }
}

export class InboundFlowCalls {
  constructor(
    private readonly platform: Platform,
    private readonly calls: CallService,
    private readonly events: EventEmitter,
    private readonly sandbox: SandboxNetwork,
  ) {}

  /** Places the simulated inbound call to `number` (active, voice, no AI agent) and answers with it, ringing. */
  async start(owner: { accountId: string; mode: Mode; clock: Clock }, number: NumberRow, from: string, script: CallerStep[]): Promise<Call> {
    return inTransaction(this.platform.database.db, async (trx) => {
      const row = await this.create(trx, number, { accountId: owner.accountId, mode: owner.mode, from, to: number.phone_number, webhookUrl: number.webhook_url }, owner.clock);
      await this.sandbox.ringInbound(trx, row, script);
      return presentOne(trx, row, this.platform.publicUrl.base);
    });
  }

  /** A carrier's caller reached `number` (CallSignals.admit decided): the call, ringing, set to run the number's voice configuration. */
  async arrived(trx: Trx, number: NumberRow, input: InboundCall, clock: Clock): Promise<CallRow> {
    return this.create(trx, number, input, clock);
  }

  private async create(trx: Trx, number: NumberRow, input: InboundCall, clock: Clock): Promise<CallRow> {
    const { state, configured, announce } = inboundFlowOf(number);
    const created = await this.calls.createInbound(trx, { ...input, announce }, clock);
    const flowState = JSON.stringify(state);
    await trx.updateTable('calls').set({ flow_state: flowState }).where('id', '=', created.id).execute();
    const row = { ...created, flow_state: flowState };
    if (!configured) {
      await this.events.emit(trx, {
        accountId: row.account_id, mode: row.mode, type: 'call.flow.failed', resourceType: 'call', resourceId: row.id, webhookUrl: row.webhook_url, clock,
        object: {
          object: 'call_flow_failure', call_id: row.id, cause: 'no_voice_config', url: null, status_code: null, field: null, next: 'apology',
          detail: `${number.phone_number} (${number.id}) has no voice_url, voice_flow or agent_id, so the caller was told it is not set up and the call hung up. `
            + `Configure it with PATCH /v1/numbers/${number.id}.`,
        },
      });
    }
    return row;
  }
}

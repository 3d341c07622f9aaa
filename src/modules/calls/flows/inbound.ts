// Inbound calls answered by a flow: a sandbox caller dials a number of the account (POST
// /v1/sandbox/inbound_calls) and the number's voice configuration decides what answers:
// voice_url (fetched when the call is answered, voice_fallback_url on failure), voice_flow,
// or, with neither (and no AI agent, which the AI module answers), a spoken message that the
// number is not set up, a hang-up, and call.flow.failed (`no_voice_config`) saying why.
import type { Platform } from '../../../platform/context.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { Mode, NumberRow } from '../../../store/platform-tables.ts';
import { inTransaction } from '../../../store/transaction.ts';
import type { EventEmitter } from '../../../events/emit.ts';
import type { SimulatedVoiceCarrier } from '../../../carriers/simulator/voice.ts';
import type { CallerStep } from '../../../carriers/simulator/caller-script.ts';
import { voiceHandlerOf } from '../../numbers/voice-config.ts';
import type { CallService } from '../service.ts';
import { presentOne, type Call } from '../presenter.ts';
import type { Verb } from './schema.ts';
import { fetchedFlowState, newFlowState, type FlowState } from './state.ts';

export const NOT_CONFIGURED_TEXT = 'The number you have called is not set up to take calls. Goodbye.';

export class InboundFlowCalls {
  constructor(
    private readonly platform: Platform,
    private readonly calls: CallService,
    private readonly events: EventEmitter,
    private readonly simulator: SimulatedVoiceCarrier,
  ) {}

  /** Places the simulated inbound call to `number` (active, voice, no AI agent) and answers with it, ringing. */
  async start(owner: { accountId: string; mode: Mode; clock: Clock }, number: NumberRow, from: string, script: CallerStep[]): Promise<Call> {
    const handler = voiceHandlerOf(number);
    let state: FlowState;
    if (handler.kind === 'url') state = fetchedFlowState(handler.url, handler.fallbackUrl);
    else if (handler.kind === 'flow') state = { ...newFlowState(handler.verbs as Verb[]), fallbackUrl: handler.fallbackUrl };
    else state = newFlowState([{ say: { text: NOT_CONFIGURED_TEXT, loop: 1 } }, { hangup: {} }]);
    return inTransaction(this.platform.database.db, async (trx) => {
      const created = await this.calls.createInbound(trx, {
        accountId: owner.accountId, mode: owner.mode, from, to: number.phone_number, webhookUrl: number.webhook_url, announce: true,
      }, owner.clock);
      const flowState = JSON.stringify(state);
      await trx.updateTable('calls').set({ flow_state: flowState }).where('id', '=', created.id).execute();
      const row = { ...created, flow_state: flowState };
      if (handler.kind === 'none') {
        await this.events.emit(trx, {
          accountId: row.account_id, mode: row.mode, type: 'call.flow.failed', resourceType: 'call', resourceId: row.id, webhookUrl: row.webhook_url, clock: owner.clock,
          object: {
            object: 'call_flow_failure', call_id: row.id, cause: 'no_voice_config', url: null, status_code: null, field: null, next: 'apology',
            detail: `${number.phone_number} (${number.id}) has no voice_url, voice_flow or agent_id, so the caller was told it is not set up and the call hung up. `
              + `Configure it with PATCH /v1/numbers/${number.id}.`,
          },
        });
      }
      await this.simulator.ringInbound(trx, row, script);
      return presentOne(trx, row, this.platform.publicUrl.base);
    });
  }
}

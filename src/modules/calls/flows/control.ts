// Live control of a call in progress: POST /v1/calls/{id}/flow replaces what the call does
// (the running verb is interrupted and the new flow, or the one a URL answers, takes over),
// and POST /v1/calls/{id}/dtmf sends keypresses to the other party (RFC 4733 on a live call;
// in the sandbox the simulated party hears them). Both act on the locked call in one
// transaction with their media command and events, and only on a call in progress.
import type { Platform } from '../../../platform/context.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { EventEmitter } from '../../../events/emit.ts';
import type { VoiceCarriers } from '../../../carriers/index.ts';
import { inTransaction, type Trx } from '../../../store/transaction.ts';
import { Problem, invalidField } from '../../../platform/problems.ts';
import { assertWebhookUrlAllowed } from '../../webhooks/url-policy.ts';
import type { Caller, CallService } from '../service.ts';
import type { CallRow } from '../tables.ts';
import { presentOne, type Call } from '../presenter.ts';
import type { FlowInterpreter } from './interpreter.ts';
import type { FlowReplacement } from './state.ts';
import { unheardSpeechErrors, validateFlow } from './validate.ts';
import { assertFlowUrlsAllowed } from './flow-urls.ts';

export interface FlowUpdate {
  flow?: unknown[] | undefined;
  url?: string | undefined;
}

export class FlowControl {
  constructor(
    private readonly platform: Platform,
    private readonly calls: CallService,
    private readonly carriers: VoiceCarriers,
    private readonly interpreter: FlowInterpreter,
    private readonly events: EventEmitter,
  ) {}

  private get db() {
    return this.platform.database.db;
  }

  /** POST /v1/calls/{id}/flow: exactly one of `flow` (validated at once) or `url`. */
  async update(caller: Caller, id: string, body: FlowUpdate): Promise<Call> {
    if ((body.flow === undefined) === (body.url === undefined)) {
      throw invalidField(body.flow === undefined ? 'flow' : 'url', 'give exactly one of flow (the verbs to run) or url (where to fetch them).', body.flow === undefined ? 'required' : 'not_allowed');
    }
    let replacement: FlowReplacement;
    if (body.flow !== undefined) {
      const checked = validateFlow(body.flow);
      if (!checked.ok) {
        throw new Problem('validation_failed', `The flow is not valid: ${checked.errors.map((e) => `${e.field} ${e.message}`).join('; ')}.`, { errors: checked.errors });
      }
      await assertFlowUrlsAllowed(checked.verbs, caller.mode, this.platform.config);
      replacement = { verbs: checked.verbs };
    } else {
      await assertWebhookUrlAllowed(body.url!, caller.mode, this.platform.config, 'url');
      replacement = { url: body.url! };
    }
    return this.onCallInProgress(caller, id, 'Only a call in progress can be given a new flow', async (trx, call) => {
      if (this.carriers.named(call.carrier).runsFlows === false) {
        throw new Problem('flow_not_supported', `Call flows do not run on calls over this server's ${call.carrier} carrier yet; call ${id} was left as it is.`);
      }
      const unheard = 'verbs' in replacement ? unheardSpeechErrors(replacement.verbs, this.carriers.named(call.carrier).media) : [];
      if (unheard.length > 0) {
        throw new Problem('validation_failed', `The flow cannot run on call ${id}: ${unheard.map((e) => `${e.field} ${e.message}`).join('; ')}.`, { errors: unheard });
      }
      const conversation = await trx.selectFrom('ai_conversations').select('id').where('call_id', '=', id).where('status', '=', 'in_progress').executeTakeFirst();
      if (conversation) {
        throw new Problem('conflict', `Call ${id} is answered by an AI agent (conversation ${conversation.id}); a flow cannot take it over while the conversation runs.`);
      }
      await this.interpreter.replace(trx, call, replacement, caller.clock);
    });
  }

  /** POST /v1/calls/{id}/dtmf: the digits go to the other party; call.dtmf.sent records them. */
  async sendDigits(caller: Caller, id: string, digits: string): Promise<Call> {
    return this.onCallInProgress(caller, id, 'Digits can only be sent on a call in progress', async (trx, call, clock) => {
      const media = this.carriers.named(call.carrier).media;
      const at = await media.elapsed(trx, call);
      await media.sendDtmf(trx, call, digits);
      await this.events.emit(trx, {
        accountId: call.account_id, mode: call.mode, type: 'call.dtmf.sent', resourceType: 'call', resourceId: call.id, webhookUrl: call.webhook_url, clock,
        object: { object: 'call_dtmf', call_id: call.id, digits, at_seconds: Math.round(at * 1000) / 1000 },
      });
    });
  }

  private async onCallInProgress(caller: Caller, id: string, refusal: string, act: (trx: Trx, call: CallRow, clock: Clock) => Promise<void>): Promise<Call> {
    return inTransaction(this.db, async (trx) => {
      const call = await this.calls.lockOwned(trx, caller.account.id, caller.mode, id);
      if (call.status !== 'in_progress') throw new Problem('call_not_in_progress', `${refusal}; call ${id} is ${call.status}.`);
      await act(trx, call, caller.clock);
      const now = await this.calls.lock(trx, id);
      return presentOne(trx, now!, this.platform.publicUrl.base);
    });
  }
}

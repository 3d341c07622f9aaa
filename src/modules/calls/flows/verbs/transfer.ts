// `transfer`: the call's blind transfer (CallService.startTransfer, as POST
// /v1/calls/{id}/transfer). The flow waits for it to settle: connected ends the flow's part
// (the caller talks to the target now), a failure is an outcome in the log and the flow goes
// on. One the call cannot start (another transfer pending, the party already on the call) is
// a failed outcome at once.
import { Type } from 'typebox';
import type { Trx } from '../../../../store/transaction.ts';
import type { TransferOutcome } from '../../../../telephony/call-end.ts';
import { Problem } from '../../../../platform/problems.ts';
import type { CallRow } from '../../tables.ts';
import { closeEntry, flowLogOf, flowStateOf, saveFlow, type FlowState } from '../state.ts';
import { FLOW_LIMITS, Phone } from './common.ts';
import { defineVerb, type FlowRuntime } from './verb.ts';

export const TransferVerb = Type.Object({
  to: Phone('Where to hand the call over to (a blind transfer, as POST /v1/calls/{id}/transfer).'),
  timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: FLOW_LIMITS.dialRingSeconds, default: 30, description: 'Seconds to let the target ring.' })),
}, { additionalProperties: false, description: 'Blind-transfer the other party; when it connects the flow is done, when it fails the flow goes on.' });

/** A transfer settled (listener of CallService): if the flow waits on it, connected ends the flow's part, else it goes on. */
async function settled(flow: FlowRuntime, trx: Trx, call: CallRow, index: number, outcome: TransferOutcome): Promise<void> {
  const state = flowStateOf(call);
  if (!state || state.op === null || state.transfer !== index) return;
  const clock = await flow.platform.sandboxClocks.clockFor(call.account_id, call.mode, trx);
  const log = flowLogOf(call);
  const verb = state.verbs[state.pc];
  closeEntry(log, clock.now().toISOString(), { to: verb && 'transfer' in verb ? verb.transfer.to : null, outcome });
  const next: FlowState = { ...state, op: null, transfer: null, pc: state.pc + 1, hops: 0 };
  if (state.replacement) return flow.switchTo(trx, call, next, log, clock, state.replacement);
  if (outcome === 'completed') {
    await saveFlow(trx, call, next, log);
    return;
  }
  await flow.advance(trx, call, next, log, clock);
}

export const transfer = defineVerb({
  name: 'transfer',
  schema: TransferVerb,
  install(flow) {
    flow.calls.onTransferSettled((trx, call, index, outcome) => settled(flow, trx, call, index, outcome));
  },
  async run(flow, { trx, call, state: before, log, clock }, body, opId) {
    const state = { ...before, seq: before.seq + 1 };
    try {
      const { call: moved, index } = await flow.calls.startTransfer(trx, call, body.to, body.timeout ?? 30, clock);
      await saveFlow(trx, moved, { ...state, op: opId, transfer: index }, log);
    } catch (err) {
      if (!(err instanceof Problem)) throw err;
      closeEntry(log, clock.now().toISOString(), { to: body.to, outcome: 'failed', detail: err.message });
      await flow.advance(trx, call, { ...state, op: null, pc: state.pc + 1 }, log, clock);
    }
  },
});

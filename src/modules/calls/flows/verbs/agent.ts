// `agent`: an AI conversation takes the call over (the AI module starts it in this
// transaction) and the flow's part is done. An agent that cannot take it (unknown, paused)
// is a failed verb and the flow goes on; a call that cannot have one (live, without
// speech-to-text) fails the flow like any unsupported verb.
import { Type } from 'typebox';
import type { Clock } from '../../../../platform/clock.ts';
import type { Trx } from '../../../../store/transaction.ts';
import type { CallRow } from '../../tables.ts';
import { closeEntry, saveFlow } from '../state.ts';
import { defineVerb } from './verb.ts';

export const AgentVerb = Type.Object({
  agent_id: Type.String({ pattern: '^agent_[0-9a-z]+$', maxLength: 64, description: 'The AI agent (GET /v1/ai/agents) that takes the call over.', examples: ['agent_01jd8x0v6kf5b9w3t2q1r0p9n8'] }),
}, { additionalProperties: false, description: 'Hand the call to an AI agent: it greets the caller and holds the conversation; the rest of the flow does not run.' });

export type FlowAgentHandover =
  | { ok: true; conversationId: string }
  /** `apology`: what the caller hears instead of the generic apology when the call cannot have an agent. */
  | { ok: false; unsupported: boolean; detail: string; apology?: string };

/** How the agent verb hands a call to an AI agent (implemented by the AI module). */
export interface FlowAgents {
  start(trx: Trx, call: CallRow, agentId: string, clock: Clock): Promise<FlowAgentHandover>;
}

declare module './verb.ts' {
  interface FlowRuntime {
    agents(): FlowAgents;
  }
}

export const agent = defineVerb({
  name: 'agent',
  schema: AgentVerb,
  async run(flow, { trx, call, state, log, clock }, body) {
    const handover = await flow.agents().start(trx, call, body.agent_id, clock);
    const now = clock.now().toISOString();
    if (handover.ok) {
      closeEntry(log, now, { agent_id: body.agent_id, conversation_id: handover.conversationId });
      await saveFlow(trx, call, { ...state, op: null, pc: state.pc + 1 }, log);
      return;
    }
    closeEntry(log, now, { reason: handover.unsupported ? 'unsupported' : 'failed', detail: handover.detail });
    if (!handover.unsupported) return flow.advance(trx, call, { ...state, pc: state.pc + 1 }, log, clock);
    await flow.apologise(trx, call, state, log, clock, {
      cause: 'unsupported_verb', url: null, statusCode: null, field: `flow[${state.pc}].agent`, detail: `flow[${state.pc}].agent cannot run on this call: ${handover.detail}.`,
    }, handover.apology);
  },
});

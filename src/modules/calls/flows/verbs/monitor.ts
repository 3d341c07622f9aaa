// `monitor`: this call supervises another call's conversation (a queue's caller and the agent
// that took it): it hears both sides, and is heard by nobody (listen), by the agent only
// (whisper), or by both (barge), until the monitor ends (DELETE
// /v1/calls/{id}/monitors/{monitor_id}, or the conversation ends); then the flow goes on with
// its next verb. POST /v1/calls/{id}/monitor places a supervisor's call whose flow is this
// verb. The monitors module owns the resource (FlowMonitors); the media port mixes the call
// into the conversation's connection (telephony/conference.ts connectionMixId) with a
// `conference` operation, so both ports mix a monitor as they mix a conference.
import { Type } from 'typebox';
import type { Trx } from '../../../../store/transaction.ts';
import type { Clock } from '../../../../platform/clock.ts';
import type { CallRow } from '../../tables.ts';
import { MONITOR_MODES, type MonitorMode } from '../../../../telephony/conference.ts';
import { closeEntry } from '../state.ts';
import { defineVerb, plainResult } from './verb.ts';


export const MonitorVerb = Type.Object({
  call_id: Type.String({ pattern: '^call_[0-9a-z]+$', maxLength: 64, description: 'The call whose conversation to supervise: a queue\'s caller, or the agent that took it.', examples: ['call_01jd8x0v6kf5b9w3t2q1r0p9n8'] }),
  mode: Type.Optional(Type.Enum([...MONITOR_MODES], { default: 'listen', description: 'listen: hear both, heard by nobody; whisper: heard by the agent only; barge: heard by both.' })),
}, { additionalProperties: false, description: 'Supervise a call\'s conversation (listen, whisper to the agent, or barge in); the flow goes on when the monitor ends.' });

/** How the monitor verb seats a supervisor (implemented by the monitors module). */
export interface FlowMonitors {
  /**
   * Seats `call` beside the conversation of `request.callId` (the monitor POST .../monitor made
   * for this call, else a new one): call.monitor.started. Refused with a sentence when that
   * call is not in a conversation now, or one is monitored already.
   */
  join(trx: Trx, call: CallRow, request: { callId: string; mode: MonitorMode }, clock: Clock): Promise<{ monitorId: string } | { refused: string }>;
  /** The mix the supervisor's call is seated on now, if any. */
  seatedOn(trx: Trx, callId: string): Promise<string | null>;
  /** The supervisor's operation ended (the monitor ended, a new flow, or it hung up). */
  left(trx: Trx, call: CallRow, reason: 'hangup' | 'flow_updated' | 'interrupted', clock: Clock): Promise<void>;
}

declare module './verb.ts' {
  interface FlowRuntime {
    monitors(): FlowMonitors;
  }
}

export const monitor = defineVerb({
  name: 'monitor',
  schema: MonitorVerb,
  async run(flow, step, body) {
    const { trx, call, state, log, clock } = step;
    const seat = await flow.monitors().join(trx, call, { callId: body.call_id, mode: body.mode ?? 'listen' }, clock);
    if ('refused' in seat) {
      closeEntry(log, clock.now().toISOString(), { reason: 'refused', detail: seat.refused });
      return flow.advance(trx, call, { ...state, op: null, pc: state.pc + 1 }, log, clock);
    }
    await flow.runMedia(step);
  },
  // Known once the call is seated (prepare).
  op: () => ({ kind: 'conference', conferenceId: '', wait: null }),
  async prepare(flow, { trx, call }, op) {
    const mixId = await flow.monitors().seatedOn(trx, call.id);
    if (mixId === null) throw new Error(`call ${call.id} runs a monitor verb without a seat`);
    return { op: { ...op, conferenceId: mixId } as typeof op };
  },
  logResult: (_body, result) => (result.kind === 'conference' ? { reason: result.reason === 'hangup' ? 'hangup' : 'ended' } : plainResult(result)),
  async finished(flow, { trx, call, state, clock }, _body, result) {
    if (result.kind === 'conference') await flow.monitors().left(trx, call, result.reason === 'hangup' ? 'hangup' : state.replacement ? 'flow_updated' : 'interrupted', clock);
  },
});

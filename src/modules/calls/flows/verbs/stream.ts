// `stream`: the call's audio to the customer's WebSocket server (docs/media-streams.md), as
// POST /v1/calls/{id}/streams starts it. A unidirectional stream forks the audio and the flow
// goes on at once; a bidirectional one holds the call: its log entry stays open until the
// server closes the socket or sends `stop` (or the stream fails), then the flow goes on. A
// stream the call cannot have (another bidirectional one runs) is a failed entry and the flow
// goes on. The streams module does the work (FlowStreams) and releases the hold.
import { Type, type Static } from 'typebox';
import type { Clock } from '../../../../platform/clock.ts';
import type { Trx } from '../../../../store/transaction.ts';
import type { CallRow } from '../../tables.ts';
import { StreamRequestFields } from '../../../streams/schema.ts';
import { asHttpUrl } from '../../../streams/stream-url.ts';
import { closeEntry, flowLogOf, flowStateOf, saveFlow } from '../state.ts';
import { defineVerb, type FlowRuntime } from './verb.ts';

export const StreamVerb = Type.Object(StreamRequestFields, {
  additionalProperties: false,
  description: 'Stream the call\'s audio to a WebSocket server (media streams). Bidirectional: the server may talk back, and the flow waits until it closes the socket or sends stop.',
});

type StreamBody = Static<typeof StreamVerb>;

export type FlowStreamStart = { ok: true; streamId: string } | { ok: false; detail: string };

/** How the stream verb starts streams (implemented by the streams module). */
export interface FlowStreams {
  /** Starts a stream on `call`; `holdOp`: the flow operation a bidirectional stream holds (null: it holds nothing). */
  startForFlow(trx: Trx, call: CallRow, body: StreamBody, clock: Clock, holdOp: string | null): Promise<FlowStreamStart>;
}

declare module './verb.ts' {
  interface FlowRuntime {
    streams(): FlowStreams;
  }
}

/** The stream a flow waits on is over (the streams module calls this on the locked call): the flow goes on. */
export async function releaseHold(flow: FlowRuntime, trx: Trx, call: CallRow, opId: string, result: Record<string, unknown>): Promise<void> {
  const state = flowStateOf(call);
  if (!state || state.op !== opId) return;
  const clock = await flow.platform.sandboxClocks.clockFor(call.account_id, call.mode, trx);
  const log = flowLogOf(call);
  closeEntry(log, clock.now().toISOString(), result);
  const next = { ...state, op: null, pc: state.pc + 1, hops: 0 };
  if (state.replacement) return flow.switchTo(trx, call, next, log, clock, state.replacement);
  await flow.advance(trx, call, next, log, clock);
}

export const stream = defineVerb({
  name: 'stream',
  schema: StreamVerb,
  urls: (body) => [{ path: 'url', url: asHttpUrl(body.url) }, ...(body.status_url ? [{ path: 'status_url', url: body.status_url }] : [])],
  async run(flow, { trx, call, state: before, log, clock }, body, opId) {
    const state = { ...before, seq: before.seq + 1 };
    const holds = body.bidirectional === true;
    const started = await flow.streams().startForFlow(trx, call, body, clock, holds ? opId : null);
    if (started.ok && holds) {
      await saveFlow(trx, call, { ...state, op: opId }, log);
      return;
    }
    closeEntry(log, clock.now().toISOString(), started.ok ? { stream_id: started.streamId } : { stream_id: null, status: 'failed', detail: started.detail });
    await flow.advance(trx, call, { ...state, op: null, pc: state.pc + 1 }, log, clock);
  },
});

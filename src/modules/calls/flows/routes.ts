// GET /v1/calls/{id}/flow: the flow a call runs and the log of every verb it ran (what, when,
// what came of it). The call itself keeps its exact shape; this is where its flow is read.
import { Type, type Static } from 'typebox';
import type { App } from '../../../platform/app-type.ts';
import { IdParams, NullableTimestamp, Timestamp, problemResponses } from '../../../platform/schemas.ts';
import type { CallService } from '../service.ts';
import type { CallRow } from '../tables.ts';
import { FlowSchema, VERB_NAMES } from './schema.ts';
import { VERBS } from './verbs/registry.ts';
import { flowLogOf, flowStateOf } from './state.ts';
import { FLOW_FAILURE_CAUSES } from './flow-webhook.ts';

export const CallFlowSchema = Type.Object({
  object: Type.Literal('call_flow'),
  call_id: Type.String(),
  flow: Type.Union([Type.Ref('Flow'), Type.Null()], { description: 'The flow the call runs now (defaults filled in); null when it has none (yet: an answer_url has not answered).' }),
  position: Type.Union([Type.Integer(), Type.Null()], { description: 'Index of the verb running or next to run; null without a flow.' }),
  log: Type.Array(Type.Object({
    index: Type.Integer({ description: 'Position of the verb in the flow that ran it.' }),
    verb: Type.Enum(VERB_NAMES),
    started_at: Timestamp,
    ended_at: NullableTimestamp,
    result: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], { description: 'say, pause: `{reason: finished | interrupted | hangup}`; gather: `{digits, speech, confidence, reason}`; dial: `{to, outcome, talk_seconds}`; transfer: `{to, outcome}`; record: `{recording_id, reason, duration_seconds}`; agent: `{agent_id, conversation_id}`; redirect: `{url, status_code, ok}`; a verb the carrier cannot run: `{reason: unsupported, detail}`.' }),
  }), { description: 'Every verb run so far, oldest first.' }),
}, { $id: 'CallFlow' });

/** data.object of call.flow.failed. */
export const CallFlowFailureSchema = Type.Object({
  object: Type.Literal('call_flow_failure'),
  call_id: Type.String(),
  cause: Type.Enum(FLOW_FAILURE_CAUSES, { description: 'timeout, unreachable, http_status (non-2xx), invalid_json, invalid_flow, empty_flow, redirect_loop; no_voice_config: an inbound call reached a number with nothing to answer it; unsupported_verb: this call\'s carrier cannot run a verb of the flow yet (field names it).' }),
  detail: Type.String({ description: 'What went wrong, in a sentence.' }),
  url: Type.Union([Type.String(), Type.Null()], { description: 'The flow webhook that failed; null for no_voice_config.' }),
  status_code: Type.Union([Type.Integer(), Type.Null()], { description: 'The HTTP status it answered, if it answered.' }),
  field: Type.Union([Type.String(), Type.Null()], { description: 'invalid_flow: the JSON path of the first error, e.g. `flow[2].gather.num_digits`.' }),
  next: Type.Enum(['fallback', 'apology'], { description: 'fallback: the fallback URL is asked next; apology: the caller hears an apology and the call hangs up.' }),
}, { $id: 'CallFlowFailure' });

export function presentCallFlow(row: CallRow): Static<typeof CallFlowSchema> {
  const state = flowStateOf(row);
  // Before an answer_url has answered there are no verbs yet: no flow to show.
  const flow = state && state.verbs.length > 0 ? state.verbs : null;
  return { object: 'call_flow', call_id: row.id, flow, position: flow ? state!.pc : null, log: flowLogOf(row) } as Static<typeof CallFlowSchema>;
}

export function flowRoutes(app: App, calls: CallService): void {
  app.addSchema(FlowSchema);
  app.addSchema(CallFlowSchema);
  // The objects of verbs' events (call.gather.completed: CallGather, call.dial.completed: CallDial).
  for (const verb of VERBS) if (verb.resultSchema) app.addSchema(verb.resultSchema);
  app.addSchema(CallFlowFailureSchema);
  app.get('/v1/calls/:id/flow', {
    config: { scope: 'calls:read' },
    schema: { operationId: 'getCallFlow', tags: ['Calls'], summary: 'Fetch the flow a call runs and the log of its verbs', params: IdParams,
      response: { 200: Type.Ref('CallFlow'), ...problemResponses('not_found') } },
  }, async (request) => presentCallFlow(await calls.flowOf(request.auth.account.id, request.auth.mode, request.params.id)));
}

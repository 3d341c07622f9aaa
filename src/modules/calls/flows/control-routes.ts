// POST /v1/calls/{id}/flow and /dtmf: live control of a call in progress (control.ts).
import { Type } from 'typebox';
import type { App } from '../../../platform/app-type.ts';
import { IdParams, problemResponses } from '../../../platform/schemas.ts';
import type { FlowControl } from './control.ts';

export const UpdateFlowBody = Type.Object({
  flow: Type.Optional(Type.Array(Type.Any(), {
    description: 'The verbs to run now (the `Flow` schema; docs/voice-flows.md). Validated at once: a 400 `validation_failed` names each bad path. Not with url.',
  })),
  url: Type.Optional(Type.String({
    maxLength: 2048, description: 'Where to fetch the new flow: a signed POST with `reason: "update"`, like every flow webhook. Not with flow.',
    examples: ['https://example.com/voice/queue'],
  })),
}, { additionalProperties: false });

export const DtmfBody = Type.Object({
  digits: Type.String({ minLength: 1, maxLength: 64, pattern: '^[0-9*#A-Dw]+$', description: 'Keys to send in order (0-9, *, #, A-D; `w` waits half a second).', examples: ['1234#'] }),
}, { additionalProperties: false });

/** data.object of call.dtmf.sent. */
export const CallDtmfSchema = Type.Object({
  object: Type.Literal('call_dtmf'),
  call_id: Type.String(),
  digits: Type.String({ description: 'The keys sent, as given.' }),
  at_seconds: Type.Number({ description: 'Talk seconds into the call when they were sent.' }),
}, { $id: 'CallDtmf' });

export function flowControlRoutes(app: App, control: FlowControl): void {
  const tags = ['Calls'];
  app.addSchema(CallDtmfSchema);
  app.post('/v1/calls/:id/flow', {
    config: { scope: 'calls:write' },
    schema: {
      operationId: 'updateCallFlow', tags, params: IdParams, body: UpdateFlowBody,
      summary: 'Replace the flow of a call in progress',
      description: 'The verb running now is interrupted (its log entry says `interrupted`; a gather ends with what it had and fires call.gather.completed) '
        + 'and the new flow runs from its first verb, or the one `url` answers. Answers the call; GET /v1/calls/{id}/flow shows the switch.',
      response: { 200: Type.Ref('Call'), ...problemResponses('not_found', 'call_not_in_progress', 'conflict', 'webhook_url_not_allowed', 'flow_not_supported') },
    },
  }, async (request) => control.update(request.auth, request.params.id, request.body));
  app.post('/v1/calls/:id/dtmf', {
    config: { scope: 'calls:write' },
    schema: {
      operationId: 'sendCallDtmf', tags, params: IdParams, body: DtmfBody,
      summary: 'Send keypresses (DTMF) to the other party of a call in progress',
      description: 'Sent as RFC 4733 telephone events on a live call; in the sandbox the simulated party hears them. call.dtmf.sent records them.',
      response: { 200: Type.Ref('Call'), ...problemResponses('not_found', 'call_not_in_progress') },
    },
  }, async (request) => control.sendDigits(request.auth, request.params.id, request.body.digits));
}

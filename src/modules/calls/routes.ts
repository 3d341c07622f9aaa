import { Type } from 'typebox';
import type { App } from '../../platform/app-type.ts';
import { IdParams, Page, problemResponses } from '../../platform/schemas.ts';
import { toPage } from '../../platform/pagination.ts';
import { CallListQuery, CreateCallBody, TransferBody } from './schema.ts';
import type { CallService } from './service.ts';
import { answerOnce } from '../../platform/answer-once.ts';

export function callRoutes(app: App, calls: CallService): void {
  const tags = ['Calls'];
  const Call = Type.Ref('Call');

  app.post('/v1/calls', {
    config: { scope: 'calls:write', idempotency: 'service-transaction' },
    schema: {
      operationId: 'createCall', tags, summary: 'Place an outbound call', body: CreateCallBody,
      description: 'Answers 200 with the call in status `queued`; its progress arrives as call.* events. '
        + 'In the sandbox the simulated carrier decides the outcome from the `to` number (see docs/sandbox.md).',
      response: {
        200: Call,
        ...problemResponses('from_number_not_owned', 'webhook_url_not_allowed', 'concurrent_call_limit', 'carrier_not_configured', 'idempotency_key_reused', 'idempotency_key_in_progress'),
      },
    },
  }, (request, reply) => answerOnce(request, reply, (call) => call, (beforeCommit) => calls.create(request.auth, request.body, beforeCommit)));

  app.get('/v1/calls', {
    config: { scope: 'calls:read' },
    schema: { operationId: 'listCalls', tags, summary: 'List calls, newest first', querystring: CallListQuery,
      response: { 200: Page(Call, 'Call'), ...problemResponses() } },
  }, async (request) => {
    const q = request.query;
    const { rows, present } = await calls.list(request.auth.account.id, request.auth.mode, {
      limit: q.limit, startingAfter: q.starting_after, status: q.status, from: q.from, to: q.to,
      createdGte: q.created_gte, createdLte: q.created_lte,
    });
    return toPage(rows, q.limit, present);
  });

  app.get('/v1/calls/:id', {
    config: { scope: 'calls:read' },
    schema: { operationId: 'getCall', tags, summary: 'Fetch a call', params: IdParams, response: { 200: Call, ...problemResponses('not_found') } },
  }, async (request) => calls.get(request.auth.account.id, request.auth.mode, request.params.id));

  app.post('/v1/calls/:id/hangup', {
    config: { scope: 'calls:write' },
    schema: { operationId: 'hangupCall', tags, summary: 'Hang up: cancels a queued or ringing call, completes one in progress', params: IdParams,
      response: { 200: Call, ...problemResponses('not_found') } },
  }, async (request) => calls.hangup(request.auth, request.params.id));

  app.post('/v1/calls/:id/transfer', {
    config: { scope: 'calls:write' },
    schema: {
      operationId: 'transferCall', tags, summary: 'Blind-transfer a call in progress to another number', params: IdParams, body: TransferBody,
      description: 'Answers at once with the transfer `pending` in `transfers`; call.transferred or call.transfer_failed follows. A failed transfer leaves the call up.',
      response: { 200: Call, ...problemResponses('not_found', 'call_not_in_progress', 'conflict') },
    },
  }, async (request) => calls.transfer(request.auth, request.params.id, request.body.to, request.body.timeout ?? 30));
}

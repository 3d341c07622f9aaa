import { Type } from 'typebox';
import type { App } from '../../platform/app-type.ts';
import type { ModuleContext } from '../module.ts';
import { IdParams, Page, problemResponses } from '../../platform/schemas.ts';
import { toPage } from '../../platform/pagination.ts';
import { MessageListQuery, SendMessageBody, SendSmsBody } from './schema.ts';
import { normalisePhoneQuery, presentMessage } from './service.ts';
import { answerOnce } from '../../platform/answer-once.ts';

const SEND_PROBLEMS = ['from_number_not_owned', 'number_lacks_capability', 'whatsapp_window_closed', 'carrier_not_configured', 'webhook_url_not_allowed'] as const;

export function messageRoutes(app: App, { services }: ModuleContext): void {
  const messages = services.messages;
  const tags = ['Messages'];

  app.post('/v1/messages', {
    config: { scope: 'messages:write', idempotency: 'service-transaction' },
    schema: { operationId: 'sendMessage', tags, summary: 'Send an SMS, MMS or WhatsApp message', body: SendMessageBody,
      response: { 200: Type.Ref('Message'), ...problemResponses(...SEND_PROBLEMS) } },
  }, (request, reply) => {
    const { account, mode, clock } = request.auth;
    return answerOnce(request, reply, presentMessage, (beforeCommit) => messages.send(account.id, mode, clock, request.body, beforeCommit));
  });

  app.get('/v1/messages', {
    config: { scope: 'messages:read' },
    schema: { operationId: 'listMessages', tags, summary: 'List messages, newest first', querystring: MessageListQuery,
      response: { 200: Page(Type.Ref('Message'), 'Message'), ...problemResponses() } },
  }, async (request) => {
    const { account, mode } = request.auth;
    const q = request.query;
    const rows = await messages.list(account.id, mode, {
      limit: q.limit, startingAfter: q.starting_after, from: normalisePhoneQuery(q.from), to: normalisePhoneQuery(q.to),
      status: q.status, channel: q.channel, direction: q.direction, createdGte: q.created_gte, createdLte: q.created_lte,
    });
    return toPage(rows, q.limit, presentMessage);
  });

  app.get('/v1/messages/:id', {
    config: { scope: 'messages:read' },
    schema: { operationId: 'getMessage', tags, summary: 'Fetch a message', params: IdParams,
      response: { 200: Type.Ref('Message'), ...problemResponses('not_found') } },
  }, async (request) => presentMessage(await messages.get(request.auth.account.id, request.auth.mode, request.params.id)));

  app.post('/v1/messages/:id/cancel', {
    config: { scope: 'messages:write' },
    schema: {
      operationId: 'cancelMessage', tags, summary: 'Cancel a message its carrier has not taken yet', params: IdParams,
      description: 'A `queued` message (also one waiting with a status_reason) becomes `canceled` and message.canceled fires; it is never sent. '
        + 'Once the carrier has taken it (sending and later) the answer is 409 message_not_cancelable naming its status. Canceling a canceled message answers 200 with it.',
      response: { 200: Type.Ref('Message'), ...problemResponses('not_found', 'message_not_cancelable') },
    },
  }, async (request) => {
    const { account, mode, clock } = request.auth;
    return presentMessage(await messages.cancel(account.id, mode, clock, request.params.id));
  });

  app.post('/v1/numbers/:id/sms', {
    config: { scope: 'messages:write', idempotency: 'service-transaction' },
    schema: { operationId: 'sendSmsFromNumber', tags: ['Messages', 'Numbers'], summary: 'Send an SMS from a provisioned number', params: IdParams,
      body: SendSmsBody, response: { 200: Type.Ref('Message'), ...problemResponses('not_found', ...SEND_PROBLEMS) } },
  }, (request, reply) => {
    const { account, mode, clock } = request.auth;
    return answerOnce(request, reply, presentMessage, (beforeCommit) => messages.sendFromNumber(account.id, mode, clock, request.params.id, request.body, beforeCommit));
  });
}

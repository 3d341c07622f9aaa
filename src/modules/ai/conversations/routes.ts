import { Type } from 'typebox';
import type { App } from '../../../platform/app-type.ts';
import { IdParams, Page, problemResponses } from '../../../platform/schemas.ts';
import { toPage } from '../../../platform/pagination.ts';
import { normalisePhoneQuery } from '../../messages/service.ts';
import { ConversationListQuery, InboundCallBody } from './schema.ts';
import { presentConversation, type ConversationService } from './service.ts';

export function conversationRoutes(app: App, conversations: ConversationService): void {
  const tags = ['AI conversations'];
  const Conversation = Type.Ref('Conversation');

  app.get('/v1/ai/conversations', {
    config: { scope: 'ai:read' },
    schema: {
      operationId: 'listConversations', tags, summary: 'List conversations and their transcripts, newest first', querystring: ConversationListQuery,
      description: 'Filters combine (AND). score_gte / score_lte match scored conversations only.',
      response: { 200: Page(Conversation, 'Conversation'), ...problemResponses() },
    },
  }, async (request) => {
    const q = request.query;
    const rows = await conversations.list(request.auth.account.id, request.auth.mode, {
      limit: q.limit, startingAfter: q.starting_after, agentId: q.agent_id, status: q.status, outcome: q.outcome,
      from: normalisePhoneQuery(q.from), scoreGte: q.score_gte, scoreLte: q.score_lte, createdGte: q.created_gte, createdLte: q.created_lte,
    });
    return toPage(rows, q.limit, presentConversation);
  });

  app.get('/v1/ai/conversations/:id', {
    config: { scope: 'ai:read' },
    schema: { operationId: 'getConversation', tags, summary: 'Fetch a conversation with its transcript and score', params: IdParams,
      response: { 200: Conversation, ...problemResponses('not_found') } },
  }, async (request) => conversations.get(request.auth.account.id, request.auth.mode, request.params.id));

  app.post('/v1/sandbox/inbound_calls', {
    config: { scope: 'sandbox:write' },
    schema: {
      operationId: 'simulateInboundCall', tags: ['Sandbox'], body: InboundCallBody,
      summary: 'Place a simulated inbound call to a number, with what the caller will say or press',
      description: 'A number with an AI agent: answers with the conversation (status in_progress). The call rings 1 s, the agent answers and greets, then each caller_script line '
        + 'gets a reply, as durable jobs on the sandbox test clock; after the last line the caller hangs up. ai.conversation.completed, then '
        + 'ai.conversation.scored, follow. Any other number: answers with the call (status ringing, call.inbound then call.ringing); after 1 s its flow '
        + 'answers (voice_url, voice_flow, or a message that the number is not set up) and the caller_script steps run (docs/voice-flows.md).',
      response: { 200: Type.Union([Conversation, Type.Ref('Call')], { description: 'The conversation (AI agent) or the call (flow).' }),
        ...problemResponses('mode_not_supported', 'to_number_not_owned', 'agent_paused', 'concurrent_call_limit') },
    },
  }, async (request) => {
    const { account, mode, clock } = request.auth;
    return conversations.startInbound({ accountId: account.id, mode, clock }, request.body);
  });
}

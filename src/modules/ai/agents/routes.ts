import { Type } from 'typebox';
import type { App } from '../../../platform/app-type.ts';
import { IdParams, Page, problemResponses } from '../../../platform/schemas.ts';
import { toPage } from '../../../platform/pagination.ts';
import { AgentListQuery, CreateAgentBody, UpdateAgentBody } from './schema.ts';
import type { AgentService } from './service.ts';

export function agentRoutes(app: App, agents: AgentService): void {
  const tags = ['AI agents'];
  const Agent = Type.Ref('Agent');
  const owner = (auth: { account: { id: string }; mode: 'sandbox' | 'live'; clock: { now(): Date } }) =>
    ({ accountId: auth.account.id, mode: auth.mode, clock: auth.clock });

  app.post('/v1/ai/agents', {
    config: { scope: 'ai:write' },
    schema: {
      operationId: 'createAgent', tags, summary: 'Create an AI receptionist', body: CreateAgentBody,
      description: 'AI features carry no extra charge on any plan, the trial included. Assign numbers with `number_ids` here or with PATCH /v1/numbers/{id} {agent_id}.',
      response: { 200: Agent, ...problemResponses('webhook_url_not_allowed', 'idempotency_key_reused', 'idempotency_key_in_progress') },
    },
  }, async (request) => agents.create(owner(request.auth), request.body));

  app.get('/v1/ai/agents', {
    config: { scope: 'ai:read' },
    schema: { operationId: 'listAgents', tags, summary: 'List AI agents, newest first', querystring: AgentListQuery,
      response: { 200: Page(Agent, 'Agent'), ...problemResponses() } },
  }, async (request) => {
    const q = request.query;
    const { rows, present } = await agents.list(request.auth.account.id, request.auth.mode, { limit: q.limit, startingAfter: q.starting_after, status: q.status });
    return toPage(rows, q.limit, present);
  });

  app.get('/v1/ai/agents/:id', {
    config: { scope: 'ai:read' },
    schema: { operationId: 'getAgent', tags, summary: 'Fetch an AI agent', params: IdParams, response: { 200: Agent, ...problemResponses('not_found') } },
  }, async (request) => agents.get(request.auth.account.id, request.auth.mode, request.params.id));

  app.patch('/v1/ai/agents/:id', {
    config: { scope: 'ai:write' },
    schema: { operationId: 'updateAgent', tags, summary: 'Update an AI agent: its words, hours, transfer number, numbers, or pause it', params: IdParams,
      body: UpdateAgentBody, response: { 200: Agent, ...problemResponses('not_found', 'webhook_url_not_allowed', 'invalid_state_transition') } },
  }, async (request) => agents.update(owner(request.auth), request.params.id, request.body));

  app.delete('/v1/ai/agents/:id', {
    config: { scope: 'ai:write' },
    schema: { operationId: 'deleteAgent', tags, summary: 'Delete an AI agent: unassigns its numbers and removes its knowledge; its conversations stay',
      params: IdParams, response: { 200: Agent, ...problemResponses('not_found') } },
  }, async (request) => agents.remove(owner(request.auth), request.params.id));
}

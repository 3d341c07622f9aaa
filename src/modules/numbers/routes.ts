import { Type } from 'typebox';
import type { App } from '../../platform/app-type.ts';
import type { ModuleContext } from '../module.ts';
import { IdParams, Page, problemResponses } from '../../platform/schemas.ts';
import { toPage } from '../../platform/pagination.ts';
import { AvailableList, AvailableQuery, NumberListQuery, ProvisionBody, UpdateNumberBody } from './schema.ts';
import { presentNumber } from './service.ts';

export function numberRoutes(app: App, { services }: ModuleContext): void {
  const numbers = services.numbers;
  const tags = ['Numbers'];

  app.get('/v1/numbers/available', {
    config: { scope: 'numbers:read' },
    schema: { operationId: 'searchAvailableNumbers', tags, summary: 'Search numbers that can be provisioned',
      description: 'Sandbox: the simulator\'s deterministic inventory. Live: the numbers an operator imported into this account\'s inventory.',
      querystring: AvailableQuery, response: { 200: AvailableList, ...problemResponses() } },
  }, async (request) => {
    const { account, mode } = request.auth;
    const q = request.query;
    const data = await numbers.searchAvailable(account.id, mode, { country: q.country, areaCode: q.area_code, contains: q.contains, type: q.type }, q.limit);
    return { object: 'list' as const, data };
  });

  app.post('/v1/numbers', {
    config: { scope: 'numbers:write' },
    schema: { operationId: 'provisionNumber', tags, summary: 'Provision a phone number', body: ProvisionBody,
      response: { 200: Type.Ref('Number'), ...problemResponses('number_not_available', 'webhook_url_not_allowed') } },
  }, async (request) => {
    const { account, mode, clock } = request.auth;
    return presentNumber(await numbers.provision(account.id, mode, clock, request.body));
  });

  app.get('/v1/numbers', {
    config: { scope: 'numbers:read' },
    schema: { operationId: 'listNumbers', tags, summary: 'List the account\'s numbers (released ones only with status=released)',
      querystring: NumberListQuery, response: { 200: Page(Type.Ref('Number'), 'Number'), ...problemResponses() } },
  }, async (request) => {
    const { account, mode } = request.auth;
    const q = request.query;
    const rows = await numbers.list(account.id, mode, { limit: q.limit, startingAfter: q.starting_after, status: q.status, phoneNumber: q.phone_number, temporary: q.temporary });
    return toPage(rows, q.limit, presentNumber);
  });

  app.get('/v1/numbers/:id', {
    config: { scope: 'numbers:read' },
    schema: { operationId: 'getNumber', tags, summary: 'Fetch a number', params: IdParams,
      response: { 200: Type.Ref('Number'), ...problemResponses('not_found') } },
  }, async (request) => presentNumber(await numbers.get(request.auth.account.id, request.auth.mode, request.params.id)));

  app.patch('/v1/numbers/:id', {
    config: { scope: 'numbers:write' },
    schema: { operationId: 'updateNumber', tags, summary: 'Rename a number, set its default webhook_url, or how it answers calls (voice_url, voice_flow or an AI agent)', params: IdParams,
      body: UpdateNumberBody, response: { 200: Type.Ref('Number'), ...problemResponses('not_found', 'number_not_active', 'agent_not_found', 'webhook_url_not_allowed') } },
  }, async (request) => {
    const { account, mode, clock } = request.auth;
    return presentNumber(await numbers.update(account.id, mode, clock, request.params.id, request.body));
  });

  app.delete('/v1/numbers/:id', {
    config: { scope: 'numbers:write' },
    schema: { operationId: 'releaseNumber', tags, summary: 'Release a number', params: IdParams,
      response: { 200: Type.Ref('Number'), ...problemResponses('not_found', 'invalid_state_transition') } },
  }, async (request) => {
    const { account, mode, clock } = request.auth;
    return presentNumber(await numbers.release(account.id, mode, clock, request.params.id));
  });
}

import { Type } from 'typebox';
import type { App } from '../../platform/app-type.ts';
import type { ModuleContext } from '../module.ts';
import { IdParams, Page, problemResponses } from '../../platform/schemas.ts';
import { toPage } from '../../platform/pagination.ts';
import { CreatePortBody, PortListQuery, UpdatePortBody } from './schema.ts';

// Static segments (/v1/numbers/ports) win over /v1/numbers/:id in Fastify's router
// whatever the registration order; test/numbers/ports.test.ts checks it.
export function portRoutes(app: App, { services }: ModuleContext): void {
  const ports = services.ports;
  const tags = ['Porting'];

  app.post('/v1/numbers/ports', {
    config: { scope: 'numbers:write' },
    schema: { operationId: 'createPort', tags, summary: 'Port numbers in; each gets a temporary number at once', body: CreatePortBody,
      response: { 200: Type.Ref('Port'), ...problemResponses('number_not_available', 'carrier_not_configured', 'webhook_url_not_allowed') } },
  }, async (request) => {
    const { account, mode, clock } = request.auth;
    return ports.create(account.id, mode, clock, request.body);
  });

  app.get('/v1/numbers/ports', {
    config: { scope: 'numbers:read' },
    schema: { operationId: 'listPorts', tags, summary: 'List port-in orders', querystring: PortListQuery,
      response: { 200: Page(Type.Ref('Port'), 'Port'), ...problemResponses() } },
  }, async (request) => {
    const { account, mode } = request.auth;
    const q = request.query;
    const { rows, present } = await ports.list(account.id, mode, { limit: q.limit, startingAfter: q.starting_after, status: q.status });
    return toPage(rows, q.limit, present);
  });

  app.get('/v1/numbers/ports/:id', {
    config: { scope: 'numbers:read' },
    schema: { operationId: 'getPort', tags, summary: 'Fetch a port-in order', params: IdParams,
      response: { 200: Type.Ref('Port'), ...problemResponses('not_found') } },
  }, async (request) => ports.get(request.auth.account.id, request.auth.mode, request.params.id));

  app.patch('/v1/numbers/ports/:id', {
    config: { scope: 'numbers:write' },
    schema: { operationId: 'updatePort', tags, summary: 'Fix an order in exception and resubmit it', params: IdParams, body: UpdatePortBody,
      response: { 200: Type.Ref('Port'), ...problemResponses('not_found', 'invalid_state_transition') } },
  }, async (request) => {
    const { account, mode, clock } = request.auth;
    return ports.update(account.id, mode, clock, request.params.id, request.body);
  });

  app.post('/v1/numbers/ports/:id/cancel', {
    config: { scope: 'numbers:write' },
    schema: { operationId: 'cancelPort', tags, summary: 'Cancel a port-in order (refused within 48 h of its FOC date)', params: IdParams,
      response: { 200: Type.Ref('Port'), ...problemResponses('not_found', 'invalid_state_transition', 'port_cancel_too_late') } },
  }, async (request) => {
    const { account, mode, clock } = request.auth;
    return ports.cancel(account.id, mode, clock, request.params.id);
  });
}

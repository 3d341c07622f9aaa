import { Type } from 'typebox';
import type { App } from '../../platform/app-type.ts';
import { IdParams, Page, problemResponses } from '../../platform/schemas.ts';
import { toPage } from '../../platform/pagination.ts';
import { envelope } from '../../events/emit.ts';
import { invalidField } from '../../platform/problems.ts';
import { EventQuery } from './schema.ts';
import { isoOrUndefined, type EventService } from './service.ts';

export function eventRoutes(app: App, events: EventService): void {
  const tags = ['Events'];

  app.get('/v1/events', {
    config: { scope: 'events:read' },
    schema: { operationId: 'listEvents', tags, summary: 'List events, newest first', querystring: EventQuery,
      response: { 200: Page(Type.Ref('Event'), 'Event'), ...problemResponses() } },
  }, async (request) => {
    const { account, mode } = request.auth;
    const q = request.query;
    if (q.object_id !== undefined && q.resource_id !== undefined && q.object_id !== q.resource_id) {
      throw invalidField('resource_id', 'names another resource than object_id; give only object_id.', 'not_allowed');
    }
    const rows = await events.list(account.id, mode, {
      type: q.type, resourceId: q.object_id ?? q.resource_id, createdGte: isoOrUndefined(q.created_gte), createdLte: isoOrUndefined(q.created_lte),
    }, { limit: q.limit, startingAfter: q.starting_after });
    return toPage(rows, q.limit, envelope);
  });

  app.get('/v1/events/:id', {
    config: { scope: 'events:read' },
    schema: { operationId: 'getEvent', tags, summary: 'Fetch an event (the envelope its webhooks carry)', params: IdParams,
      response: { 200: Type.Ref('Event'), ...problemResponses('not_found') } },
  }, async (request) => envelope(await events.get(request.auth.account.id, request.auth.mode, request.params.id)));
}

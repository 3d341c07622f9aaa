import { Type } from 'typebox';
import type { App } from '../../platform/app-type.ts';
import { IdParams, Page, PageQuery, problemResponses } from '../../platform/schemas.ts';
import { toPage } from '../../platform/pagination.ts';
import { envelope } from '../../events/emit.ts';
import { isoOrUndefined } from '../events/service.ts';
import type { EventService } from '../events/service.ts';
import {
  BulkReplayBody, BulkReplaySchema, CreateWebhookBody, DeadLetterQuery, DefaultSecretSchema, DeletedWebhookSchema,
  DeliveryQuery, RotateSecretBody, UpdateWebhookBody, WebhookEndpointWithSecretSchema,
} from './schema.ts';
import { presentEndpoint, type WebhookService } from './service.ts';
import type { WebhookDefaultSecretRow } from './tables.ts';

function presentDefault(row: WebhookDefaultSecretRow, secret: string) {
  return {
    object: 'webhook_default_secret' as const,
    mode: row.mode,
    secret,
    previous_secret_expires_at: row.previous_secret_expires_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function webhookRoutes(app: App, webhooks: WebhookService, events: EventService): void {
  // Not "Webhooks": that is the document's own section of the events we send (`webhooks`).
  const tags = ['Webhook endpoints'];
  const deliveries = webhooks.deliveries;
  const caller = (request: { auth: { account: { id: string }; mode: 'sandbox' | 'live'; clock: { now(): Date } } }) =>
    ({ accountId: request.auth.account.id, mode: request.auth.mode, clock: request.auth.clock });
  const DeliveryPage = Page(Type.Ref('WebhookDelivery'), 'WebhookDelivery');

  app.post('/v1/webhooks', {
    config: { scope: 'webhooks:write' },
    schema: { operationId: 'createWebhook', tags, summary: 'Subscribe a URL to events; the signing secret is returned only here', body: CreateWebhookBody,
      response: { 200: WebhookEndpointWithSecretSchema, ...problemResponses('webhook_url_not_allowed') } },
  }, async (request) => {
    const { row, secret } = await webhooks.create(caller(request), request.body);
    return { ...presentEndpoint(row), secret };
  });

  app.get('/v1/webhooks', {
    config: { scope: 'webhooks:read' },
    schema: { operationId: 'listWebhooks', tags, summary: 'List webhook endpoints of this mode', querystring: Type.Object(PageQuery),
      response: { 200: Page(Type.Ref('WebhookEndpoint'), 'WebhookEndpoint'), ...problemResponses() } },
  }, async (request) => {
    const { limit, starting_after } = request.query;
    const rows = await webhooks.list(request.auth.account.id, request.auth.mode, { limit, startingAfter: starting_after });
    return toPage(rows, limit, presentEndpoint);
  });

  app.get('/v1/webhooks/default_secret', {
    config: { scope: 'webhooks:write' },
    schema: { operationId: 'getWebhookDefaultSecret', tags,
      summary: "The secret that signs deliveries to a resource's own webhook_url (calls, messages) in this mode",
      response: { 200: DefaultSecretSchema, ...problemResponses() } },
  }, async (request) => {
    const { row, secret } = await webhooks.defaultSecret(request.auth.account.id, request.auth.mode);
    return presentDefault(row, secret);
  });

  app.post('/v1/webhooks/default_secret/rotate', {
    config: { scope: 'webhooks:write' },
    schema: { operationId: 'rotateWebhookDefaultSecret', tags, summary: 'Rotate the default secret; the old one keeps signing during the grace period',
      body: Type.Optional(RotateSecretBody), response: { 200: DefaultSecretSchema, ...problemResponses() } },
  }, async (request) => {
    const { row, secret } = await webhooks.rotateDefaultSecret(request.auth.account.id, request.auth.mode, request.body?.expires_in_seconds);
    return presentDefault(row, secret);
  });

  app.get('/v1/webhooks/dead_letters', {
    config: { scope: 'webhooks:read' },
    schema: { operationId: 'listWebhookDeadLetters', tags, summary: 'Deliveries that failed every scheduled attempt, newest first', querystring: DeadLetterQuery,
      response: { 200: DeliveryPage, ...problemResponses() } },
  }, async (request) => {
    const q = request.query;
    const rows = await deliveries.list(request.auth.account.id, request.auth.mode, {
      status: 'dead', webhookId: q.webhook_id, eventType: q.event_type,
      createdGte: isoOrUndefined(q.created_gte), createdLte: isoOrUndefined(q.created_lte),
    }, { limit: q.limit, startingAfter: q.starting_after });
    const page = toPage(rows, q.limit, (r) => r);
    return { ...page, data: await deliveries.present(page.data) };
  });

  app.get('/v1/webhooks/dead_letters/:id', {
    config: { scope: 'webhooks:read' },
    schema: { operationId: 'getWebhookDeadLetter', tags, summary: 'Fetch one dead-lettered delivery with its attempts', params: IdParams,
      response: { 200: Type.Ref('WebhookDelivery'), ...problemResponses('not_found') } },
  }, async (request) => {
    const row = await deliveries.getDead(request.auth.account.id, request.auth.mode, request.params.id);
    return (await deliveries.present([row]))[0];
  });

  app.post('/v1/webhooks/dead_letters/:id/replay', {
    config: { scope: 'webhooks:write' },
    schema: { operationId: 'replayWebhookDeadLetter', tags, summary: 'Replay a dead-lettered (or failed) delivery; the event id stays the same', params: IdParams,
      response: { 200: Type.Ref('WebhookDelivery'), ...problemResponses('not_found', 'delivery_not_replayable') } },
  }, async (request) => {
    const row = await deliveries.replay(request.auth.account.id, request.auth.mode, request.params.id);
    return (await deliveries.present([row]))[0];
  });

  app.get('/v1/webhooks/:id', {
    config: { scope: 'webhooks:read' },
    schema: { operationId: 'getWebhook', tags, summary: 'Fetch a webhook endpoint', params: IdParams,
      response: { 200: Type.Ref('WebhookEndpoint'), ...problemResponses('not_found') } },
  }, async (request) => presentEndpoint(await webhooks.get(request.auth.account.id, request.auth.mode, request.params.id)));

  app.patch('/v1/webhooks/:id', {
    config: { scope: 'webhooks:write' },
    schema: { operationId: 'updateWebhook', tags, summary: 'Change the URL, events, description, or enable/disable', params: IdParams, body: UpdateWebhookBody,
      response: { 200: Type.Ref('WebhookEndpoint'), ...problemResponses('not_found', 'webhook_url_not_allowed') } },
  }, async (request) => presentEndpoint(await webhooks.update(caller(request), request.params.id, request.body)));

  app.delete('/v1/webhooks/:id', {
    config: { scope: 'webhooks:write' },
    schema: { operationId: 'deleteWebhook', tags, summary: 'Delete a webhook endpoint (its delivery history stays readable via events)', params: IdParams,
      response: { 200: DeletedWebhookSchema, ...problemResponses('not_found') } },
  }, async (request) => {
    await webhooks.delete(request.auth.account.id, request.auth.mode, request.params.id);
    return { id: request.params.id, object: 'webhook_endpoint' as const, deleted: true as const };
  });

  app.post('/v1/webhooks/:id/rotate_secret', {
    config: { scope: 'webhooks:write' },
    schema: { operationId: 'rotateWebhookSecret', tags, summary: 'A new signing secret; during the grace period deliveries carry both signatures',
      params: IdParams, body: Type.Optional(RotateSecretBody), response: { 200: WebhookEndpointWithSecretSchema, ...problemResponses('not_found') } },
  }, async (request) => {
    const { row, secret } = await webhooks.rotateSecret(caller(request), request.params.id, request.body?.expires_in_seconds);
    return { ...presentEndpoint(row), secret };
  });

  app.post('/v1/webhooks/:id/test', {
    config: { scope: 'webhooks:write' },
    schema: { operationId: 'testWebhook', tags, summary: 'Send a webhook.test event to this endpoint only', params: IdParams,
      response: { 200: Type.Ref('Event'), ...problemResponses('not_found', 'webhook_disabled') } },
  }, async (request) => envelope(await webhooks.sendTest(caller(request), request.params.id)));

  app.post('/v1/webhooks/:id/replay', {
    config: { scope: 'webhooks:write' },
    schema: { operationId: 'replayWebhookDeliveries', tags, summary: "Replay an endpoint's dead and failed deliveries created since a time",
      params: IdParams, body: BulkReplayBody, response: { 200: BulkReplaySchema, ...problemResponses('not_found') } },
  }, async (request) => {
    const { account, mode } = request.auth;
    await webhooks.get(account.id, mode, request.params.id);
    const result = await deliveries.replayMany(account.id, mode, request.params.id,
      new Date(request.body.since).toISOString(), isoOrUndefined(request.body.until));
    return { object: 'webhook_replay' as const, replayed: result.replayed, has_more: result.hasMore };
  });

  app.get('/v1/webhooks/:id/deliveries', {
    config: { scope: 'webhooks:read' },
    schema: { operationId: 'listWebhookDeliveries', tags, summary: "An endpoint's deliveries with every attempt, newest first", params: IdParams, querystring: DeliveryQuery,
      response: { 200: DeliveryPage, ...problemResponses('not_found') } },
  }, async (request) => {
    const { account, mode } = request.auth;
    const q = request.query;
    await webhooks.get(account.id, mode, request.params.id);
    const rows = await deliveries.list(account.id, mode, { webhookId: request.params.id, status: q.status, eventType: q.event_type },
      { limit: q.limit, startingAfter: q.starting_after });
    const page = toPage(rows, q.limit, (r) => r);
    return { ...page, data: await deliveries.present(page.data) };
  });

  app.get('/v1/events/:id/deliveries', {
    config: { scope: 'events:read' },
    schema: { operationId: 'listEventDeliveries', tags: ['Events'], summary: "An event's deliveries (one per endpoint) with every attempt", params: IdParams,
      querystring: Type.Object(PageQuery), response: { 200: DeliveryPage, ...problemResponses('not_found') } },
  }, async (request) => {
    const { account, mode } = request.auth;
    const { limit, starting_after } = request.query;
    await events.get(account.id, mode, request.params.id);
    const rows = await deliveries.list(account.id, mode, { eventId: request.params.id }, { limit, startingAfter: starting_after });
    const page = toPage(rows, limit, (r) => r);
    return { ...page, data: await deliveries.present(page.data) };
  });
}

import { Type } from 'typebox';
import type { App } from '../../platform/app-type.ts';
import type { ModuleContext } from '../module.ts';
import { IdParams, Page, PageQuery, problemResponses } from '../../platform/schemas.ts';
import { toPage } from '../../platform/pagination.ts';
import { ApiKeySchema, ApiKeyWithSecretSchema, CreateKeyBody, RotateKeyBody, RotatedKeySchema, UpdateKeyBody } from './schema.ts';
import { present } from './service.ts';

export function keyRoutes(app: App, { services, platform }: ModuleContext): void {
  const keys = services.keys;
  const now = () => platform.clock.now();
  const tags = ['API keys'];

  app.post('/v1/keys', {
    config: { scope: 'keys:write' },
    schema: { operationId: 'createKey', tags, summary: 'Create an API key in the mode of the calling key', body: CreateKeyBody,
      response: { 200: ApiKeyWithSecretSchema, ...problemResponses('scope_not_held') } },
  }, async (request) => {
    const { account, mode } = request.auth;
    const { row, secret } = await keys.create(platform.database.db, {
      accountId: account.id, mode, name: request.body.name, scopes: request.body.scopes, allowedIps: request.body.allowed_ips,
      callerScopes: request.auth.scopes,
    });
    return { ...present(row, now()), secret };
  });

  app.get('/v1/keys', {
    config: { scope: 'keys:read' },
    schema: { operationId: 'listKeys', tags, summary: 'List API keys', querystring: Type.Object(PageQuery),
      response: { 200: Page(Type.Ref('ApiKey'), 'ApiKey'), ...problemResponses() } },
  }, async (request) => {
    const { account, mode } = request.auth;
    const { limit, starting_after } = request.query;
    const rows = await keys.list(account.id, mode, { limit, startingAfter: starting_after });
    return toPage(rows, limit, (r) => present(r, now()));
  });

  app.get('/v1/keys/:id', {
    config: { scope: 'keys:read' },
    schema: { operationId: 'getKey', tags, summary: 'Fetch an API key', params: IdParams,
      response: { 200: ApiKeySchema, ...problemResponses('not_found') } },
  }, async (request) => present(await keys.get(request.auth.account.id, request.auth.mode, request.params.id), now()));

  app.patch('/v1/keys/:id', {
    config: { scope: 'keys:write' },
    schema: { operationId: 'updateKey', tags, summary: 'Rename a key, change its scopes or its IP allow-list', params: IdParams, body: UpdateKeyBody,
      response: { 200: ApiKeySchema, ...problemResponses('not_found', 'scope_not_held') } },
  }, async (request) => {
    const { name, scopes, allowed_ips } = request.body;
    const row = await keys.update(request.auth.account.id, request.auth.mode, request.params.id, { name, scopes, allowedIps: allowed_ips }, request.auth.scopes);
    return present(row, now());
  });

  app.post('/v1/keys/:id/rotate', {
    config: { scope: 'keys:write' },
    schema: { operationId: 'rotateKey', tags, summary: 'Rotate a key: a new secret now, the old one expires after a grace period',
      params: IdParams, body: RotateKeyBody,
      response: { 200: RotatedKeySchema, ...problemResponses('not_found', 'key_already_revoked', 'scope_not_held') } },
  }, async (request) => {
    const { row, secret, previous } = await keys.rotate(request.auth.account.id, request.auth.mode, request.params.id, request.body.expires_in_seconds, request.auth.scopes);
    return { key: { ...present(row, now()), secret }, previous_key: present(previous, now()) };
  });

  app.post('/v1/keys/:id/revoke', {
    config: { scope: 'keys:write' },
    schema: { operationId: 'revokeKey', tags, summary: 'Revoke a key at once', params: IdParams,
      response: { 200: ApiKeySchema, ...problemResponses('not_found', 'cannot_revoke_current_key', 'scope_not_held') } },
  }, async (request) => present(await keys.revoke(request.auth.account.id, request.auth.mode, request.params.id, request.auth.keyId, request.auth.scopes), now()));
}

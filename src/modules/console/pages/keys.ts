// API keys: the list, and creating, rotating (the old key keeps working for a grace period) and
// revoking keys, within the rights of the session's own key (the keys service enforces it).
// A new secret is shown once on the page that answers the POST. Revoking a key ends the console
// sessions opened with it; the session's own key cannot be revoked from itself (the service
// refuses, as the API does, so nobody locks themselves out by accident).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../services.ts';
import type { Platform } from '../../../platform/context.ts';
import { ALL_SCOPES } from '../../../platform/scopes.ts';
import { present } from '../../keys/service.ts';
import { html, type Html } from '../html.ts';
import { csrfField } from '../csrf.ts';
import { sendHtml, signedInPage } from '../layout.ts';
import { may, requireScope } from '../access.ts';
import type { ConsoleSessions } from '../sessions.ts';
import type { ConsoleSession } from '../sessions.ts';
import { field } from '../form-body.ts';
import { PAGE_SIZE, pageOf, table, time } from '../views.ts';
import { secretOnce } from './secret-once.ts';

function createForm(session: ConsoleSession): Html {
  const grantable = ALL_SCOPES.filter((s) => s === '*' ? session.scopes.includes('*') : may(session, s));
  return html`<h2>Create a key</h2><form method="post" action="/console/keys" class="card">${csrfField(session.csrfToken)}
<label>Name <input name="name" required maxlength="100"></label>
<fieldset><legend>Scopes</legend>${grantable.map((s) => html`<label><input type="checkbox" name="scope:${s}" value="1"> ${s}</label> `)}</fieldset>
<button type="submit">Create key</button></form>`;
}

function rowActions(session: ConsoleSession, id: string, status: string): Html {
  if (!may(session, 'keys:write') || status !== 'active') return html``;
  if (id === session.keyId) return html`<span class="muted">this session's key</span>`;
  return html`<form class="inline" method="post" action="/console/keys/${id}/rotate" data-confirm="The old key keeps working for 24 hours. Rotate?">${csrfField(session.csrfToken)}<button type="submit">Rotate</button></form>
<form class="inline" method="post" action="/console/keys/${id}/revoke" data-confirm="Revoke this key now? Everything using it stops working.">${csrfField(session.csrfToken)}<button class="danger" type="submit">Revoke</button></form>`;
}

export function keyRoutes(scope: FastifyInstance, services: Services, sessions: ConsoleSessions, platform: Platform): void {
  async function keysPage(request: FastifyRequest, reply: FastifyReply, extra: { secret?: Html; notice?: string } = {}) {
    const session = request.consoleSession;
    requireScope(session, 'keys:read');
    const now = platform.clock.now();
    const { rows } = pageOf(await services.keys.list(session.account.id, session.mode, { limit: PAGE_SIZE }));
    const body = html`${extra.secret ?? ''}${table(['Name', 'Key', 'Scopes', 'Status', 'Expires', 'Created', ''], rows.map((r) => present(r, now)).map((k) => html`<tr data-testid="key-row" data-key-id="${k.id}"><td>${k.name}</td><td>${k.redacted}</td><td>${k.scopes.join(' ')}</td><td>${k.status}</td><td>${time(k.expires_at)}</td><td>${time(k.created_at)}</td><td>${rowActions(session, k.id, k.status)}</td></tr>`), 'No keys.')}
${may(session, 'keys:write') ? createForm(session) : ''}`;
    return sendHtml(reply, signedInPage(session, { title: 'API keys', body, current: '/console/keys', notice: extra.notice }));
  }

  scope.get('/keys', (request, reply) => keysPage(request, reply));

  scope.post('/keys', async (request, reply) => {
    const session = request.consoleSession;
    requireScope(session, 'keys:write');
    const scopes = Object.keys((request.body ?? {}) as object).filter((k) => k.startsWith('scope:')).map((k) => k.slice('scope:'.length));
    const { secret } = await services.keys.create(platform.database.db, {
      accountId: session.account.id, mode: session.mode, name: field(request.body, 'name'), scopes, callerScopes: session.scopes,
    });
    return keysPage(request, reply, { secret: secretOnce('The new API key.', secret) });
  });

  scope.post('/keys/:id/rotate', async (request, reply) => {
    const session = request.consoleSession;
    requireScope(session, 'keys:write');
    const { secret } = await services.keys.rotate(session.account.id, session.mode, (request.params as { id: string }).id, undefined, session.scopes);
    return keysPage(request, reply, { secret: secretOnce('The replacement key (the old one works for 24 more hours).', secret) });
  });

  scope.post('/keys/:id/revoke', async (request, reply) => {
    const session = request.consoleSession;
    requireScope(session, 'keys:write');
    const row = await services.keys.revoke(session.account.id, session.mode, (request.params as { id: string }).id, session.keyId, session.scopes);
    await sessions.endSessionsOfKey(row.id);
    return keysPage(request, reply, { notice: `Key ${row.name} was revoked; its console sessions are signed out.` });
  });
}

import { Type } from 'typebox';
import type { App } from '../../platform/app-type.ts';
import type { ModuleContext } from '../module.ts';
import { problemResponses } from '../../platform/schemas.ts';
import { InboundMessageBody } from '../messages/schema.ts';
import { presentMessage } from '../messages/service.ts';
import { AdvanceClockBody } from './schema.ts';
import { assertSandbox } from './service.ts';

export function sandboxRoutes(app: App, { services }: ModuleContext): void {
  const sandbox = services.sandbox;
  const tags = ['Sandbox'];

  app.get('/v1/sandbox/clock', {
    config: { scope: 'sandbox:read' },
    schema: { operationId: 'getSandboxClock', tags, summary: 'The sandbox test clock of the account',
      response: { 200: Type.Ref('SandboxClock'), ...problemResponses('mode_not_supported') } },
  }, async (request) => sandbox.clock(request.auth.account.id, request.auth.mode));

  // The advance runs every job that falls due, for as long as that takes: not inside one
  // request-wide transaction (on SQLite it would hold the only connection, and every other
  // tenant's writes, that long). It keeps its Idempotency-Key itself (idempotency: 'handler').
  app.post('/v1/sandbox/clock/advance', {
    config: { scope: 'sandbox:write', idempotency: 'handler' },
    schema: { operationId: 'advanceSandboxClock', tags, body: AdvanceClockBody,
      summary: 'Move sandbox time forward and run every job that falls due, in order, before answering',
      response: { 200: Type.Ref('SandboxClock'), ...problemResponses('mode_not_supported') } },
  }, async (request) => sandbox.advance(request.auth.account.id, request.auth.mode, request.body, request.idempotencyKey ?? undefined));

  app.post('/v1/sandbox/inbound_messages', {
    config: { scope: 'sandbox:write', idempotency: 'handler' },
    schema: { operationId: 'simulateInboundMessage', tags, body: InboundMessageBody,
      summary: 'Deliver an inbound message to a number of the account (fires message.received, opens the WhatsApp window)',
      response: { 200: Type.Ref('Message'), ...problemResponses('mode_not_supported', 'to_number_not_owned', 'number_lacks_capability') } },
  }, async (request) => {
    const { account, mode, clock } = request.auth;
    assertSandbox(mode, 'Simulated inbound messages');
    return presentMessage(await services.messages.receive(account.id, mode, clock, request.body));
  });
}

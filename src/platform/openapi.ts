// The OpenAPI 3.1 document: @fastify/swagger builds paths from the routes' TypeBox schemas;
// we add the problem catalogue and a `webhooks` entry per event of the catalogue.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { EVENT_TYPES } from '../events/catalogue.ts';
import { PROBLEMS } from './problem-catalogue.ts';
import { normalizeDocument } from './openapi-normalize.ts';
import { FIELD_ERROR_CODES } from './field-errors.ts';

export const OPENAPI_INFO = {
  title: 'Switchboard API',
  version: '1.0.0',
  license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
  description:
    'Voice calls, messaging (SMS, MMS, WhatsApp), recordings, phone numbers and porting, and an AI receptionist, ' +
    'with every state change delivered as a signed webhook (Standard Webhooks). Authenticate with ' +
    '`Authorization: Bearer sb_test_...` (sandbox) or `sb_live_...` (live). Errors are RFC 9457 problems.',
};

/** Which component schema is `data.object` of an event, by event type prefix (longest first). */
const EVENT_OBJECTS: Array<[string, string]> = [
  ['call.recording.', 'Recording'],
  ['call.gather.', 'CallGather'],
  ['call.stream.', 'Stream'],
  ['call.flow.failed', 'CallFlowFailure'],
  ['call.dtmf.', 'CallDtmf'],
  ['call.dial.', 'CallDial'],
  ['call.queue.', 'CallQueue'],
  ['call.monitor.', 'CallMonitor'],
  ['call.', 'Call'],
  ['conference.participant.', 'ConferenceParticipant'],
  ['conference.', 'Conference'],
  ['worker.', 'Worker'],
  ['message.', 'Message'],
  ['number.port.', 'Port'],
  ['number.ported', 'Number'],
  ['number.', 'Number'],
  ['ai.agent.', 'Agent'],
  ['ai.knowledge.', 'KnowledgeDocument'],
  ['ai.conversation.', 'Conversation'],
  ['webhook.test', 'WebhookTest'],
];

export function eventObjectSchemaId(type: string): string | undefined {
  return EVENT_OBJECTS.find(([prefix]) => type.startsWith(prefix))?.[1];
}

export function eventEnvelopeSchema(type: string, objectSchema: object) {
  return Type.Object({
    id: Type.String({ description: 'Stable event id (evt_...): de-duplicate on it, deliveries are at least once.' }),
    type: Type.Literal(type),
    created_at: Type.String({ format: 'date-time' }),
    mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')]),
    sequence: Type.Integer({ description: 'Per-resource order of events: 1, 2, 3, ...' }),
    data: Type.Object({ object: objectSchema as any }),
  });
}

export function buildOpenApiDocument(app: FastifyInstance): Record<string, any> {
  const doc = structuredClone((app as any).swagger()) as Record<string, any>;
  const components = (doc.components ??= {});
  const schemas = (components.schemas ??= {});
  const webhooks: Record<string, unknown> = {};
  for (const [type, description] of Object.entries(EVENT_TYPES)) {
    const id = eventObjectSchemaId(type);
    const object = id && schemas[id] ? { $ref: `#/components/schemas/${id}` } : { type: 'object' };
    const name = `${type.split('.').map((part) => part.replace(/(^|_)([a-z0-9])/g, (_m, _s, c: string) => c.toUpperCase())).join('')}Event`;
    schemas[name] = eventEnvelopeSchema(type, object);
    webhooks[type] = {
      post: {
        summary: type,
        description: `${description} Signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature).`,
        operationId: `webhook_${type.replace(/\./g, '_')}`,
        security: [],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } } },
        responses: { '2XX': { description: 'Any 2xx acknowledges the delivery; anything else is retried.' } },
      },
    };
  }
  doc.webhooks = webhooks;
  doc['x-problem-codes'] = Object.fromEntries(Object.entries(PROBLEMS).map(([code, p]) => [code, { status: p.status, title: p.title }]));
  return normalizeDocument(doc, FIELD_ERROR_CODES);
}

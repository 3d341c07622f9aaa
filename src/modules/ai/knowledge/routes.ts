import { Type } from 'typebox';
import type { App } from '../../../platform/app-type.ts';
import { IdParams, Page, problemResponses } from '../../../platform/schemas.ts';
import { toPage } from '../../../platform/pagination.ts';
import { KNOWLEDGE_BODY_LIMIT, KnowledgeListQuery, KnowledgeParams, MAX_DOCUMENTS_PER_REQUEST, MAX_DOCUMENT_BYTES, PushKnowledgeBody, PushKnowledgeResult } from './schema.ts';
import { presentDocument, type KnowledgeService } from './service.ts';

export function knowledgeRoutes(app: App, knowledge: KnowledgeService): void {
  const tags = ['AI agents'];
  const Doc = Type.Ref('KnowledgeDocument');

  app.post('/v1/ai/agents/:id/knowledge', {
    bodyLimit: KNOWLEDGE_BODY_LIMIT,
    config: { scope: 'ai:write' },
    schema: {
      operationId: 'pushKnowledge', tags, summary: 'Push training documents to an AI agent', params: IdParams, body: PushKnowledgeBody,
      description: `Up to ${MAX_DOCUMENTS_PER_REQUEST} documents (text/plain, text/markdown, text/html), each up to ${MAX_DOCUMENT_BYTES / 1024} KB, `
        + `${KNOWLEDGE_BODY_LIMIT / 1024 / 1024} MB per request. Each is split into passages on headings and sentences and indexed before the answer, `
        + 'which lists the new doc_ ids with status `ready` and their chunk counts (ai.knowledge.ready fires for each). '
        + 'A bad or oversized document rejects the whole push with 422 document_rejected naming it; nothing is stored.',
      response: { 200: PushKnowledgeResult, ...problemResponses('not_found', 'document_rejected', 'payload_too_large', 'idempotency_key_reused', 'idempotency_key_in_progress') },
    },
  }, async (request) => {
    const { account, mode, clock } = request.auth;
    const data = await knowledge.push({ accountId: account.id, mode, clock }, request.params.id, request.body.documents);
    return { object: 'list' as const, data, has_more: false, next_cursor: null };
  });

  app.get('/v1/ai/agents/:id/knowledge', {
    config: { scope: 'ai:read' },
    schema: { operationId: 'listKnowledge', tags, summary: 'List an agent\'s knowledge documents, newest first', params: IdParams, querystring: KnowledgeListQuery,
      response: { 200: Page(Doc, 'KnowledgeDocument'), ...problemResponses('not_found') } },
  }, async (request) => {
    const q = request.query;
    const rows = await knowledge.list(request.auth.account.id, request.auth.mode, request.params.id, { limit: q.limit, startingAfter: q.starting_after });
    return toPage(rows, q.limit, presentDocument);
  });

  app.get('/v1/ai/agents/:id/knowledge/:doc_id', {
    config: { scope: 'ai:read' },
    schema: { operationId: 'getKnowledgeDocument', tags, summary: 'Fetch a knowledge document', params: KnowledgeParams,
      response: { 200: Doc, ...problemResponses('not_found') } },
  }, async (request) => knowledge.get(request.auth.account.id, request.auth.mode, request.params.id, request.params.doc_id));

  app.delete('/v1/ai/agents/:id/knowledge/:doc_id', {
    config: { scope: 'ai:write' },
    schema: { operationId: 'deleteKnowledgeDocument', tags, summary: 'Delete a knowledge document and its passages', params: KnowledgeParams,
      response: { 200: Doc, ...problemResponses('not_found') } },
  }, async (request) => {
    const { account, mode, clock } = request.auth;
    return knowledge.remove({ accountId: account.id, mode, clock }, request.params.id, request.params.doc_id);
  });
}

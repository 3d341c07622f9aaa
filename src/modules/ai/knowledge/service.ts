// Knowledge documents: pushed to an agent, checked, split into chunks (on headings and
// sentences) and stored, all in the push request's transaction; the agent's
// knowledge_version moves with every change so retrieval indexes rebuild (index-cache.ts).
// A bad document rejects the whole push: nothing is stored.
import { fetchPage, type PageInput } from '../../../platform/pagination.ts';
import type { Kysely } from 'kysely';
import type { Tables } from '../../../store/tables.ts';
import type { Mode } from '../../../store/platform-tables.ts';
import type { Platform } from '../../../platform/context.ts';
import type { EventEmitter } from '../../../events/emit.ts';
import type { EventType } from '../../../events/catalogue.ts';
import type { Clock } from '../../../platform/clock.ts';
import { inTransaction, type Trx } from '../../../store/transaction.ts';
import { newId } from '../../../platform/ids.ts';
import { Problem, notFound, type FieldError } from '../../../platform/problems.ts';
import type { FieldErrorCode } from '../../../platform/field-errors.ts';
import { chunkDocument, type ContentType, type KnowledgeChunk } from '../engine/index.ts';
import type { AgentService, Owner } from '../agents/service.ts';
import type { AgentRow, KnowledgeDocumentRow } from '../tables.ts';
import { CONTENT_TYPES, MAX_DOCUMENT_BYTES } from './schema.ts';

export interface DocumentInput {
  title: string;
  content: string;
  content_type: string;
  source_url?: string | undefined;
}

export interface KnowledgeDocument {
  id: string;
  object: 'ai_knowledge_document';
  mode: Mode;
  agent_id: string;
  title: string;
  content_type: ContentType;
  source_url: string | null;
  size_bytes: number;
  status: KnowledgeDocumentRow['status'];
  chunk_count: number;
  error: string | null;
  created_at: string;
  updated_at: string;
}

export function presentDocument(row: KnowledgeDocumentRow): KnowledgeDocument {
  return {
    id: row.id,
    object: 'ai_knowledge_document',
    mode: row.mode,
    agent_id: row.agent_id,
    title: row.title,
    content_type: row.content_type as ContentType,
    source_url: row.source_url,
    size_bytes: Number(row.size_bytes),
    status: row.status,
    chunk_count: Number(row.chunk_count),
    error: row.error,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

interface Prepared {
  id: string;
  input: DocumentInput;
  sizeBytes: number;
  chunks: KnowledgeChunk[];
}

export class KnowledgeService {
  constructor(private readonly platform: Platform, private readonly events: EventEmitter, private readonly agents: AgentService) {}

  private get db() {
    return this.platform.database.db;
  }

  /** POST /v1/ai/agents/{id}/knowledge. */
  async push(owner: Owner, agentId: string, documents: DocumentInput[]): Promise<KnowledgeDocument[]> {
    await this.agents.load(this.db, owner.accountId, owner.mode, agentId);
    const prepared = prepare(documents);
    return inTransaction(this.db, async (trx) => {
      const agent = await this.agents.load(trx, owner.accountId, owner.mode, agentId, { lock: true });
      const now = owner.clock.now().toISOString();
      const out: KnowledgeDocument[] = [];
      for (const doc of prepared) {
        const row: KnowledgeDocumentRow = {
          id: doc.id,
          account_id: owner.accountId,
          mode: owner.mode,
          agent_id: agent.id,
          title: doc.input.title,
          content_type: doc.input.content_type,
          source_url: doc.input.source_url ?? null,
          size_bytes: doc.sizeBytes,
          status: 'ready',
          chunk_count: doc.chunks.length,
          error: null,
          created_at: now,
          updated_at: now,
        };
        await trx.insertInto('ai_knowledge_documents').values(row).execute();
        // Batches keep each INSERT well under both engines' bound-parameter limits.
        for (let i = 0; i < doc.chunks.length; i += 100) {
          await trx.insertInto('ai_knowledge_chunks').values(doc.chunks.slice(i, i + 100).map((c, j) => ({
            id: c.id, document_id: doc.id, agent_id: agent.id, position: i + j, title: c.title, heading: c.heading, text: c.text,
          }))).execute();
        }
        await this.emit(trx, agent, row, 'ai.knowledge.ready', owner.clock);
        out.push(presentDocument(row));
      }
      await this.bumpVersion(trx, agent.id);
      return out;
    });
  }

  async list(accountId: string, mode: Mode, agentId: string, q: PageInput): Promise<KnowledgeDocumentRow[]> {
    await this.agents.load(this.db, accountId, mode, agentId);
    let query = this.db.selectFrom('ai_knowledge_documents').selectAll().where('agent_id', '=', agentId);
    return fetchPage(query, q);
  }

  async get(accountId: string, mode: Mode, agentId: string, docId: string): Promise<KnowledgeDocument> {
    await this.agents.load(this.db, accountId, mode, agentId);
    return presentDocument(await this.loadDocument(this.db, agentId, docId));
  }

  /** DELETE: the document and its chunks go; answers stop citing it at the next turn. */
  async remove(owner: Owner, agentId: string, docId: string): Promise<KnowledgeDocument> {
    return inTransaction(this.db, async (trx) => {
      const agent = await this.agents.load(trx, owner.accountId, owner.mode, agentId, { lock: true });
      const row = await this.loadDocument(trx, agent.id, docId);
      await trx.deleteFrom('ai_knowledge_chunks').where('document_id', '=', row.id).execute();
      await trx.deleteFrom('ai_knowledge_documents').where('id', '=', row.id).execute();
      await this.bumpVersion(trx, agent.id);
      return { ...presentDocument(row), chunk_count: 0 };
    });
  }

  private async loadDocument(db: Kysely<Tables>, agentId: string, docId: string): Promise<KnowledgeDocumentRow> {
    const row = await db.selectFrom('ai_knowledge_documents').selectAll().where('id', '=', docId).where('agent_id', '=', agentId).executeTakeFirst();
    if (!row) throw notFound('knowledge document', docId);
    return row;
  }

  private async bumpVersion(trx: Trx, agentId: string): Promise<void> {
    await trx.updateTable('ai_agents').set((eb) => ({ knowledge_version: eb('knowledge_version', '+', 1) })).where('id', '=', agentId).execute();
  }

  private emit(trx: Trx, agent: AgentRow, row: KnowledgeDocumentRow, type: EventType, clock: Clock) {
    return this.events.emit(trx, {
      accountId: row.account_id, mode: row.mode, type, resourceType: 'ai_knowledge_document', resourceId: row.id,
      object: presentDocument(row), webhookUrl: agent.webhook_url, clock,
    });
  }
}

/** Checks and chunks every document before anything is written; any bad one rejects the push. */
function prepare(documents: DocumentInput[]): Prepared[] {
  const errors: FieldError[] = [];
  const prepared: Prepared[] = [];
  documents.forEach((input, i) => {
    const reject = (field: string, message: string, code: FieldErrorCode) => errors.push({ field: `documents[${i}].${field}`, message, code });
    const sizeBytes = Buffer.byteLength(input.content, 'utf8');
    if (!(CONTENT_TYPES as readonly string[]).includes(input.content_type)) {
      return reject('content_type', `"${input.content_type}" is not supported; use ${CONTENT_TYPES.join(', ')}.`, 'invalid_value');
    }
    if (sizeBytes > MAX_DOCUMENT_BYTES) {
      return reject('content', `is ${sizeBytes} bytes; a document may be at most ${MAX_DOCUMENT_BYTES} bytes (${MAX_DOCUMENT_BYTES / 1024} KB). Split it into several documents.`, 'too_long');
    }
    if (input.source_url !== undefined && !isHttpUrl(input.source_url)) {
      return reject('source_url', 'must be an http or https URL.', 'invalid_format');
    }
    const id = newId('document');
    const chunks = input.content.trim() === '' ? [] : chunkDocument({ documentId: id, title: input.title, content: input.content, contentType: input.content_type as ContentType });
    if (chunks.length === 0) return reject('content', 'has no text to learn from.', 'too_short');
    prepared.push({ id, input, sizeBytes, chunks });
  });
  if (errors.length > 0) {
    const first = errors[0]!;
    const index = Number(/^documents\[(\d+)\]/.exec(first.field)![1]);
    const names = [...new Set(errors.map((e) => Number(/^documents\[(\d+)\]/.exec(e.field)![1])))]
      .map((i) => `documents[${i}] "${documents[i]!.title}"`);
    throw new Problem('document_rejected', `${names.join(', ')} rejected: ${errors.map((e) => `${e.field} ${e.message}`).join(' ')} Nothing was stored.`, {
      errors, extensions: { document_index: index, document_title: documents[index]!.title },
    });
  }
  return prepared;
}

function isHttpUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

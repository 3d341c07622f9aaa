// The per-agent retrieval index, rebuilt from the stored chunks and kept in memory. An
// entry is valid for one `knowledge_version` of its agent (bumped in the transaction of
// every knowledge change), so a change made by this node or any other, before or after a
// restart, is seen at the next conversation turn.
import type { Kysely } from 'kysely';
import type { Tables } from '../../../store/tables.ts';
import { KnowledgeIndex, type KnowledgeChunk } from '../engine/index.ts';

const MAX_AGENTS = 200;

export class KnowledgeIndexCache {
  private readonly entries = new Map<string, { version: number; index: KnowledgeIndex }>();

  constructor(private readonly db: Kysely<Tables>) {}

  async get(agentId: string, version: number): Promise<KnowledgeIndex> {
    const cached = this.entries.get(agentId);
    if (cached && cached.version === version) {
      // Map order is recency order: re-insert on use.
      this.entries.delete(agentId);
      this.entries.set(agentId, cached);
      return cached.index;
    }
    const index = await this.build(agentId);
    this.entries.delete(agentId);
    this.entries.set(agentId, { version, index });
    while (this.entries.size > MAX_AGENTS) this.entries.delete(this.entries.keys().next().value!);
    return index;
  }

  private async build(agentId: string): Promise<KnowledgeIndex> {
    const rows = await this.db.selectFrom('ai_knowledge_chunks').selectAll()
      .where('agent_id', '=', agentId).orderBy('document_id').orderBy('position').execute();
    const chunks: KnowledgeChunk[] = rows.map((r) => ({ id: r.id, documentId: r.document_id, title: r.title, heading: r.heading, text: r.text }));
    const index = new KnowledgeIndex();
    index.add(chunks);
    return index;
  }
}

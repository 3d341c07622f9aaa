// The knowledge contract: documents pushed to an agent, split into chunks and indexed.
import { Type } from 'typebox';
import { PageQuery, Timestamp } from '../../../platform/schemas.ts';

export const CONTENT_TYPES = ['text/plain', 'text/markdown', 'text/html'] as const;
/** Per document, UTF-8 bytes of `content`. */
export const MAX_DOCUMENT_BYTES = 200 * 1024;
export const MAX_DOCUMENTS_PER_REQUEST = 20;
/** Route body limit: room for several large documents, far below what would stall the server while chunking. */
export const KNOWLEDGE_BODY_LIMIT = 2 * 1024 * 1024;

export const KnowledgeDocumentSchema = Type.Object(
  {
    id: Type.String({ description: '`doc_` followed by an opaque suffix; answers cite these ids.', examples: ['doc_01jd8x0v6kf5b9w3t2q1r0p9n8'] }),
    object: Type.Literal('ai_knowledge_document'),
    mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')]),
    agent_id: Type.String(),
    title: Type.String(),
    content_type: Type.Enum(CONTENT_TYPES),
    source_url: Type.Union([Type.String(), Type.Null()]),
    size_bytes: Type.Integer({ description: 'UTF-8 bytes of the content pushed.' }),
    status: Type.Union([Type.Literal('processing'), Type.Literal('ready'), Type.Literal('failed')], {
      description: 'Ingestion status. Documents are split and indexed while the push request runs, so a pushed document answers `ready`.',
    }),
    chunk_count: Type.Integer({ description: 'Passages the document was split into (on headings and sentences).' }),
    error: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'KnowledgeDocument' },
);

export const PushKnowledgeBody = Type.Object(
  {
    documents: Type.Array(
      Type.Object(
        {
          title: Type.String({ minLength: 1, maxLength: 300 }),
          content: Type.String({ description: `The text, up to ${MAX_DOCUMENT_BYTES / 1024} KB (UTF-8).` }),
          content_type: Type.String({ description: 'text/plain, text/markdown or text/html.', examples: ['text/markdown'] }),
          source_url: Type.Optional(Type.String({ maxLength: 2048, description: 'Where the document came from (http or https), for your reference.' })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: MAX_DOCUMENTS_PER_REQUEST },
    ),
  },
  { additionalProperties: false },
);

export const PushKnowledgeResult = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(Type.Ref('KnowledgeDocument')),
  has_more: Type.Boolean(),
  next_cursor: Type.Null(),
});

export const KnowledgeParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  doc_id: Type.String({ minLength: 1, maxLength: 64 }),
});

export const KnowledgeListQuery = Type.Object({ ...PageQuery });

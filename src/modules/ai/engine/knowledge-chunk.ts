// One indexed piece of a knowledge document. A leaf of its own: the retrieval index
// (retrieval.ts) stores chunks, and the engine's contracts (types.ts) name that index.
export interface KnowledgeChunk {
  id: string;
  documentId: string;
  title: string;
  /** Heading path of the section the chunk comes from, e.g. "Policies > Cancellations". */
  heading: string | null;
  text: string;
}

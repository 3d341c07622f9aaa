// Row types of the AI receptionist's tables: agents, their knowledge documents and the
// chunks those are split into (what the per-agent retrieval index is rebuilt from), and
// conversations. JSON documents are text; timestamps RFC 3339 text (both engines).
import type { Mode } from '../../store/platform-tables.ts';

export type AgentStatus = 'active' | 'paused' | 'deleted';

export interface AgentRow {
  id: string;
  account_id: string;
  mode: Mode;
  status: AgentStatus;
  name: string;
  greeting: string;
  instructions: string;
  language: string;
  voice: string;
  transfer_number: string | null;
  /** JSON BusinessHours ({timezone, schedule}) or null: always open. */
  business_hours: string | null;
  after_hours_message: string | null;
  webhook_url: string | null;
  metadata: string; // JSON object of strings
  /** Bumped by every knowledge change: the in-memory retrieval index is valid for one version. */
  knowledge_version: number;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export type DocumentStatus = 'processing' | 'ready' | 'failed';

export interface KnowledgeDocumentRow {
  id: string;
  account_id: string;
  mode: Mode;
  agent_id: string;
  title: string;
  content_type: string;
  source_url: string | null;
  /** UTF-8 bytes of the content as pushed. */
  size_bytes: number;
  status: DocumentStatus;
  chunk_count: number;
  error: string | null;
  created_at: string;
  updated_at: string;
}

export interface KnowledgeChunkRow {
  /** `${document_id}#${n}`, as the engine names chunks. */
  id: string;
  document_id: string;
  agent_id: string;
  position: number;
  title: string;
  heading: string | null;
  text: string;
}

export type ConversationStatus = 'in_progress' | 'completed';
export type ConversationOutcome = 'resolved' | 'transferred' | 'message_taken' | 'abandoned';

export interface ConversationRow {
  id: string;
  account_id: string;
  mode: Mode;
  agent_id: string;
  call_id: string;
  number_id: string;
  from_number: string;
  to_number: string;
  status: ConversationStatus;
  outcome: ConversationOutcome | null;
  /** JSON TranscriptTurn[] */
  transcript: string;
  /** The message the caller left, when one was taken. */
  message: string | null;
  engine: 'default' | 'generative';
  /** JSON [{turn, reason}]: turns the default engine answered because the generative one could not. */
  fallbacks: string;
  /** Sandbox: JSON string[] of what the simulated caller says, in order. */
  caller_script: string;
  /** How many caller_script lines the caller has said: the next turn job's expected position. */
  script_position: number;
  /** Index in the call's `transfers` of the transfer the agent is waiting on, or null. */
  pending_transfer: number | null;
  /** Seconds from answer to the end of the last turn (simulated speech time). */
  duration_seconds: number | null;
  /** JSON ConversationScore, once scored. */
  score: string | null;
  /** score.overall, for the score range filter. */
  score_overall: number | null;
  started_at: string;
  ended_at: string | null;
  scored_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface AiTables {
  ai_agents: AgentRow;
  ai_knowledge_documents: KnowledgeDocumentRow;
  ai_knowledge_chunks: KnowledgeChunkRow;
  ai_conversations: ConversationRow;
}

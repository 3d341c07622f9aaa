// Entry point of the AI receptionist engine. Callers pick an engine with
// createEngine and build one KnowledgeIndex per agent from its documents.
import { DefaultEngine } from './default-engine.ts';
import { GenerativeEngine, type LlmConfig } from './generative-engine.ts';
import type { ReceptionistEngine } from './types.ts';

export interface EngineConfig {
  /** When set, replies and scores come from this OpenAI-compatible model, falling back to the default engine. */
  llm?: LlmConfig;
}

export function createEngine(config: EngineConfig = {}): ReceptionistEngine {
  return config.llm ? new GenerativeEngine(config.llm) : new DefaultEngine();
}

export type * from './types.ts';
export { chunkDocument, splitSentences, htmlToMarkdown, TARGET_CHUNK_CHARS } from './chunking.ts';
export { KnowledgeIndex, analyze, type SearchHit } from './retrieval.ts';
export { detectIntent, type Intent } from './intents.ts';
export { extractAnswer, ANSWER_CONFIDENCE_THRESHOLD, type ExtractedAnswer } from './answer.ts';
export { isOpen, validateBusinessHours, WEEKDAYS } from './business-hours.ts';
export { scoreConversation, unansweredQuestions, SCORE_WEIGHTS } from './scoring.ts';
export { DefaultEngine, MESSAGE_PROMPT } from './default-engine.ts';
export { GenerativeEngine, DEFAULT_LLM_TIMEOUT_MS, type LlmConfig } from './generative-engine.ts';

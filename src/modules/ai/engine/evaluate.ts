// Scores an engine against the fixture knowledge base in test/fixtures/ai:
// every question is asked in a fresh conversation and the reply is checked
// against the expected fact (a substring of the answer) or action. Used by the
// tests (accuracy gate) and by bench/ai-eval.ts (readable report).
import { readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chunkDocument } from './chunking.ts';
import { DefaultEngine } from './default-engine.ts';
import { KnowledgeIndex } from './retrieval.ts';
import type { AgentProfile, AgentReply, ContentType, KnowledgeDocument, ReceptionistEngine, TranscriptTurn } from './types.ts';

export const FIXTURE_DIR = fileURLToPath(new URL('../../../../test/fixtures/ai/', import.meta.url));

export interface FixtureQuestion {
  q: string;
  expect_fact?: string;
  expect_action?: 'transfer' | 'message';
  /** For message questions: the caller's next utterance, which must be taken as the message. */
  then?: string;
  note?: string;
}

export interface Fixture {
  agent: AgentProfile;
  documents: KnowledgeDocument[];
  questions: FixtureQuestion[];
}

export interface EvaluationOutcome {
  question: string;
  expected: string;
  ok: boolean;
  got: { action: string; text: string; confidence: number; citations: string[]; fallback_reason?: string };
}

export type EvaluationFailure = EvaluationOutcome;

export interface EvaluationResult {
  total: number;
  correct: number;
  /** correct / total, 0..1 */
  accuracy: number;
  transfersExpected: number;
  transfersCorrect: number;
  messagesExpected: number;
  messagesCorrect: number;
  failures: EvaluationFailure[];
  /** Every question with its outcome, in fixture order. */
  results: EvaluationOutcome[];
}

const CONTENT_TYPES: Record<string, ContentType> = {
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.txt': 'text/plain',
};

export function loadFixture(dir: string = FIXTURE_DIR): Fixture {
  const manifest = JSON.parse(readFileSync(join(dir, 'fixture.json'), 'utf8')) as {
    agent: AgentProfile;
    documents: { documentId: string; title: string; file: string }[];
  };
  const documents = manifest.documents.map((d): KnowledgeDocument => {
    const contentType = CONTENT_TYPES[extname(d.file).toLowerCase()];
    if (!contentType) throw new Error(`fixture document ${d.file}: unsupported extension`);
    return { documentId: d.documentId, title: d.title, content: readFileSync(join(dir, d.file), 'utf8'), contentType };
  });
  const questions = JSON.parse(readFileSync(join(dir, 'questions.json'), 'utf8')) as FixtureQuestion[];
  return { agent: manifest.agent, documents, questions };
}

export function buildIndex(documents: KnowledgeDocument[]): KnowledgeIndex {
  const index = new KnowledgeIndex();
  for (const doc of documents) index.add(chunkDocument(doc));
  return index;
}

export async function evaluateFixture(engine: ReceptionistEngine = new DefaultEngine(), fixture: Fixture = loadFixture()): Promise<EvaluationResult> {
  const index = buildIndex(fixture.documents);
  const { agent } = fixture;
  const results: EvaluationOutcome[] = [];
  let correct = 0;
  let transfersCorrect = 0;
  let messagesCorrect = 0;

  for (const question of fixture.questions) {
    const history: TranscriptTurn[] = [];
    const ask = async (utterance: string): Promise<AgentReply> => {
      const reply = await engine.reply({ agent, index, history, utterance });
      history.push({ speaker: 'caller', text: utterance, at: history.length, citations: [], action: null });
      history.push({ speaker: 'agent', text: reply.text, at: history.length, citations: reply.citations, action: reply.action });
      return reply;
    };

    let reply = await ask(question.q);
    let ok: boolean;
    let expected: string;
    if (question.expect_action === 'transfer') {
      expected = 'action transfer';
      ok = reply.action === 'transfer';
      if (ok) transfersCorrect++;
    } else if (question.expect_action === 'message') {
      const message = question.then ?? 'Please ask them to call me back.';
      expected = `message taken: "${message}"`;
      // The engine either asks what the message is, or took it from the request itself.
      if (reply.action === 'clarify') reply = await ask(message);
      ok = reply.action === 'message' && typeof reply.message === 'string' && reply.message.length > 0;
      if (ok) messagesCorrect++;
    } else {
      const fact = question.expect_fact ?? '';
      expected = `answer containing "${fact}"`;
      ok = reply.action === 'answer' && normalize(reply.text).includes(normalize(fact));
    }

    if (ok) correct++;
    results.push({
      question: question.q,
      expected,
      ok,
      got: {
        action: reply.action,
        text: reply.text,
        confidence: reply.confidence,
        citations: reply.citations,
        ...(reply.fallback_reason ? { fallback_reason: reply.fallback_reason } : {}),
      },
    });
  }

  const total = fixture.questions.length;
  return {
    total,
    correct,
    accuracy: total === 0 ? 0 : correct / total,
    transfersExpected: fixture.questions.filter((q) => q.expect_action === 'transfer').length,
    transfersCorrect,
    messagesExpected: fixture.questions.filter((q) => q.expect_action === 'message').length,
    messagesCorrect,
    failures: results.filter((r) => !r.ok),
    results,
  };
}

function normalize(text: string): string {
  return text.toLowerCase().replace(/[’‘]/g, "'").replace(/\s+/g, ' ');
}

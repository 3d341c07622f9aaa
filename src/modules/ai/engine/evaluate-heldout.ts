// Scores an engine on the held-out businesses in test/fixtures/ai/heldout (or another
// folder of the same shape, such as the sealed set in heldout-sealed): each
// caller line is asked in a fresh conversation and its reply is classified the
// way a business owner would judge it. Used by bench/ai-eval.ts (report) and by
// the engine tests (gate). Tuning reads only the dev half; see the folder README.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIndex } from './evaluate.ts';
import type { KnowledgeIndex } from './retrieval.ts';
import type { AgentProfile, AgentReply, ContentType, KnowledgeDocument, ReceptionistEngine, TranscriptTurn } from './types.ts';

export const HELDOUT_DIR = fileURLToPath(new URL('../../../../test/fixtures/ai/heldout/', import.meta.url));
/** The sealed set: four more businesses written blind during tuning, scored only as a report (see its README). */
export const SEALED_DIR = fileURLToPath(new URL('../../../../test/fixtures/ai/heldout-sealed/', import.meta.url));
/** The third held-out set, written blind; its test halves were committed only after tuning ended. */
export const THIRD_DIR = fileURLToPath(new URL('../../../../test/fixtures/ai/heldout-3/', import.meta.url));
/** The fourth held-out set, written blind and kept outside the repository until it was scored once (see its README). */
export const FOURTH_DIR = fileURLToPath(new URL('../../../../test/fixtures/ai/heldout-4/', import.meta.url));
/** The fifth held-out set, written blind after the fourth was scored, and scored once (see its README). */
export const FIFTH_DIR = fileURLToPath(new URL('../../../../test/fixtures/ai/heldout-5/', import.meta.url));

export type HeldoutSplit = 'dev' | 'test';

export interface HeldoutQuestion {
  q: string;
  /** Acceptable facts: the answer must contain one of them. */
  expect_fact?: string | string[];
  expect_action?: 'handoff' | 'transfer' | 'end';
}

export interface HeldoutBusiness {
  slug: string;
  kind: string;
  agent: AgentProfile;
  documents: KnowledgeDocument[];
  questions: HeldoutQuestion[];
}

/**
 * What happened to one caller line:
 * - right / wrong: answered with citations, containing the expected fact or not
 *   (an answer to an unanswerable line is always wrong);
 * - handed_off: "I don't have that" with a transfer or a message offer;
 * - clarified: asked which of two readings the caller meant;
 * - transferred / ended: the call was put through / hung up;
 * - other: anything else (small talk, "say that again").
 */
export type Verdict = 'right' | 'wrong' | 'handed_off' | 'clarified' | 'transferred' | 'ended' | 'other';

export interface HeldoutOutcome {
  business: string;
  question: HeldoutQuestion;
  kind: 'answerable' | 'unanswerable' | 'person' | 'goodbye';
  verdict: Verdict;
  ok: boolean;
  reply: AgentReply;
  /** Wall time of the turn. */
  ms: number;
  /** CPU time of the turn (user + system): what the turn costs, whatever else runs on the machine. */
  cpuMs: number;
}

export interface HeldoutTally {
  answerable: number;
  right: number;
  /** Cited answers that do not hold the expected fact, plus answers to unanswerable lines. */
  wrong: number;
  /** Lines that were not goodbyes but ended the call. */
  wrongHangups: number;
  unanswerable: number;
  unanswerableHandedOff: number;
  personRequests: number;
  transferred: number;
  goodbyes: number;
  ended: number;
  clarified: number;
  turnMs: number[];
  turnCpuMs: number[];
}

const CONTENT_TYPES: Record<string, ContentType> = { '.md': 'text/markdown', '.html': 'text/html', '.txt': 'text/plain' };

export function loadHeldout(split: HeldoutSplit, dir: string = HELDOUT_DIR): HeldoutBusiness[] {
  return readdirSync(dir)
    .filter((name) => statSync(join(dir, name)).isDirectory())
    .sort()
    .map((slug) => {
      const base = join(dir, slug);
      const manifest = JSON.parse(readFileSync(join(base, 'business.json'), 'utf8')) as {
        kind: string;
        agent: AgentProfile;
        documents: { documentId: string; title: string; file: string }[];
      };
      const documents = manifest.documents.map((d): KnowledgeDocument => {
        const contentType = CONTENT_TYPES[extname(d.file)];
        if (!contentType) throw new Error(`${slug}/${d.file}: unsupported extension`);
        return { documentId: d.documentId, title: d.title, content: readFileSync(join(base, d.file), 'utf8'), contentType };
      });
      const questions = JSON.parse(readFileSync(join(base, `${split}.json`), 'utf8')) as HeldoutQuestion[];
      return { slug, kind: manifest.kind, agent: manifest.agent, documents, questions };
    });
}

export function kindOf(q: HeldoutQuestion): HeldoutOutcome['kind'] {
  if (q.expect_action === 'handoff') return 'unanswerable';
  if (q.expect_action === 'transfer') return 'person';
  if (q.expect_action === 'end') return 'goodbye';
  return 'answerable';
}

export function verdictOf(q: HeldoutQuestion, reply: AgentReply): Verdict {
  if (reply.action === 'transfer') return reply.rule === 'no_information' ? 'handed_off' : 'transferred';
  if (reply.action === 'end') return 'ended';
  if (reply.action === 'answer') {
    const facts = q.expect_fact === undefined ? [] : Array.isArray(q.expect_fact) ? q.expect_fact : [q.expect_fact];
    const text = normalize(reply.text);
    return facts.some((f) => text.includes(normalize(f))) ? 'right' : 'wrong';
  }
  if (reply.rule === 'no_information') return 'handed_off';
  if (reply.rule === 'clarify_reading') return 'clarified';
  return 'other';
}

/** Asks every question of one business, each in a fresh conversation, against `index` (by default its own documents). */
export async function evaluateBusiness(engine: ReceptionistEngine, business: HeldoutBusiness, index: KnowledgeIndex = buildIndex(business.documents)): Promise<HeldoutOutcome[]> {
  const outcomes: HeldoutOutcome[] = [];
  for (const question of business.questions) {
    const history: TranscriptTurn[] = [];
    const cpu = process.cpuUsage();
    const started = performance.now();
    const reply = await engine.reply({ agent: business.agent, index, history, utterance: question.q });
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const cpuMs = (used.user + used.system) / 1000;
    const kind = kindOf(question);
    const verdict = verdictOf(question, reply);
    const expected: Record<HeldoutOutcome['kind'], Verdict> = { answerable: 'right', unanswerable: 'handed_off', person: 'transferred', goodbye: 'ended' };
    outcomes.push({ business: business.slug, question, kind, verdict, ok: verdict === expected[kind], reply, ms, cpuMs });
  }
  return outcomes;
}

export function tally(outcomes: HeldoutOutcome[]): HeldoutTally {
  const count = (kind: HeldoutOutcome['kind'], verdict?: Verdict) =>
    outcomes.filter((o) => o.kind === kind && (verdict === undefined || o.verdict === verdict)).length;
  return {
    answerable: count('answerable'),
    right: count('answerable', 'right'),
    wrong: outcomes.filter((o) => o.verdict === 'wrong' || (o.kind === 'unanswerable' && o.verdict === 'right')).length,
    wrongHangups: outcomes.filter((o) => o.kind !== 'goodbye' && o.verdict === 'ended').length,
    unanswerable: count('unanswerable'),
    unanswerableHandedOff: count('unanswerable', 'handed_off'),
    personRequests: count('person'),
    transferred: count('person', 'transferred'),
    goodbyes: count('goodbye'),
    ended: count('goodbye', 'ended'),
    clarified: outcomes.filter((o) => o.verdict === 'clarified').length,
    turnMs: outcomes.map((o) => o.ms),
    turnCpuMs: outcomes.map((o) => o.cpuMs),
  };
}

/** Questions the wrong-answer rate is counted over: every line that asks the knowledge base something. */
export function knowledgeLines(t: HeldoutTally): number {
  return t.answerable + t.unanswerable;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function normalize(text: string): string {
  return text.toLowerCase().replace(/[’‘]/g, "'").replace(/\s+/g, ' ');
}

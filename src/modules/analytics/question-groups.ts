// Groups the questions callers asked and the receptionist could not answer by similar
// wording, so "what are your hours on Sunday?" and "Sunday hours?" count as one thing to add
// to the knowledge. Wording is compared through the AI engine's own analysis (stop words
// dropped, words stemmed): two lines are alike when they share at least half of their
// distinct terms (Jaccard similarity >= 0.5). Groups are built greedily, most asked wording
// first, so a group is named by the wording callers used most.
import { analyze } from '../ai/engine/index.ts';

export interface AskedQuestion {
  text: string;
  conversationId: string;
  /** When the conversation started (RFC 3339); the latest one a group was asked in is shown. */
  at: string;
}

export interface QuestionGroup {
  question: string;
  count: number;
  /** Up to MAX_EXAMPLES other wordings of the group, most asked first. */
  examples: string[];
  /** Up to MAX_CONVERSATIONS conversations it was asked in, latest first. */
  conversation_ids: string[];
  last_asked_at: string;
}

export const SIMILARITY = 0.5;
const MAX_EXAMPLES = 3;
const MAX_CONVERSATIONS = 5;

interface Wording {
  text: string;
  terms: Set<string>;
  asked: AskedQuestion[];
}

function jaccard(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const term of a) if (b.has(term)) shared++;
  return shared / (a.size + b.size - shared);
}

/** Lines that read the same once case, spacing and punctuation are set aside are one wording. */
function wordingKey(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

export function groupQuestions(asked: AskedQuestion[], limit: number): QuestionGroup[] {
  const wordings = new Map<string, Wording>();
  for (const question of asked) {
    const key = wordingKey(question.text);
    let wording = wordings.get(key);
    if (!wording) {
      const terms = new Set(analyze(question.text));
      if (terms.size === 0) continue; // nothing but filler: no wording to learn from
      wordings.set(key, (wording = { text: question.text.trim(), terms, asked: [] }));
    }
    wording.asked.push(question);
  }

  // Most asked first (then alphabetical, so equal counts always group the same way).
  const ordered = [...wordings.values()].sort((a, b) => b.asked.length - a.asked.length || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  const groups: Array<{ head: Wording; members: Wording[] }> = [];
  // Candidate groups come from the terms a wording shares with a group's head, never a scan of every group.
  const byTerm = new Map<string, number[]>();
  for (const wording of ordered) {
    const candidates = new Set<number>();
    for (const term of wording.terms) for (const g of byTerm.get(term) ?? []) candidates.add(g);
    // The most similar group; of equally similar ones, the older (more asked) one.
    let best = -1;
    let bestScore = -1;
    for (const g of [...candidates].sort((a, b) => a - b)) {
      const score = jaccard(wording.terms, groups[g]!.head.terms);
      if (score >= SIMILARITY && score > bestScore) {
        best = g;
        bestScore = score;
      }
    }
    if (best !== -1) {
      groups[best]!.members.push(wording);
      continue;
    }
    const index = groups.push({ head: wording, members: [wording] }) - 1;
    for (const term of wording.terms) byTerm.set(term, [...(byTerm.get(term) ?? []), index]);
  }

  return groups
    .map(({ head, members }) => {
      const all = members.flatMap((m) => m.asked).sort((a, b) => (a.at > b.at ? -1 : a.at < b.at ? 1 : 0));
      return {
        question: head.text,
        count: all.length,
        examples: members.slice(1, 1 + MAX_EXAMPLES).map((m) => m.text),
        conversation_ids: [...new Set(all.map((q) => q.conversationId))].slice(0, MAX_CONVERSATIONS),
        last_asked_at: all[0]!.at,
      };
    })
    .sort((a, b) => b.count - a.count || (a.last_asked_at > b.last_asked_at ? -1 : a.last_asked_at < b.last_asked_at ? 1 : 0))
    .slice(0, limit);
}

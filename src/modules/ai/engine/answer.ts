// Extractive answering: the reply is made of sentences copied from the best
// passages, never invented, so every answer is traceable to a document.
//
// Each sentence of the top passages is scored by how much of the question it
// covers. Coverage is counted per question word, weighted by how rare the word
// is in the knowledge base (IDF): a word is covered by the sentence itself
// (full credit), through a synonym concept ("cost" ~ "Price"), or only by the
// section heading it sits under (partial credit: "Saturday: 9-1" under "Office
// hours" answers "when are you open Saturday"). The confidence is the coverage
// of the chosen sentences, so a question whose key words appear nowhere
// ("do you do botox?") scores low and the engine hands the call off.
import { splitSentences } from './chunking.ts';
import { indexTokens, isConceptTerm, processQueryTerm, processTerm, queryTokens, stem, type SearchHit } from './retrieval.ts';

/** Below this confidence the engine hands the caller to a person instead of guessing. */
export const ANSWER_CONFIDENCE_THRESHOLD = 0.5;

const MAX_PASSAGES = 8;
const MIN_RELATIVE_PASSAGE_SCORE = 0.15;
const MAX_ANSWER_CHARS = 420;
/** A list item, table row or short paragraph is read out whole: its sentences depend on each other. */
const MAX_WHOLE_BLOCK_CHARS = 220;
/** Lines this short without a full stop are list items (they may belong to a lead-in ending in ":"). */
const MAX_LIST_LINE_CHARS = 80;
const CONTEXT_CREDIT = 0.6; // question word found only in the heading or title
const CONCEPT_CREDIT = 0.8; // question word matched through a synonym concept
const PARTIAL_CREDIT = 0.7; // prefix / one-typo match ("whiten" vs "whitening", "apointment")
/** Weight of a question word the knowledge base never uses: may be the topic we lack, may be noise ("GPS"). */
const UNKNOWN_WORD_WEIGHT = 0.6;
/** Bonus for a sentence holding the kind of fact the question asks for (a price, a time, an address...). */
const ANSWER_TYPE_BONUS = 0.12;
/** Confidence factor when the answer lacks a fact of a required kind. */
const MISSING_REQUIRED_FACT_FACTOR = 0.7;
/** Scales the bonus for sentences under a heading that covers the question. */
const HEADING_MATCH_BONUS = 0.2;

// Words callers use to frame a request that say little about what they want.
const WEAK_WORDS = new Set(['offer', 'provide', 'service', 'services', 'available', 'make', 'able', 'work', 'help', 'there', 'take', 'happen'].map(stem));

/**
 * Kinds of fact a question can ask for, and how a sentence holding one looks.
 * For `required` kinds an answer without such a fact is not an answer ("how
 * much is X?" answered without a price), so confidence drops.
 */
const ANSWER_TYPES: { asks: RegExp; holds: RegExp; required?: boolean }[] = [
  { asks: /\bhow much\b|\b(?:cost|price|fee|charge)s?\b/i, holds: /[$€£]\s?\d|\b\d+\s?(?:dollars|euros)\b|\bfree\b/i, required: true },
  { asks: /\bdiscounts?\b|\bdeals?\b|\boff\b/i, holds: /\d+\s?%|\bpercent\b/i },
  {
    asks: /\bwhat time\b|\bwhen\b|\bhours\b|\bopen\b|\bclose\b/i,
    holds: /\b\d{1,2}(?::\d{2})?\s?(?:a\.?m\b|p\.?m\b)|\b\d{1,2}:\d{2}\b|\bclosed\b|\bnoon\b|\bmidnight\b/i,
  },
  { asks: /\baddress\b/i, required: true, holds: /\b\d+\s+(?:[A-Z]{1,2}\s+)?[A-Z][a-z]+\s+(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Way|Place|Pl|Court|Ct)\b/ },
  { asks: /\bwhere\b|\blocated\b|\blocation\b/i, holds: /\b\d+\s+(?:[A-Z]{1,2}\s+)?[A-Z][a-z]+\s+(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Way|Place|Pl|Court|Ct)\b/ },
  { asks: /\b(?:phone|telephone|fax|contact) number\b|\bwhat number\b/i, holds: /\+?\d[\d\s().-]{6,}\d/, required: true },
  { asks: /\bcall\b/i, holds: /\+?\d[\d\s().-]{6,}\d/ },
  { asks: /\bhow (?:long|many|often|old)\b/i, holds: /\b\d+|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty|every|first)\b/i },
  // "What plans do you take?" asks for a list: a line introducing one ("...the following plans:") holds it.
  { asks: /\b(?:what|which) (?:kinds? of |types? of |sorts? of )?\w+ (?:do|does|can) (?:you|y'all|they) (?:take|accept|offer|have|carry|sell|support|speak)\b/i, holds: /:\s*$/ },
  { asks: /\bwho\b/i, holds: /\b(?:Dr|Mr|Mrs|Ms)\.?\s+[A-Z]|\b[A-Z][a-z]+ [A-Z][a-z]+\b/ },
];

/** Corpus statistics the answer uses to weigh question words; a KnowledgeIndex provides them. */
export interface TermStatistics {
  readonly size: number;
  chunkFrequency(term: string): number;
}

export interface AnswerSentence {
  text: string;
  chunkId: string;
  documentId: string;
  score: number;
}

export interface ExtractedAnswer {
  text: string;
  /** Distinct documentIds of the sentences used. */
  citations: string[];
  /** 0..1: how much of the question the answer covers. */
  confidence: number;
  sentences: AnswerSentence[];
}

export interface QuestionWord {
  stem: string;
  concepts: string[];
  weight: number;
}

interface Candidate {
  text: string;
  hit: SearchHit;
  block: number;
  order: number;
  /** Per question word: credit 0..1 from the sentence alone. */
  own: number[];
  /** Per question word: credit 0..1 from the sentence plus its heading and title. */
  withContext: number[];
  score: number;
}

export function questionWords(question: string, stats?: TermStatistics): QuestionWord[] {
  const seen = new Set<string>();
  const words: QuestionWord[] = [];
  for (const token of queryTokens(question)) {
    const terms = processQueryTerm(token);
    const stem = terms[0];
    if (!stem || seen.has(stem)) continue;
    seen.add(stem);
    const concepts = terms.slice(1).filter(isConceptTerm);
    const weight = (WEAK_WORDS.has(stem) ? 0.4 : 1) * (stats ? rarityWeight(stem, concepts, stats) : 1);
    words.push({ stem, concepts, weight });
  }
  return words;
}

/** IDF scaled so a word in one chunk weighs 1 and a word in most chunks about 0.3. */
function rarityWeight(stem: string, concepts: string[], stats: TermStatistics): number {
  let frequency = stats.chunkFrequency(stem);
  if (frequency === 0 && concepts.length > 0) frequency = Math.max(...concepts.map((c) => stats.chunkFrequency(c)));
  if (frequency === 0) return UNKNOWN_WORD_WEIGHT;
  const n = Math.max(stats.size, 2);
  const idf = Math.log(1 + n / (1 + frequency)) / Math.log(1 + n / 2);
  return Math.min(1.2, Math.max(0.3, idf));
}

export function extractAnswer(question: string, hits: SearchHit[], stats?: TermStatistics): ExtractedAnswer | null {
  const words = questionWords(question, stats);
  if (words.length === 0 || hits.length === 0) return null;
  const totalWeight = words.reduce((sum, w) => sum + w.weight, 0);
  const topScore = hits[0]!.score;
  const answerTypes = ANSWER_TYPES.filter((t) => t.asks.test(question));
  const questionStems = new Set(words.map((w) => w.stem));

  const candidates: Candidate[] = [];
  hits.slice(0, MAX_PASSAGES).forEach((hit, rank) => {
    // Generous: a short table row can answer even when its long passage ranks low.
    if (hit.score < topScore * MIN_RELATIVE_PASSAGE_SCORE) return;
    const contextTerms = termsOf(`${hit.chunk.title} ${hit.chunk.heading ?? ''}`, questionStems);
    // A section whose heading names the question's topic is about it; a passing mention elsewhere is not.
    const headingTerms = termsOf(hit.chunk.heading ?? '', questionStems);
    const headingBonus = HEADING_MATCH_BONUS * weightedCoverage(words, words.map((w) => credit(w, headingTerms)), totalWeight);
    // Retrieval rank breaks ties between equally covering sentences.
    const rankPrior = 0.08 * (hit.score / topScore) - 0.01 * rank;
    let order = 0;
    hit.chunk.text.split('\n').forEach((blockText, block) => {
      for (const text of splitSentences(blockText)) {
        const sentenceTerms = termsOf(text, questionStems);
        const own = words.map((w) => credit(w, sentenceTerms));
        const withContext = words.map((w, i) => Math.max(own[i]!, CONTEXT_CREDIT * credit(w, contextTerms)));
        const coverage = weightedCoverage(words, withContext, totalWeight);
        const ownCoverage = weightedCoverage(words, own, totalWeight);
        const typeBonus = answerTypes.some((t) => t.holds.test(text)) ? ANSWER_TYPE_BONUS : 0;
        // A question in the text ("Do you take walk-ins?") is not its own answer.
        const questionPenalty = /\?["')”’]*$/.test(text) ? 0.3 : 0;
        const lengthPenalty = text.length > 250 ? 0.05 : 0;
        const score = coverage + 0.15 * ownCoverage + headingBonus + rankPrior + typeBonus - questionPenalty - lengthPenalty;
        candidates.push({ text, hit, block, order: order++, own, withContext, score });
      }
    });
  });
  if (candidates.length === 0) return null;
  candidates.sort((a, b) => b.score - a.score);

  const chosen = chooseSentences(candidates, words);
  const covered = words.map((_, i) => Math.max(...chosen.map((c) => c.withContext[i]!)));
  const missingFact = answerTypes.some((t) => t.required && !chosen.some((c) => t.holds.test(c.text)));
  const confidence = round2(weightedCoverage(words, covered, totalWeight) * (missingFact ? MISSING_REQUIRED_FACT_FACTOR : 1));
  const ordered = [...chosen].sort((a, b) => a.order - b.order);
  return {
    text: ordered.map((c) => asSpokenSentence(c.text)).join(' '),
    citations: [...new Set(ordered.map((c) => c.hit.chunk.documentId))],
    confidence,
    sentences: ordered.map((c) => ({ text: c.text, chunkId: c.hit.chunk.id, documentId: c.hit.chunk.documentId, score: round2(c.score) })),
  };
}

/**
 * The best sentence, read with the rest of its block when the block is short
 * (a list item, a table row, an FAQ answer) and with the line introducing it
 * when that ends in ":" ("We are in network with the following plans:").
 * A best sentence that is itself such a lead-in gets the lines it introduces.
 * Otherwise one more sentence of the same passage is added if it covers
 * question words the first misses while staying on the same subject.
 */
function chooseSentences(candidates: Candidate[], words: QuestionWord[]): Candidate[] {
  const best = candidates[0]!;
  const samePassage = candidates.filter((c) => c.hit === best.hit && c !== best).sort((a, b) => a.order - b.order);
  const blockSiblings = samePassage.filter((c) => c.block === best.block);
  const blockLength = [best, ...blockSiblings].reduce((sum, c) => sum + c.text.length + 1, 0);
  const chosen = blockLength <= MAX_WHOLE_BLOCK_CHARS ? [best, ...blockSiblings] : [best];
  let length = chosen.reduce((sum, c) => sum + c.text.length + 1, 0);
  const add = (c: Candidate): boolean => {
    if (chosen.includes(c) || length + c.text.length > MAX_ANSWER_CHARS) return false;
    chosen.push(c);
    length += c.text.length + 1;
    return true;
  };

  if (/:$/.test(best.text.trim())) {
    for (const f of samePassage.filter((c) => c.order > best.order && c.order <= best.order + 6)) {
      if (!add(f)) break;
    }
    return chosen;
  }

  // A short list line: walk back over its sibling lines to the lead-in that introduces them, if any.
  const firstOrder = Math.min(...chosen.map((c) => c.order));
  const before = samePassage.filter((c) => c.order < firstOrder).reverse();
  const leadIn = before.slice(0, 8).find((c) => /:$/.test(c.text.trim()));
  const isListLine = (c: Candidate) => c.text.length <= MAX_LIST_LINE_CHARS && !/[.!?]$/.test(c.text.trim());
  if (leadIn && isListLine(best) && before.slice(0, before.indexOf(leadIn)).every(isListLine)) {
    add(leadIn);
    return chosen;
  }

  const isCovered = (c: Candidate, i: number) => c.own[i]! >= PARTIAL_CREDIT;
  for (const candidate of samePassage) {
    if (candidate.score < best.score * 0.6) continue;
    const addsCoverage = words.some((_, i) => isCovered(candidate, i) && chosen.every((c) => !isCovered(c, i)));
    const sameSubject = candidate.block === best.block || words.some((_, i) => isCovered(candidate, i) && isCovered(best, i));
    if (addsCoverage && sameSubject && add(candidate)) break;
  }
  return chosen;
}

interface TextTerms {
  stems: Set<string>;
  /**
   * Concepts present in the text through some word that is not itself in the
   * question: in "phone number" the word "phone" already counts once, and must
   * not also cover "number" through their shared concept.
   */
  independentConcepts: Set<string>;
}

function termsOf(text: string, questionStems: Set<string>): TextTerms {
  const stems = new Set<string>();
  const independentConcepts = new Set<string>();
  for (const token of indexTokens(text)) {
    const [stem, ...concepts] = processTerm(token);
    if (!stem) continue;
    if (isConceptTerm(stem)) independentConcepts.add(stem);
    stems.add(stem);
    if (!questionStems.has(stem)) for (const c of concepts) independentConcepts.add(c);
  }
  return { stems, independentConcepts };
}

function credit(word: QuestionWord, terms: TextTerms): number {
  if (isConceptTerm(word.stem)) return terms.independentConcepts.has(word.stem) ? CONCEPT_CREDIT : 0;
  if (terms.stems.has(word.stem)) return 1;
  let best = word.concepts.some((c) => terms.independentConcepts.has(c)) ? CONCEPT_CREDIT : 0;
  if (best < PARTIAL_CREDIT && word.stem.length >= 4 && !/^\d+$/.test(word.stem)) {
    for (const term of terms.stems) {
      if (term.length < 4) continue;
      if (sharesStem(word.stem, term) || (word.stem.length >= 5 && withinOneEdit(word.stem, term))) {
        best = PARTIAL_CREDIT;
        break;
      }
    }
  }
  return best;
}

function sharesStem(a: string, b: string): boolean {
  const [shorter, longer] = a.length <= b.length ? [a, b] : [b, a];
  return shorter.length >= 4 && longer.startsWith(shorter) && longer.length - shorter.length <= 4;
}

function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  let j = 0;
  let edits = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      i++;
      j++;
      continue;
    }
    if (++edits > 1) return false;
    if (a.length > b.length) i++;
    else if (b.length > a.length) j++;
    else {
      i++;
      j++;
    }
  }
  return edits + (a.length - i) + (b.length - j) <= 1;
}

function weightedCoverage(words: QuestionWord[], credits: number[], totalWeight: number): number {
  return words.reduce((sum, w, i) => sum + w.weight * credits[i]!, 0) / totalWeight;
}

/** List items and table rows are read out as sentences. */
function asSpokenSentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?:]["')”’]*$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

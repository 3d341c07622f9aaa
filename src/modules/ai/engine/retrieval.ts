// BM25 retrieval over knowledge chunks (MiniSearch), tuned for what callers
// ask a small business. The text analysis is exported because answer
// extraction must see terms exactly as the index sees them.
import MiniSearch, { type Query, type SearchOptions } from 'minisearch';
import { CONCEPT_PREFIX, conceptEntries } from './concepts.ts';
import { factConcepts } from './facts.ts';
import type { KnowledgeChunk } from './knowledge-chunk.ts';

// ---------------------------------------------------------------- analysis

// Function words plus the filler of spoken questions ("hey, do you guys...").
// Question words that carry meaning for a business ("where", "when", "much")
// are NOT here: the synonym table maps them to concepts.
const STOPWORDS = new Set(
  `a about above again against all am an and any are aren't as at be because been being below between
  both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each few for from
  further had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him himself his
  how how's i i'd i'll i'm i've if in into put use uses using is isn't it it's its itself let's me more most mustn't my myself nor of
  off on once only or other ought our ours ourselves out over same shan't she she'd she'll she's should shouldn't
  so some such than that that's the their theirs them themselves then there there's these they they'd they'll
  they're they've this those through to too under until up very was wasn't we we'd we'll we're we've were weren't
  what what's which while who's whom why why's will with won't would wouldn't you you'd you'll you're you've your
  yours yourself yourselves hey hi hello um uh uhm er erm like guys y'all ya yeah yes ok okay please just wondering
  wonder know want wanted need needs tell get got really actually maybe also any anything something thing things
  thanks thank quick question questions ask asking curious gonna wanna kind sort bit lot let say said one ones
  there'd does whats im ive id u ur pls plz go going us folks`.split(/\s+/),
);

const NUMBER_WORDS: Record<string, string> = {
  two: '2', three: '3', four: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9', ten: '10', eleven: '11', twelve: '12',
  fifteen: '15', twenty: '20', thirty: '30', forty: '40', fifty: '50',
};

// Irregular plurals the suffix rules cannot reach.
const IRREGULAR_FORMS: Record<string, string> = {
  teeth: 'tooth', children: 'child', people: 'person', feet: 'foot', men: 'man', women: 'woman', mice: 'mouse', geese: 'goose',
};

/** Light suffix stripping: enough to make "prices"/"price", "booking"/"book", "closed"/"close" meet. */
export function stem(word: string): string {
  let w = word.toLowerCase().replace(/['’]s$/, '').replace(/['’]/g, '');
  const irregular = IRREGULAR_FORMS[w];
  if (irregular) return irregular;
  if (w.length <= 3 || /\d/.test(w)) return w;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(ss|us|is|ous)$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith('ing') && w.length > 5) w = undouble(w.slice(0, -3));
  else if (w.endsWith('ed') && w.length > 4) w = undouble(w.slice(0, -2));
  else if (w.endsWith('ly') && w.length > 5) w = w.slice(0, -2);
  if (w.endsWith('e') && w.length > 3) w = w.slice(0, -1);
  return w;
}

function undouble(w: string): string {
  return /([b-df-hj-np-tv-z])\1$/.test(w) && !/(ll|ss|zz)$/.test(w) ? w.slice(0, -1) : w.replace(/ll$/, 'l');
}

/** Concepts of a stem as indexed (documents) and as asked (questions); see concepts.json. */
const indexConceptsByStem = new Map<string, string[]>();
const queryConceptsByStem = new Map<string, string[]>();
/** Multi-word entries ("set me back", "after dark") by their first stem, matched on stems over the whole text. */
const phrasesByFirstStem = new Map<string, { stems: string[]; concept: string; index: boolean; query: boolean }[]>();

function addConcept(map: Map<string, string[]>, key: string, token: string): void {
  const existing = map.get(key) ?? [];
  if (!existing.includes(token)) map.set(key, [...existing, token]);
}
for (const { words, entry } of conceptEntries()) {
  const stems = words.flatMap((w) => tokenize(w)).map(stem);
  if (stems.length > 1) {
    const list = phrasesByFirstStem.get(stems[0]!) ?? [];
    phrasesByFirstStem.set(stems[0]!, [...list, { stems, ...entry }]);
    continue;
  }
  if (entry.index) addConcept(indexConceptsByStem, stems[0]!, entry.concept);
  if (entry.query) addConcept(queryConceptsByStem, stems[0]!, entry.concept);
}

/** Concept tokens of the multi-word entries found in `text`, for documents ('index') or questions ('query'). */
export function phraseConcepts(text: string, side: 'index' | 'query'): string[] {
  return [...new Set(phraseMatches(text, side).map((m) => m.concept))];
}

/** The multi-word entries found in `text`, with the positions (in tokenize(text)) of the tokens they span. */
export function phraseMatches(text: string, side: 'index' | 'query'): { concept: string; start: number; length: number }[] {
  const stems = tokenize(text).map(stem);
  const found: { concept: string; start: number; length: number }[] = [];
  stems.forEach((first, i) => {
    for (const phrase of phrasesByFirstStem.get(first) ?? []) {
      if (phrase[side] && phrase.stems.every((s, k) => stems[i + k] === s)) found.push({ concept: phrase.concept, start: i, length: phrase.stems.length });
    }
  });
  return found;
}

export function isConceptTerm(term: string): boolean {
  return term.startsWith(CONCEPT_PREFIX);
}

/**
 * Splits on anything that is not a letter, digit or apostrophe ("9:00" gives
 * "9", "00"). Hyphenated words also yield their joined form, so "Wi-Fi" meets
 * "wifi" and "walk-ins" meets "walkins".
 */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const raw of text.toLowerCase().replace(/[’‘]/g, "'").split(/[^\p{L}\p{N}'-]+/u)) {
    const parts = raw.split('-').map((t) => t.replace(/^'+|'+$/g, '')).filter((t) => t !== '');
    tokens.push(...parts);
    if (parts.length > 1 && parts.length <= 3) tokens.push(parts.join(''));
  }
  // A size said aloud ("a ten by ten", "10 x 20") also yields the written form ("10x10").
  for (let i = 0; i + 2 < tokens.length; i++) {
    const [a, by, b] = [numberOf(tokens[i]!), tokens[i + 1], numberOf(tokens[i + 2]!)];
    if (a && b && (by === 'by' || by === 'x')) tokens.push(`${a}x${b}`);
  }
  return tokens;
}

/** "10" or "ten" -> "10"; anything else -> null. */
function numberOf(token: string): string | null {
  return /^\d+$/.test(token) ? token : (NUMBER_WORDS[token] ?? null);
}

/** One raw document token -> the terms indexed for it: its stem plus the concepts it belongs to. */
export function processTerm(token: string): string[] {
  if (isConceptTerm(token)) return [token];
  const stemmed = stemUnlessStopword(token);
  return stemmed ? [stemmed, ...(indexConceptsByStem.get(stemmed) ?? [])] : [];
}

/** One raw query token -> the terms searched for it (category members do not expand to their category). */
export function processQueryTerm(token: string): string[] {
  if (isConceptTerm(token)) return [token];
  const stemmed = stemUnlessStopword(token);
  return stemmed ? [stemmed, ...(queryConceptsByStem.get(stemmed) ?? [])] : [];
}

function stemUnlessStopword(token: string): string | null {
  const lower = token.toLowerCase();
  if (STOPWORDS.has(lower)) return null;
  const stemmed = stem(lower);
  // "getting" -> "get" is as empty as "get".
  return stemmed === '' || STOPWORDS.has(stemmed) ? null : stemmed;
}

/** The raw tokens of a document text plus the concepts of its phrases. */
export function indexTokens(text: string): string[] {
  return [...tokenize(text), ...phraseConcepts(text, 'index'), ...factConcepts(text)];
}

/** The raw tokens of a question plus the concepts of its phrases. */
export function queryTokens(text: string): string[] {
  return [...tokenize(text), ...phraseConcepts(text, 'query')];
}

/** The distinct terms (stems and concepts) of a document text, as the index sees them. */
export function analyze(text: string): string[] {
  return [...new Set(indexTokens(text).flatMap(processTerm))];
}

/** The distinct terms of a query. */
export function analyzeQuery(text: string): string[] {
  return [...new Set(queryTokens(text).flatMap(processQueryTerm))];
}

// ---------------------------------------------------------------- index

/** A question with a part that should count for less in ranking (a trailing condition; see clauses.ts). */
export interface QualifiedQuery {
  main: string;
  qualifier: string;
  /** Factor on the qualifier's term boosts, 0..1. */
  qualifierWeight: number;
}

export interface SearchHit {
  chunk: KnowledgeChunk;
  score: number;
}

interface IndexedChunk {
  id: string;
  title: string;
  heading: string;
  text: string;
}

// Concepts are broad (many words map to "_hours"), so a concept match counts
// for less than matching the caller's actual word.
const CONCEPT_TERM_BOOST = 0.6;

const conceptBoost = (term: string): number => (isConceptTerm(term) ? CONCEPT_TERM_BOOST : 1);

const SEARCH_OPTIONS: SearchOptions = {
  boost: { heading: 2, title: 1.5, text: 1 },
  combineWith: 'OR',
  prefix: (term) => !isConceptTerm(term) && term.length >= 4,
  fuzzy: (term) => (!isConceptTerm(term) && term.length >= 5 ? 0.2 : false),
  boostTerm: conceptBoost,
  weights: { fuzzy: 0.4, prefix: 0.5 },
};

export class KnowledgeIndex {
  readonly #search = new MiniSearch<IndexedChunk>({
    fields: ['title', 'heading', 'text'],
    idField: 'id',
    tokenize: indexTokens,
    processTerm: (term) => processTerm(term),
    searchOptions: { ...SEARCH_OPTIONS, tokenize: queryTokens, processTerm: (term) => processQueryTerm(term) },
  });
  readonly #chunks = new Map<string, KnowledgeChunk>();
  readonly #chunkIdsByDocument = new Map<string, Set<string>>();
  /** How many chunks contain each term: lets answer extraction weigh rare words above common ones. */
  readonly #chunkFrequency = new Map<string, number>();

  /** Adds chunks; a chunk whose id is already indexed replaces the old one. */
  add(chunks: readonly KnowledgeChunk[]): void {
    for (const chunk of chunks) {
      if (this.#chunks.has(chunk.id)) this.#removeChunk(chunk.id);
      this.#search.add({ id: chunk.id, title: chunk.title, heading: chunk.heading ?? '', text: chunk.text });
      this.#chunks.set(chunk.id, chunk);
      for (const term of chunkTerms(chunk)) this.#chunkFrequency.set(term, (this.#chunkFrequency.get(term) ?? 0) + 1);
      let ids = this.#chunkIdsByDocument.get(chunk.documentId);
      if (!ids) this.#chunkIdsByDocument.set(chunk.documentId, (ids = new Set()));
      ids.add(chunk.id);
    }
  }

  removeDocument(documentId: string): void {
    for (const id of this.#chunkIdsByDocument.get(documentId) ?? []) this.#removeChunk(id);
    this.#chunkIdsByDocument.delete(documentId);
  }

  search(query: string | QualifiedQuery, limit = 5): SearchHit[] {
    const text = typeof query === 'string' ? query : `${query.main} ${query.qualifier}`;
    if (this.#chunks.size === 0 || analyzeQuery(text).length === 0) return [];
    const tree: Query =
      typeof query === 'string'
        ? query
        : { combineWith: 'OR', queries: [query.main, { queries: [query.qualifier], boostTerm: (term) => conceptBoost(term) * query.qualifierWeight }] };
    return this.#search
      .search(tree)
      .slice(0, limit)
      .flatMap((result) => {
        const chunk = this.#chunks.get(String(result.id));
        return chunk ? [{ chunk, score: result.score }] : [];
      });
  }

  get size(): number {
    return this.#chunks.size;
  }

  /** Number of chunks containing `term` (a stem or concept as produced by analyze). */
  chunkFrequency(term: string): number {
    return this.#chunkFrequency.get(term) ?? 0;
  }

  documentIds(): string[] {
    return [...this.#chunkIdsByDocument.keys()];
  }

  #removeChunk(id: string): void {
    const chunk = this.#chunks.get(id);
    if (!chunk) return;
    this.#search.discard(id);
    this.#chunks.delete(id);
    for (const term of chunkTerms(chunk)) {
      const remaining = (this.#chunkFrequency.get(term) ?? 1) - 1;
      if (remaining > 0) this.#chunkFrequency.set(term, remaining);
      else this.#chunkFrequency.delete(term);
    }
    this.#chunkIdsByDocument.get(chunk.documentId)?.delete(id);
  }
}

function chunkTerms(chunk: KnowledgeChunk): string[] {
  return analyze(`${chunk.title} ${chunk.heading ?? ''} ${chunk.text}`);
}

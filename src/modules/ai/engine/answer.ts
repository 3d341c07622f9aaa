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
import { ASKING_CONCEPTS, FRAMING_WORDS, splitCondition } from './clauses.ts';
import { spokenRank } from './spoken-frequency.ts';
import { CLOCK, EMAIL, MONEY, NAME, NUMBER, PHONE, STREET } from './facts.ts';
import { indexTokens, isConceptTerm, phraseMatches, processQueryTerm, processTerm, stem, tokenize, type SearchHit } from './retrieval.ts';

/** Below this confidence the engine hands the caller to a person instead of guessing. */
export const ANSWER_CONFIDENCE_THRESHOLD = 0.66;

const MAX_PASSAGES = 8;
const MIN_RELATIVE_PASSAGE_SCORE = 0.15;
const MAX_ANSWER_CHARS = 420;
/** A list item, table row or short paragraph is read out whole: its sentences depend on each other. */
const MAX_WHOLE_BLOCK_CHARS = 220;
/** Lines this short without a full stop are list items (they may belong to a lead-in ending in ":"). */
const MAX_LIST_LINE_CHARS = 80;
const CONTEXT_CREDIT = 0.6; // question word found only in the heading or title
/** Question word named by the passage's own section heading ("Desserts" over "Tiramisu $10."): the section is about it. */
const SECTION_CREDIT = 0.85;
const CONCEPT_CREDIT = 0.8; // question word matched through a synonym concept
const PARTIAL_CREDIT = 0.7; // prefix / one-typo match ("whiten" vs "whitening", "apointment")
/** Weight of a question word the knowledge base never uses: may be the topic we lack, may be noise ("GPS"). */
const UNKNOWN_WORD_WEIGHT = 0.6;
/** ... unless it is uncommon in speech: then it most likely names the topic we lack ("adopt", "acupuncture"). */
const UNKNOWN_UNCOMMON_WORD_WEIGHT = 1;
/** Words past this spoken-English rank are uncommon. */
const COMMON_SPOKEN_RANK = 2000;
/** The most common words of speech ("home", "old", "people") frame a question more than they name its topic. */
const VERY_COMMON_SPOKEN_RANK = 500;
const VERY_COMMON_WORD_FACTOR = 0.4;
/** Weight of a word in a trailing condition ("... if I don't have insurance"), in ranking and in coverage. */
export const CONDITION_WEIGHT = 0.5;
/** Bonus for a sentence holding the kind of fact the question asks for (a price, a time, an address...). */
const ANSWER_TYPE_BONUS = 0.12;
/**
 * Answerability model: a weighted sum of the signals (see answerability()),
 * fitted on the development businesses plus the dental fixture, each scored by
 * a model tuned on the others (leave one business out), wrong answers first.
 * A clear winner over the best other passage predicts a right answer almost as
 * well as covering the question's words; words the knowledge base never uses
 * count against. The heading signal adds nothing once coverage credits
 * headings, so it weighs 0.
 */
const ANSWERABILITY_WEIGHTS = { coverage: 0.5, margin: 0.45, unknown: -0.2, typeMatch: 0.05 };
/** A margin this large (relative to the best score) counts fully. */
const FULL_MARGIN = 0.25;
/** A passage with the fact asked for names the question's topic when it covers this share of what a better passage without the fact covers. */
const TOPIC_SHARE = 0.5;
/** Scales the bonus for sentences under a heading that covers the question. */
const HEADING_MATCH_BONUS = 0.2;

const WEAK_WORDS = new Set(FRAMING_WORDS.map(stem));

const TIME_UNIT = '(?:second|minute|min|hour|hr|day|night|week|month|year|season|term|semester)s?';
const DURATION = new RegExp(
  `\\b(?:\\d+(?:[.,]\\d+)?|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|ninety|few|several|half an?|a couple of)[\\s-]+(?:\\w+[\\s-]+)?${TIME_UNIT}\\b|\\bsame[ -]day\\b|\\bovernight\\b|\\bhalf an hour\\b|\\blifetime\\b|\\buntil\\b|\\bby \\w+day\\b`,
  'i',
);

const DAY_OR_TIME = new RegExp(`${CLOCK.source}|\\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\\b|\\bweekdays?\\b|\\bweekends?\\b`, 'i');

/**
 * Kinds of fact a question can ask for (its answer type), and how a sentence
 * holding one looks. For `required` kinds a sentence without such a fact is not
 * an answer ("how much is X?" answered without a price): such sentences are not
 * chosen, and when no passage holds one the engine says it does not know.
 */
export interface AnswerType {
  name: string;
  asks: RegExp;
  holds: RegExp;
  required?: boolean;
}

export const ANSWER_TYPES: AnswerType[] = [
  {
    name: 'price',
    // "How much driving does she get?", "how much time?", "how much should he be practicing?" ask
    // an amount of something else, not a price ("how much is parking?" still asks a price).
    asks: /\bhow much\b(?! (?:(?:actual|more|extra|of the) )?(?:time|space|room|notice|weight|stuff|help|experience|\w+ing)\b| (?:\w+ ){1,4}be \w+ing\b)|\bcosts?\b|\bprices?\b|\bfees?\b|\bcharge\b|\bexpensive\b|\bcheap(?:er|est)?\b|\bset (?:me|us) back\b|\brun (?:me|us)\b|\bminimum\b|\bspend\b|\brates?\b/i,
    holds: MONEY,
    required: true,
  },
  // "Do the classes cost extra?" is a yes/no question about a price: "included" or "free" answers it as well as a price.
  { name: 'price_yes_no', asks: /^(?:\W*(?:so|and|hi|hey|ok|okay|um|uh)\W+)*(?:do|does|is|are|will|would|can)\b.*\b(?:extra|cost|costs|charge|charged|free|included)\b/i, holds: new RegExp(`${MONEY.source}|\\d+\\s?%|\\bincluded\\b|\\bincludes?\\b`, "i"), required: true },
  { name: 'clock', asks: /\bwhat time\b|\bhow (?:late|early)\b|\bhours\b|\bwhen (?:do|does|are|is) (?:you|it|the \w+) (?:open|close)/i, holds: CLOCK, required: true },
  { name: 'when', asks: /\bwhen\b|\bopen\b|\bclosed?\b/i, holds: DAY_OR_TIME },
  { name: 'address', asks: /\baddress\b|\blocated\b|\blocation\b|\bwhere(?:'s| is| are)? (?:you|your|y'all|the (?:office|shop|store|clinic|restaurant|gym|place))\b|\bwhere exactly\b/i, holds: STREET, required: true },
  { name: 'where', asks: /\bwhere\b/i, holds: new RegExp(`${STREET.source}|${EMAIL.source}|${PHONE.source}`) },
  { name: 'phone', asks: /\b(?:phone|telephone|fax) number\b|\bwhat(?:'s| is)? (?:the|your) (?:\w+ )?number\b|\bwho (?:do|should|can) i call\b|\bwhat number\b/i, holds: PHONE, required: true },
  { name: 'email', asks: /\be-?mail\b/i, holds: EMAIL, required: true },
  { name: 'person', asks: /\bwho(?:'s| is| are)? (?!do|should|can)\w/i, holds: NAME, required: true },
  // "How long have you been around?" asks since when: a year or a number of years.
  { name: 'since', asks: /\bhow long (?:have|has|ha've)\b.*\bbeen\b/i, holds: /\b(?:1[89]|20)\d\d\b|\b\d+ years\b|\b(?:twenty|thirty|forty|fifty|ten|fifteen) years\b/i, required: true },
  // "How long does it take / last / is the warranty?" asks for a stretch of time, not any number ("one clogged drain").
  // ("How long have you been around?" asks since when: see 'since'.)
  { name: 'duration', asks: /\bhow long\b(?! (?:have|has|ha've)\b.*\bbeen\b)/i, holds: DURATION, required: true },
  { name: 'quantity', asks: /\bhow (?:long|many|often|old|far|soon)\b/i, holds: NUMBER },
  { name: 'discount', asks: /\bdiscounts?\b|\bdeals?\b|\boff\b/i, holds: /\d+\s?%|\bpercent\b|[$]\d+ less\b/i },
  // "How do I book?" asks for a way: online, by phone, through an app, at the desk; a sentence
  // with none of them does not answer it ("We hold a reserved table for 15 minutes").
  // "How do I get there?" asks for directions instead (see 'where').
  { name: 'how_to', asks: /\bhow (?:do|can|would|should) (?:i|we)\b(?! get (?:there|here|to)\b)/i, required: true, holds: /\bonline\b|\bwebsite\b|\bapp\b|\bcall\b|\bby (?:phone|email|text)\b|\bthrough\b|\bin person\b|\bat the (?:front )?desk\b/i },
  // "What plans do you take?" asks for a list: a line introducing one ("...the following plans:") holds it.
  { name: 'list', asks: /\b(?:what|which) (?:kinds? of |types? of |sorts? of )?\w+ (?:do|does|can) (?:you|y'all|they) (?:take|accept|offer|have|carry|sell|support|speak)\b/i, holds: /:\s*$/ },
];

/**
 * "How many points ...?" asks for a count of points: a sentence answers it only with a number
 * counting that thing ("2 points", "three free lessons"), not with any number ("8 hours").
 */
function countType(question: string): AnswerType[] {
  const noun = /\bhow many (?!of\b|more\b|times\b)([a-z]{3,})\b/i.exec(question)?.[1];
  if (!noun) return [];
  const root = stem(noun).slice(0, Math.max(3, stem(noun).length));
  const count = `(?:\\d+|${NUMBER_WORDS.join('|')})`;
  return [{ name: 'count', asks: /./, holds: new RegExp(`\\b${count}\\s+(?:[a-z-]+\\s+){0,2}${root}`, 'i'), required: true }];
}

const NUMBER_WORDS = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'fifteen', 'twenty', 'thirty', 'forty', 'fifty', 'hundred'];

/** Corpus statistics the answer uses to weigh question words; a KnowledgeIndex provides them. */
export interface TermStatistics {
  readonly size: number;
  chunkFrequency(term: string): number;
}

export interface AnswerSentence {
  text: string;
  chunkId: string;
  chunkHeading: string | null;
  documentId: string;
  score: number;
}

export interface AnswerSignals {
  /** 0..1: weighted share of the question's words the chosen sentences cover (with their heading). */
  coverage: number;
  /** 0..1: share of the question the passage heading covers. */
  heading: number;
  /** 0..1: how far the best sentence scores above the best one of any other passage. */
  margin: number;
  /** 1: holds the kind of fact asked for; 0: does not; 0.5: the question asks for no particular kind. */
  typeMatch: number;
  /** 0..1: share of the question (by weight) in words the knowledge base never uses: a topic it may lack. */
  unknown: number;
  /** 0..1: share of the question in words the knowledge base uses elsewhere but the answer does not cover. */
  missed: number;
  /** 0..1: coverage by the chosen sentences alone, without their headings. */
  own: number;
}

export interface ExtractedAnswer {
  text: string;
  /** Distinct documentIds of the sentences used. */
  citations: string[];
  /** 0..1: the answerability score (see answerability()). */
  confidence: number;
  signals: AnswerSignals;
  /** The best other passage holding the kind of fact asked for, when there is one: a second reading of the question, `margin` behind. */
  rival?: { heading: string; documentId: string; text: string; margin: number };
  sentences: AnswerSentence[];
}

export interface QuestionWord {
  stem: string;
  concepts: string[];
  weight: number;
  /** The knowledge base uses the word (or one of its concepts). */
  known: boolean;
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
  /** Share of the question the passage's heading covers. */
  headingCoverage: number;
  /** Holds a fact of a kind the question asks for. */
  typed: boolean;
}

export function questionWords(question: string, stats?: TermStatistics): QuestionWord[] {
  const seen = new Set<string>();
  const words: QuestionWord[] = [];
  // The words of a phrase the concept table knows ("set me back") count once, as its concept.
  const inPhrase = new Set(phraseMatches(question, 'query').flatMap((m) => Array.from({ length: m.length }, (_, k) => m.start + k)));
  // A trailing condition qualifies the question without being its topic (see clauses.ts).
  const conditional = splitCondition(question)?.condition ?? new Set<number>();
  const tokens = [
    ...tokenize(question).flatMap((token, i) => (inPhrase.has(i) ? [] : [{ token, conditional: conditional.has(i) }])),
    ...phraseMatches(question, 'query').map((m) => ({ token: m.concept, conditional: conditional.has(m.start) })),
  ];
  for (const { token, conditional: inCondition } of tokens) {
    const terms = processQueryTerm(token);
    const stem = terms[0];
    if (!stem || seen.has(stem)) continue;
    seen.add(stem);
    const concepts = terms.slice(1).filter(isConceptTerm);
    // A word the concept table knows is business vocabulary however common it is in speech.
    const veryCommon = concepts.length === 0 && !isConceptTerm(stem) && (spokenRank(stem) ?? Infinity) <= VERY_COMMON_SPOKEN_RANK;
    const weight =
      (WEAK_WORDS.has(stem) ? 0.4 : 1) * (inCondition ? CONDITION_WEIGHT : 1) * (stats ? rarityWeight(stem, concepts, stats) * (veryCommon ? VERY_COMMON_WORD_FACTOR : 1) : 1);
    const known = !stats || stats.chunkFrequency(stem) > 0 || concepts.some((c) => stats.chunkFrequency(c) > 0);
    words.push({ stem, concepts, weight, known });
  }
  return words;
}

/** IDF scaled so a word in one chunk weighs 1 and a word in most chunks about 0.3. */
function rarityWeight(stem: string, concepts: string[], stats: TermStatistics): number {
  let frequency = stats.chunkFrequency(stem);
  if (frequency === 0 && concepts.length > 0) frequency = Math.max(...concepts.map((c) => stats.chunkFrequency(c)));
  if (frequency === 0) return (spokenRank(stem) ?? Infinity) > COMMON_SPOKEN_RANK ? UNKNOWN_UNCOMMON_WORD_WEIGHT : UNKNOWN_WORD_WEIGHT;
  const n = Math.max(stats.size, 2);
  const idf = Math.log(1 + n / (1 + frequency)) / Math.log(1 + n / 2);
  return Math.min(1.2, Math.max(0.3, idf));
}

export function extractAnswer(question: string, hits: SearchHit[], stats?: TermStatistics): ExtractedAnswer | null {
  const words = questionWords(question, stats);
  if (words.length === 0 || hits.length === 0) return null;
  const totalWeight = words.reduce((sum, w) => sum + w.weight, 0);
  const topScore = hits[0]!.score;
  const answerTypes = [...ANSWER_TYPES.filter((t) => t.asks.test(question)), ...countType(question)];
  const questionStems = new Set(words.map((w) => w.stem));

  const candidates: Candidate[] = [];
  hits.slice(0, MAX_PASSAGES).forEach((hit, rank) => {
    // Generous: a short table row can answer even when its long passage ranks low.
    if (hit.score < topScore * MIN_RELATIVE_PASSAGE_SCORE) return;
    const contextTerms = termsOf(`${hit.chunk.title} ${hit.chunk.heading ?? ''}`, questionStems);
    // The last heading of the path names what this section is about; earlier ones and the title only place it.
    const sectionTerms = termsOf(hit.chunk.heading?.split(' > ').pop() ?? '', questionStems);
    // A section whose heading names the question's topic is about it; a passing mention elsewhere is not.
    const headingTerms = termsOf(hit.chunk.heading ?? '', questionStems);
    const headingCoverage = weightedCoverage(words, words.map((w) => credit(w, headingTerms)), totalWeight);
    // Retrieval rank breaks ties between equally covering sentences.
    const rankPrior = 0.08 * (hit.score / topScore) - 0.01 * rank;
    let order = 0;
    hit.chunk.text.split('\n').forEach((blockText, block) => {
      for (const text of splitSentences(blockText)) {
        const sentenceTerms = termsOf(text, questionStems);
        const own = words.map((w) => credit(w, sentenceTerms));
        const withContext = words.map((w, i) => Math.max(own[i]!, CONTEXT_CREDIT * credit(w, contextTerms), SECTION_CREDIT * credit(w, sectionTerms)));
        const coverage = weightedCoverage(words, withContext, totalWeight);
        const ownCoverage = weightedCoverage(words, own, totalWeight);
        const typed = answerTypes.some((t) => t.holds.test(text));
        const typeBonus = typed ? ANSWER_TYPE_BONUS : 0;
        // A question in the text ("Do you take walk-ins?") is not its own answer.
        const questionPenalty = /\?["')”’]*$/.test(text) ? 0.3 : 0;
        const lengthPenalty = text.length > 250 ? 0.05 : 0;
        const score = coverage + 0.15 * ownCoverage + HEADING_MATCH_BONUS * headingCoverage + rankPrior + typeBonus - questionPenalty - lengthPenalty;
        candidates.push({ text, hit, block, order: order++, own, withContext, score, headingCoverage, typed });
      }
    });
  });
  if (candidates.length === 0) return null;
  candidates.sort((a, b) => b.score - a.score);

  // Sentence choice by answer type: a "how much" question is answered by a sentence with a price or not at all.
  const required = answerTypes.filter((t) => t.required);
  const eligible = required.length === 0 ? candidates : candidates.filter((c) => required.some((t) => t.holds.test(c.text)));
  if (eligible.length === 0) return null;
  const best = eligible[0]!;
  const chosen = chooseSentences(best, candidates, words);
  const covered = words.map((_, i) => Math.max(...chosen.map((c) => c.withContext[i]!)));
  const coverage = weightedCoverage(words, covered, totalWeight);
  // A second reading is another section: a row of the same table split into the next passage
  // ("Furnace and AC tune-up together: $179" under the same "Prices") is a sibling, not a rival.
  const rival = eligible.find((c) => c.hit.chunk.id !== best.hit.chunk.id && c.hit.chunk.heading !== best.hit.chunk.heading);
  const rivalMargin = rival ? Math.max(0, (best.score - rival.score) / best.score) : 1;
  // A passage without the kind of fact asked for that matches the question better ("how much
  // is a bike rental?" and a rentals passage with no price) takes the margin away: the best
  // passage holding a price is then only the one with a price, not a clear winner. Such a
  // passage cannot answer, so it counts only once it comes within FULL_MARGIN of outscoring.
  // When the best passage with the fact names the topic about as well ("Clearing one clogged drain: $149"
  // against "Drain cleaning: kitchen sinks, ..."), the other one only says more about it.
  const untyped = candidates.find((c) => c.hit.chunk.id !== best.hit.chunk.id && !eligible.includes(c));
  const topicCoverage = (c: Candidate) => words.reduce((sum, w, i) => sum + (isTopicWord(w) ? w.weight * c.withContext[i]! : 0), 0);
  const namesTopic = untyped !== undefined && topicCoverage(best) >= TOPIC_SHARE * topicCoverage(untyped);
  const untypedMargin = untyped && !namesTopic ? Math.max(0, (best.score - untyped.score) / best.score + FULL_MARGIN) : 1;
  const margin = Math.min(rivalMargin, untypedMargin);
  const typeMatch = answerTypes.length === 0 ? 0.5 : chosen.some((c) => c.typed) ? 1 : 0;
  const share = (keep: (w: QuestionWord, i: number) => boolean) => words.reduce((sum, w, i) => sum + (keep(w, i) ? w.weight : 0), 0) / totalWeight;
  const ownCovered = words.map((_, i) => Math.max(...chosen.map((c) => c.own[i]!)));
  const signals: AnswerSignals = {
    coverage: round2(coverage),
    heading: round2(best.headingCoverage),
    margin: round2(margin),
    typeMatch,
    unknown: round2(share((w, i) => !w.known && covered[i]! === 0)),
    missed: round2(share((w, i) => w.known && covered[i]! < 0.5)),
    own: round2(weightedCoverage(words, ownCovered, totalWeight)),
  };
  const ordered = [...chosen].sort((a, b) => a.order - b.order);
  return {
    text: ordered.map((c) => asSpokenSentence(c.text)).join(' '),
    citations: [...new Set(ordered.map((c) => c.hit.chunk.documentId))],
    confidence: answerability(signals),
    signals,
    sentences: [best, ...ordered.filter((c) => c !== best)].map((c) => ({ text: c.text, chunkId: c.hit.chunk.id, chunkHeading: c.hit.chunk.heading, documentId: c.hit.chunk.documentId, score: round2(c.score) })),
    ...(rival ? { rival: { heading: rival.hit.chunk.heading ?? rival.hit.chunk.title, documentId: rival.hit.chunk.documentId, text: rival.text, margin: round2(rivalMargin) } } : {}),
  };
}

/**
 * How sure the engine is that the answer answers the question, from several
 * signals: how much of the question the chosen sentences cover (with their
 * headings), how far the best passage stands above the next one, how much of
 * the question is in words the knowledge base never uses, and whether the
 * sentence holds the kind of fact asked for. See ANSWERABILITY_WEIGHTS.
 */
export function answerability(s: AnswerSignals): number {
  const score =
    ANSWERABILITY_WEIGHTS.coverage * s.coverage +
    ANSWERABILITY_WEIGHTS.margin * Math.min(1, s.margin / FULL_MARGIN) +
    ANSWERABILITY_WEIGHTS.unknown * s.unknown +
    ANSWERABILITY_WEIGHTS.typeMatch * s.typeMatch;
  return round2(Math.max(0, Math.min(1, score)));
}

/**
 * The best sentence, read with the rest of its block when the block is short
 * (a list item, a table row, an FAQ answer) and with the line introducing it
 * when that ends in ":" ("We are in network with the following plans:").
 * A best sentence that is itself such a lead-in gets the lines it introduces.
 * Otherwise one more sentence of the same passage is added if it covers
 * question words the first misses while staying on the same subject.
 */
function chooseSentences(best: Candidate, candidates: Candidate[], words: QuestionWord[]): Candidate[] {
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
  for (const [stem, ...concepts] of analyzedTokens(text)) {
    stems.add(stem!);
    if (isConceptTerm(stem!)) independentConcepts.add(stem!);
    if (!questionStems.has(stem!)) for (const c of concepts) independentConcepts.add(c);
  }
  return { stems, independentConcepts };
}

// Sentences are analysed once and remembered: the same passages come back turn after turn.
const ANALYSIS_CACHE_SIZE = 50_000;
const analysisCache = new Map<string, string[][]>();

/** Per token of `text` as indexed: its stem (or concept) followed by its concepts. Stopwords are left out. */
function analyzedTokens(text: string): string[][] {
  let analyzed = analysisCache.get(text);
  if (!analyzed) {
    analyzed = indexTokens(text).map((token) => processTerm(token)).filter((terms) => terms.length > 0);
    if (analysisCache.size >= ANALYSIS_CACHE_SIZE) analysisCache.clear();
    analysisCache.set(text, analyzed);
  }
  return analyzed;
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

/** A question word that names what is asked about, not the kind of fact wanted ("cost", "where") nor framing ("offer"). */
function isTopicWord(w: QuestionWord): boolean {
  return !WEAK_WORDS.has(w.stem) && !ASKING_CONCEPTS.has(w.stem) && !w.concepts.some((c) => ASKING_CONCEPTS.has(c));
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

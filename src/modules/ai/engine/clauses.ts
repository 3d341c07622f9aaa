// The parts of a caller's question: what it asks about (its main clause) and a
// trailing condition that only qualifies it. In "How much is a cleaning if I
// don't have insurance?" the caller wants the price of a cleaning; "insurance"
// narrows the question but is not its topic, so a passage about the uninsured
// membership plan must not win over the price list just because it says
// "insurance" louder. In "Is it more expensive if you come out on a Sunday?"
// the main clause names no topic of its own ("expensive" only says a price is
// wanted), so there the condition IS the topic and nothing is lessened.
import { isConceptTerm, processQueryTerm, stem, tokenize } from './retrieval.ts';

/** Words callers use to frame a request that say little about what they want. */
export const FRAMING_WORDS = ['offer', 'provide', 'service', 'services', 'available', 'make', 'able', 'work', 'help', 'there', 'take', 'happen'];
const FRAMING_STEMS = new Set(FRAMING_WORDS.map(stem));
/** Concepts that say what kind of fact is wanted (a price, a time, a place), not what it is about. */
export const ASKING_CONCEPTS = new Set(['_price', '_hours', '_closing', '_location', '_contact', '_duration']);

/** Words that open a condition or reason clause. */
const CONDITION_OPENERS = new Set(['if', 'because', 'cause', 'cuz', 'unless', 'assuming']);
/** Two-word openers ("in case"), by their first word. */
const CONDITION_OPENER_PAIRS = new Map([['in', 'case'], ['provided', 'that']]);

export interface QuestionClauses {
  /** tokenize(question), the positions the sets below refer to. */
  tokens: string[];
  /** Positions of the tokens of the trailing condition. */
  condition: Set<number>;
  /** The question without its condition, and the condition alone (for retrieval). */
  mainText: string;
  conditionText: string;
}

/** A token that names what the question is about: not filler, not a framing word, not a word that only asks for a kind of fact. */
export function isTopicToken(token: string): boolean {
  const [term, ...concepts] = processQueryTerm(token);
  return term !== undefined && !isConceptTerm(term) && !FRAMING_STEMS.has(term) && !concepts.some((c) => ASKING_CONCEPTS.has(c));
}

/**
 * Splits off the condition clause when the rest of the question names a topic
 * of its own. Returns null when there is none. The condition runs from its
 * opener to the next comma or sentence end.
 */
export function splitCondition(question: string): QuestionClauses | null {
  const segments = question.split(/[,;.?!]+/);
  const tokens: string[] = [];
  const condition = new Set<number>();
  for (const segment of segments) {
    const words = tokenize(segment);
    const offset = tokens.length;
    tokens.push(...words);
    if (condition.size > 0) continue;
    const opener = words.findIndex((w, i) => CONDITION_OPENERS.has(w) || (CONDITION_OPENER_PAIRS.has(w) && CONDITION_OPENER_PAIRS.get(w) === words[i + 1]));
    // The condition must follow something: "if I cancel, do I lose my deposit?" opens with it and is the question.
    if (opener < 0 || offset + opener === 0) continue;
    for (let i = opener; i < words.length; i++) condition.add(offset + i);
  }
  if (condition.size === 0) return null;
  const main = tokens.filter((_, i) => !condition.has(i));
  if (!main.some(isTopicToken)) return null;
  return { tokens, condition, mainText: main.join(' '), conditionText: tokens.filter((_, i) => condition.has(i)).join(' ') };
}

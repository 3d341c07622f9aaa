// Has the caller finished their line? A fixed silence cannot tell "What are your hours?" from
// "I'd like to book an appointment for ... Tuesday", so a live agent's listening judges the
// words recognised so far (the recogniser's transcript of the audio up to the pause) and waits
// a silence that fits them: a complete question or sentence ends soon, a line that trails off
// on "and", "um", "for", "my" or "I'd like" waits much longer, anything else waits the usual.
//
// No language model runs here: this is a word-list heuristic on the last words and the shape
// of the line, documented in docs/ai.md ("When the caller has finished") and measured by
// `npm run eval:ai-turn` on spoken lines with mid-sentence pauses (tuned on one set, scored on
// a held-out one). Punctuation is ignored on purpose: not every recogniser adds it, and one
// that does marks a pause as a full stop as often as not.

export type UtteranceJudgement = 'complete' | 'incomplete' | 'unsure';

/**
 * Seconds of quiet, counted from the voice-activity detector's "stopped talking" (which itself
 * comes after 0.3 s of quiet), after which a line so judged ends. `unsure` uses the collect's
 * own speechTimeoutSeconds.
 */
export const QUIET_AFTER_COMPLETE_SECONDS = 0.1;
export const QUIET_AFTER_INCOMPLETE_SECONDS = 2.2;

/** Words a line does not end on: it goes on after them (conjunctions, prepositions, articles, fillers). */
const CONTINUES = new Set([
  // conjunctions and clause openers
  'and', 'but', 'or', 'so', 'because', 'cause', 'if', 'when', 'while', 'then', 'than', 'that', 'which', 'who', 'whose', 'where', 'whether', 'although', 'though', 'unless', 'until', 'since', 'as', 'also', 'plus',
  // prepositions
  'to', 'for', 'of', 'with', 'on', 'at', 'in', 'from', 'about', 'by', 'into', 'onto', 'after', 'before', 'between', 'around', 'through', 'during', 'without', 'like', 'near', 'over', 'under', 'via', 'per',
  // articles, determiners and possessives
  'a', 'an', 'the', 'my', 'your', 'our', 'their', 'his', 'her', 'its', 'this', 'these', 'those', 'some', 'any', 'each', 'every', 'another', 'other', 'more', 'most', 'very', 'really', 'just', 'maybe', 'next',
  // fillers and hesitations
  'um', 'umm', 'uh', 'uhh', 'er', 'erm', 'ah', 'hmm', 'mm', 'well', 'actually', 'basically',
  // subjects, auxiliaries and verbs that need what follows
  'i', 'we', 'they', 'he', 'she', "i'm", "i'd", "i'll", "i've", "we're", "we'd", "we'll", "you're", "it's", "there's",
  'am', 'is', 'are', 'was', 'were', 'be', 'been', 'being', 'do', 'does', 'did', 'have', 'has', 'had', 'can', 'could', 'would', 'will', 'should', 'shall', 'may', 'might', 'must',
  'want', 'wanted', 'wanna', 'need', 'needed', 'like', 'looking', 'wondering', 'trying', 'going', 'gonna', 'calling', 'hoping', 'thinking', 'asking', 'get', 'make', 'book', 'schedule', 'know', 'tell', 'see',
  // verbs that take an object ("do you take | Delta Dental?", "I want to reschedule | my cleaning")
  'take', 'accept', 'offer', 'bring', 'send', 'give', 'show', 'update', 'leave', 'reschedule', 'cancel', 'move', 'change', 'pay', 'find',
  'not', "don't", "can't", "won't", "didn't", "doesn't", "isn't", "aren't",
]);

/** Two-word endings that leave the line open although their last word could end one ("is there", "do you"). */
const CONTINUES_PAIRS = new Set(['is there', 'are there', 'do you', 'can you', 'could you', 'would you', 'will you', 'can i', 'could i', 'may i', 'do i', 'should i', 'what is', "what's the", 'how do', 'how much', 'how many', 'how long', 'what time', 'kind of', 'sort of', 'a lot', 'let me', 'tell me', 'show me', 'give me', 'send me', 'ask you']);

/** Lines complete in a word or two: answers, thanks and farewells. */
const SHORT_COMPLETE = new Set([
  'yes', 'yeah', 'yep', 'yup', 'no', 'nope', 'nah', 'okay', 'ok', 'sure', 'right', 'correct', 'exactly', 'great', 'perfect', 'fine', 'thanks', 'thank', 'bye', 'goodbye', 'cheers', 'please',
]);
// Not "hi" or "hello": a greeting opens a line more often than it is one ("Hi there. | What time...").

/** Words that go with SHORT_COMPLETE ones in a short answer ("thank you so much", "okay then"). */
const POLITE = new Set(['you', 'so', 'much', 'very', 'then', 'there', 'that', 'all', 'good', 'have', 'a', 'nice', 'day']);

/** Words that open a question; "what are your hours" is complete once it stops on a content word. */
const QUESTION_OPENERS = new Set(['what', "what's", 'when', "when's", 'where', "where's", 'who', "who's", 'why', 'how', "how's", 'which', 'is', 'are', 'do', 'does', 'did', 'can', 'could', 'would', 'will', 'should', 'may', 'have', 'has']);

/** The words of a transcript, lower case, without punctuation (apostrophes kept: "i'd"). */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().replace(/[’‘]/g, "'").replace(/[^a-z0-9' ]+/g, ' ').split(/\s+/).map((w) => w.replace(/^'+|'+$/g, '')).filter(Boolean);
}

/** Judges the words heard so far (see the file's comment for the rule). */
export function judgeUtterance(text: string): UtteranceJudgement {
  const words = wordsOf(text);
  if (words.length === 0) return 'unsure';
  const last = words.at(-1)!;
  const pair = words.slice(-2).join(' ');
  if (CONTINUES.has(last) || CONTINUES_PAIRS.has(pair)) return 'incomplete';
  // "yes", "no thank you", "okay bye": answers and farewells need no more.
  if (words.every((w) => SHORT_COMPLETE.has(w) || POLITE.has(w))) return 'complete';
  if (words.length <= 2) return 'unsure';
  // A wh-question that stops on a content word has asked it ("where are you located").
  if (words.slice(0, 3).some((w) => QUESTION_OPENERS.has(w) && w.startsWith('wh'))) return 'complete';
  // A yes/no question needs its verb, subject and what is asked: "is Doctor Patel | available".
  if (QUESTION_OPENERS.has(words[0]!)) return words.length >= 4 ? 'complete' : 'unsure';
  // A statement of four words or more that stops on a content word ("I need to cancel my appointment").
  return words.length >= 4 ? 'complete' : 'unsure';
}

/** Seconds of quiet after the detector's "stopped talking" that end a line judged so. */
export function quietToEnd(judgement: UtteranceJudgement, unsureSeconds: number): number {
  if (judgement === 'complete') return Math.min(QUIET_AFTER_COMPLETE_SECONDS, unsureSeconds);
  if (judgement === 'incomplete') return Math.max(QUIET_AFTER_INCOMPLETE_SECONDS, unsureSeconds);
  return unsureSeconds;
}

// The concept table (concepts.json): how callers speak mapped to how
// businesses write. Words and phrases of one concept meet each other in
// retrieval and in answer coverage through a shared concept token ("_price").
// Loaded once; plain data, so reviewing or extending it needs no code change.
import { readFileSync } from 'node:fs';

interface ConceptTable {
  synonyms: Record<string, string[]>;
  categories: Record<string, { general: string[]; members: string[] }>;
  kinds: Record<string, string[]>;
}

const table = JSON.parse(readFileSync(new URL('./concepts.json', import.meta.url), 'utf8')) as ConceptTable;

export const CONCEPT_PREFIX = '_';

/** Where a table entry applies: to documents as indexed, to questions as asked, or both. */
interface Entry {
  concept: string;
  index: boolean;
  query: boolean;
}

/** Every entry as its words and where it applies. Single words and phrases alike; stemming is the caller's. */
export function conceptEntries(): { words: string[]; entry: Entry }[] {
  const entries: { words: string[]; entry: Entry }[] = [];
  const add = (phrase: string, concept: string, index: boolean, query: boolean) =>
    entries.push({ words: phrase.toLowerCase().split(/\s+/), entry: { concept: `${CONCEPT_PREFIX}${concept}`, index, query } });
  for (const [concept, words] of Object.entries(table.synonyms)) for (const w of words) add(w, concept, true, true);
  // A general word ("weekend") in a question meets a member ("Saturday") in a document, not the other way round.
  for (const [concept, { general, members }] of Object.entries(table.categories)) {
    for (const w of general) add(w, concept, true, true);
    for (const w of members) add(w, concept, true, false);
  }
  // A specific word ("parrot") in a question meets the general one ("birds") in a document.
  for (const [concept, [general, ...members]] of Object.entries(table.kinds)) {
    add(general!, concept, true, true);
    for (const w of members) add(w, concept, false, true);
  }
  return entries;
}

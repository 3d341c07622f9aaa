// How common a word is in everyday spoken English (spoken-ranks.json, built by
// scripts/build-spoken-ranks.ts from SUBTLEXus counts). Callers wrap what they
// ask in conversation ("my water heater is like fifteen years old"): the most
// common words of speech rarely name the topic, while an uncommon word the
// documents never use ("adopt", "acupuncture") usually names one they lack.
import { readFileSync } from 'node:fs';

const { ranks } = JSON.parse(readFileSync(new URL('./spoken-ranks.json', import.meta.url), 'utf8')) as { ranks: Record<string, number> };
const RANKS = new Map(Object.entries(ranks));

/** Rank of a stem among the most frequent spoken words (1 = most frequent); undefined when it is not among them. */
export function spokenRank(stem: string): number | undefined {
  return RANKS.get(stem);
}

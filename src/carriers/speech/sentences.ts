// A prompt's sentences, so that speaking can start once the first is synthesised rather than
// after the whole reply (a new sentence costs eSpeak NG about a CPU-second on a busy machine,
// an endpoint a round trip per request either way). A full stop inside "a.m. to", "Dr. Patel"
// or "12.50" is not a sentence end: only . ! ? followed by a space and a capital letter or digit
// split, and never after a title or other known abbreviation. "7:00 p.m. Anything else?" does
// split: the pieces play back to back, so a wrong split costs a little intonation, no pause.

const ABBREVIATIONS = new Set(['dr', 'mr', 'mrs', 'ms', 'st', 'no', 'mt', 'ft', 'jr', 'sr', 'vs', 'etc', 'inc', 'ltd', 'co', 'ave', 'rd', 'blvd', 'apt', 'ste', 'e.g', 'i.e']);

export function sentencesOf(text: string): string[] {
  const out: string[] = [];
  let from = 0;
  for (const match of text.matchAll(/[.!?]+\s+(?=[A-Z0-9"'(])/g)) {
    const end = match.index! + match[0].trimEnd().length;
    const lastWord = text.slice(from, end).trim().split(/\s+/).at(-1)?.replace(/[.!?]+$/, '').toLowerCase() ?? '';
    if (ABBREVIATIONS.has(lastWord)) continue;
    out.push(text.slice(from, end).trim());
    from = match.index! + match[0].length;
  }
  const rest = text.slice(from).trim();
  if (rest) out.push(rest);
  return out.length ? out : [text];
}

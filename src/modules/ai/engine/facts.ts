// How a sentence holding each kind of fact looks: a price, a clock time, a
// street address, a phone number, an email address, a person's name. Answer
// choice uses them to match a question's answer type; the index uses them so a
// passage holding a fact is found by the concept asked for ("where" finds an
// address even when the passage never says "address" or "located").
export const MONEY = /[$€£]\s?\d|\b\d+\s?(?:dollars|euros)\b|\bfree\b|\bno (?:extra )?(?:charge|cost|fee)\b|\bhalf-price\b/i;
export const CLOCK = /\b\d{1,2}(?::\d{2})?\s?(?:a\.?m\b|p\.?m\b)|\b\d{1,2}:\d{2}\b|\bclosed\b|\bnoon\b|\bmidnight\b|\b24 hours\b|\ball night\b/i;
export const STREET = /\b\d+\s+(?:[A-Z][A-Za-z]*\.?\s+){0,3}(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Way|Place|Pl|Court|Ct|Highway|Hwy|Parkway|Pkwy)\b/;
export const PHONE = /(?:\+?1[\s.-])?\(?\b\d{3}\)?[\s.-]\d{3}[\s.-]\d{4}\b/;
export const EMAIL = /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/;
/** Words that end the name of a place or an organisation, not of a person ("Auto Care", "Jazz Band"). */
const ORGANISATION_NOUNS =
  'Care|Center|Centre|Studio|Band|Shop|Plaza|Street|Road|Avenue|Boulevard|Clinic|School|Hospital|Inn|Club|Company|Group|Services?|' +
  'Community|Academy|Hall|House|Tavern|Mountain|Park|Church|College|University|Office|Motors|Auto|Fitness|Dental|Storage|Market|Bank|Library';
/**
 * A person: a title and a name ("Dr. Patel"), or two capitalised words standing alone. Three or more in a
 * row ("Kowalski Auto Care", "The Community Jazz Band"), or two after "the"/"our", name an organisation.
 */
export const NAME = new RegExp(
  `\\b(?:Dr|Mr|Mrs|Ms)\\.?\\s+[A-Z]|(?<![A-Z][a-z]+ )(?<!\\b(?:[Tt]he|[Oo]ur|[Aa]n?) )\\b[A-Z][a-z]+ (?!(?:${ORGANISATION_NOUNS})\\b)[A-Z][a-z]+\\b(?! [A-Z][a-z])`,
);
export const NUMBER = /\b\d+|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty|every|first|half)\b/i;

/** Concepts (see concepts.json) a passage carries because of the facts it holds. */
export function factConcepts(text: string): string[] {
  const concepts: string[] = [];
  if (STREET.test(text)) concepts.push('_location');
  if (MONEY.test(text)) concepts.push('_price');
  if (CLOCK.test(text)) concepts.push('_hours');
  if (PHONE.test(text) || EMAIL.test(text)) concepts.push('_contact');
  return concepts;
}

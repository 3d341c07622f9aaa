// What libphonenumber says about a number, remembered: parsing one costs more than the rest
// of a POST /v1/calls validation, and an account dials and texts the same numbers again and
// again. The answer depends only on the text, so a bounded cache is always right.
import { parsePhoneNumberFromString } from 'libphonenumber-js';

export interface PhoneFacts {
  /** The number as E.164 text. */
  e164: string;
  /** Matches a real numbering plan (stricter than possible). */
  valid: boolean;
  /** Has a possible length for its country. */
  possible: boolean;
  country: string | undefined;
}

const MAX_ENTRIES = 10_000;
const known = new Map<string, PhoneFacts | null>();

/** The facts of a number written in international format, or null if it is not one. */
export function phoneFacts(raw: string): PhoneFacts | null {
  let facts = known.get(raw);
  if (facts !== undefined) return facts;
  const parsed = parsePhoneNumberFromString(raw);
  facts = parsed ? { e164: parsed.number, valid: parsed.isValid(), possible: parsed.isPossible(), country: parsed.country } : null;
  if (known.size >= MAX_ENTRIES) known.clear();
  known.set(raw, facts);
  return facts;
}

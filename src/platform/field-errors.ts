// The one vocabulary for what is wrong with a field, shared by the schema validator and the
// services, so that a mistake reads the same on every endpoint (docs/errors.md lists it).
import { phoneFacts } from './phone.ts';

/** Every `errors[].code` value; never a raw validator keyword. */
export const FIELD_ERROR_CODES = [
  'required', 'unknown_field', 'invalid_type', 'invalid_value', 'invalid_format', 'invalid_phone_number', 'invalid_cursor',
  'too_short', 'too_long', 'too_small', 'too_large', 'duplicate', 'not_allowed', 'not_found',
] as const;
export type FieldErrorCode = (typeof FIELD_ERROR_CODES)[number];

/** What each code means, for docs/errors.md. */
export const FIELD_ERROR_MEANINGS: Record<FieldErrorCode, string> = {
  required: 'A required field or parameter is missing.',
  unknown_field: 'The body has a field, or the query a parameter, that this endpoint does not take.',
  invalid_type: 'The value has the wrong JSON type (e.g. a string where a number belongs).',
  invalid_value: 'The value is not one of those allowed (the message lists them) or not one of the accepted forms.',
  invalid_format: 'The text does not have the required format (timestamp, URL, pattern, IP range...).',
  invalid_phone_number: 'Not a phone number in E.164 format (`+` country code and number, e.g. +14155550100).',
  invalid_cursor: '`starting_after` is not the id of an item of this list in this mode.',
  too_short: 'Fewer characters, items or entries than the minimum.',
  too_long: 'More characters, items or entries than the maximum.',
  too_small: 'A number (or time) below the minimum.',
  too_large: 'A number above the maximum.',
  duplicate: 'A list holds the same value twice.',
  not_allowed: 'The value is well-formed but not allowed here (the message says why).',
  not_found: 'The field refers to something that does not exist in this mode.',
};

/**
 * The code for a JSON Schema keyword, for validators that only need the code (the flow
 * validator): the same mapping the request validator's messages use.
 */
const KEYWORD_CODES: Record<string, FieldErrorCode> = {
  required: 'required', additionalProperties: 'unknown_field', type: 'invalid_type',
  enum: 'invalid_value', const: 'invalid_value', anyOf: 'invalid_value', oneOf: 'invalid_value',
  format: 'invalid_format', pattern: 'invalid_format',
  minLength: 'too_short', minItems: 'too_short', minProperties: 'too_short',
  maxLength: 'too_long', maxItems: 'too_long', maxProperties: 'too_long',
  minimum: 'too_small', exclusiveMinimum: 'too_small', maximum: 'too_large', exclusiveMaximum: 'too_large',
  uniqueItems: 'duplicate',
};

export function codeForKeyword(keyword: string): FieldErrorCode {
  return KEYWORD_CODES[keyword] ?? 'invalid_value';
}

export const E164_HINT = 'must be a phone number in E.164 format: + then the country code and number, no spaces or punctuation, e.g. +14155550100';

/**
 * The message for a bad phone number, wherever it is found: the hint, and the E.164 form
 * when the text is a number written another way ("+1 (415) 555-0100").
 */
export function phoneNumberMessage(raw: unknown): string {
  if (typeof raw !== 'string') return E164_HINT;
  const facts = phoneFacts(raw.trim().startsWith('+') ? raw.trim() : `+${raw.trim()}`);
  if (facts && facts.e164 !== raw && facts.possible) return `${E164_HINT}; did you mean ${facts.e164}?`;
  if (facts && facts.e164 === raw && !facts.possible) return `${E164_HINT}; ${raw} has the wrong length for its country`;
  if (facts && facts.e164 === raw && !facts.valid) return `${E164_HINT}; ${raw} is not in any numbering plan`;
  if (!facts && /^\+[0-9]{7,15}$/.test(raw)) return `${E164_HINT}; ${raw} does not start with a country code`;
  return E164_HINT;
}

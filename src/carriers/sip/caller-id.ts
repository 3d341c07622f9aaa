// Caller-id rules of a trunk: how numbers are written to it, and read from it. Carriers differ:
// most take E.164 (`+14155550142`), some want the digits without the plus (`14155550142`) or
// the national number (`4155550142`), and some set the caller id shown to the callee from a
// P-Asserted-Identity header rather than From. The API speaks E.164 only; this file turns it
// into the trunk's form on the way out (Request-URI, To, From) and back on the way in.
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';

export type NumberFormat = 'e164' | 'digits' | 'national';

export interface CallerIdRules {
  /** How numbers are written in the Request-URI, To and From of our INVITEs, and read in the trunk's. */
  format: NumberFormat;
  /** The country national numbers belong to (ISO 3166 alpha-2): used by `national` only. */
  country: CountryCode;
  /** Add P-Asserted-Identity (RFC 3325) with the caller's number: carriers that take the caller id from it. */
  assertedIdentity: boolean;
}

export const E164_RULES: CallerIdRules = { format: 'e164', country: 'US', assertedIdentity: false };

/** An E.164 number as the trunk writes it. */
export function toTrunkNumber(rules: CallerIdRules, e164: string): string {
  switch (rules.format) {
    case 'e164':
      return e164;
    case 'digits':
      return e164.replace(/^\+/, '');
    case 'national': {
      const parsed = parsePhoneNumberFromString(e164);
      // A number of another country than the trunk's is dialled in full international form.
      return parsed && parsed.country === rules.country ? parsed.nationalNumber : e164.replace(/^\+/, '');
    }
  }
}

/**
 * A number the trunk sent (a Request-URI, To or From user) as E.164, or null when it is none:
 * `+14155550142`, `14155550142` and separators always; a national number (`4155550142`) on a
 * trunk whose format is `national`, in its country.
 */
export function fromTrunkNumber(rules: CallerIdRules, user: string | undefined): string | null {
  const digits = (user ?? '').replace(/[\s().-]/g, '');
  if (rules.format === 'national' && /^\d{4,15}$/.test(digits)) {
    const national = parsePhoneNumberFromString(digits, rules.country);
    if (national?.isValid()) return national.number;
  }
  const match = /^\+?([1-9]\d{6,14})$/.exec(digits);
  return match ? `+${match[1]}` : null;
}

/** The headers our INVITEs to the trunk carry for the caller id beyond From. */
export function callerIdHeaders(rules: CallerIdRules, callerE164: string, host: string): Record<string, string> {
  return rules.assertedIdentity ? { 'P-Asserted-Identity': `<sip:${toTrunkNumber(rules, callerE164)}@${host}>` } : {};
}

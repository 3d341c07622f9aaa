// PII detection over transcript text, and redaction of transcripts and their
// audio. Detection is deliberately conservative about what counts as a card
// (Luhn) or SSN (SSA rules) so ordinary numbers in calls stay readable.
import { findPhoneNumbersInText } from 'libphonenumber-js';
import type { TranscriptSegment } from '../../telephony/transcript.ts';

export type PiiType = 'credit_card' | 'ssn' | 'phone_number' | 'email_address';

export const PII_TYPES: readonly PiiType[] = ['credit_card', 'ssn', 'phone_number', 'email_address'];

export interface PiiMatch {
  type: PiiType;
  /** Character offsets into the text, end exclusive. */
  start: number;
  end: number;
}

export interface RedactedAudioRange {
  type: PiiType;
  channel: TranscriptSegment['channel'];
  /** Seconds, end exclusive. */
  start: number;
  end: number;
}

export interface RedactionResult {
  segments: TranscriptSegment[];
  ranges: RedactedAudioRange[];
}

export const REDACTED_WORD = '[REDACTED]';

export function detectPii(text: string, types: readonly PiiType[] = PII_TYPES): PiiMatch[] {
  return findPii(text, '').filter((match) => types.includes(match.type));
}

/**
 * Masks PII in segment text (`[REDACTED CREDIT_CARD]`) and in words
 * (`[REDACTED]`), and returns the audio time ranges to silence: for each PII
 * value, from its first affected word's start to its last one's end.
 * Each segment's words must appear, in order, in its text.
 */
export function redactSegments(segments: TranscriptSegment[], types: readonly PiiType[] = PII_TYPES): RedactionResult {
  const ranges: RedactedAudioRange[] = [];
  const redacted = segments.map((segment, index) => {
    // The previous line gives context such as "what's your social security number?".
    const context = segments[index - 1]?.text ?? '';
    const matches = findPii(segment.text, context).filter((match) => types.includes(match.type));
    const wordSpans = locateWords(segment);
    const words = segment.words.map((word) => ({ ...word }));
    for (const match of matches) {
      // Overlap, not containment: "4242," or "sam@example.com." carry punctuation.
      const touches = (i: number) => {
        const span = wordSpans[i];
        return span !== undefined && span.start < match.end && match.start < span.end;
      };
      const affected = segment.words.filter((_, i) => touches(i));
      const first = affected[0];
      const last = affected.at(-1);
      if (!first || !last) continue;
      words.forEach((word, i) => {
        if (touches(i)) word.text = REDACTED_WORD;
      });
      ranges.push({ type: match.type, channel: segment.channel, start: first.start, end: last.end });
    }
    return { ...segment, text: maskText(segment.text, matches), words };
  });
  ranges.sort((a, b) => a.start - b.start || a.channel - b.channel);
  return { segments: redacted, ranges };
}

export interface SilenceRange {
  /** Omitted = every channel. */
  channel?: number;
  start: number;
  end: number;
}

/**
 * Zeroes samples in place from floor(start*rate) to ceil(end*rate).
 * For PII redaction pass `allChannels: true`: in a real dual-channel
 * recording each party's microphone picks up the other (echo, speakerphone),
 * so the value can be heard on the channel that did not say it.
 * A mono recording, or a range without a channel, is always silenced wholly.
 */
export function silenceRanges(
  samples: Int16Array[],
  sampleRate: number,
  ranges: readonly SilenceRange[],
  opts: { allChannels: boolean },
): void {
  for (const range of ranges) {
    let targets = samples;
    if (!opts.allChannels && range.channel !== undefined && samples.length > 1) {
      const channel = samples[range.channel];
      if (!channel) throw new RangeError(`silenceRanges: channel ${range.channel} does not exist (${samples.length} channels)`);
      targets = [channel];
    }
    // The epsilon absorbs float noise (1.001 * 8000 = 8007.999999999999) so
    // ms-precise ranges map to exact sample boundaries instead of growing by one.
    const from = Math.max(0, Math.floor(range.start * sampleRate + 1e-6));
    for (const channel of targets) {
      channel.fill(0, from, Math.min(channel.length, Math.ceil(range.end * sampleRate - 1e-6)));
    }
  }
}

// --- detection -------------------------------------------------------------

const EMAIL =
  /[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}/g;
// Numbers as transcribed: digit groups joined by single spaces or dashes.
const DIGIT_RUN = /(?<!\w)\d+(?:[ -]\d+)*(?!\w)/g;
const SSN_CONTEXT = /\b(?:social\s+security|ssn)\b/i;
const SSN_CONTEXT_CHARS = 80;

interface DigitGroup {
  digits: string;
  start: number;
  end: number;
  /** The separator joining this group to the previous one ('' for the first). */
  separator: string;
}

/**
 * Every PII value in `text`, non-overlapping, by position. Stronger formats
 * claim their characters first (e-mail, then SSN, then card, then phone), so a
 * number already identified as a card or SSN is never reported as a phone.
 */
function findPii(text: string, precedingContext: string): PiiMatch[] {
  const claimed: PiiMatch[] = [];
  const isFree = (start: number, end: number) => !claimed.some((c) => c.start < end && start < c.end);
  const claim = (match: PiiMatch) => {
    if (isFree(match.start, match.end)) claimed.push(match);
  };

  for (const m of text.matchAll(EMAIL)) claim({ type: 'email_address', start: m.index, end: m.index + m[0].length });
  const runs = [...text.matchAll(DIGIT_RUN)].map((m) => digitGroups(m[0], m.index));
  for (const run of runs) findSsns(run, text, precedingContext).forEach(claim);
  for (const run of runs) findCards(run, isFree).forEach(claim);
  for (const phone of findPhoneNumbersInText(text, { defaultCountry: 'US' })) {
    claim({ type: 'phone_number', start: phone.startsAt, end: phone.endsAt });
  }
  return claimed.sort((a, b) => a.start - b.start);
}

function digitGroups(run: string, offset: number): DigitGroup[] {
  return [...run.matchAll(/\d+/g)].map((m) => ({
    digits: m[0],
    start: offset + m.index,
    end: offset + m.index + m[0].length,
    separator: m.index === 0 ? '' : run.charAt(m.index - 1),
  }));
}

/** Longest group-aligned window of 13-19 digits passing Luhn, scanning left to right. */
function findCards(run: DigitGroup[], isFree: (start: number, end: number) => boolean): PiiMatch[] {
  const cards: PiiMatch[] = [];
  for (let from = 0; from < run.length; ) {
    let next = from + 1;
    for (let to = run.length; to > from; to--) {
      const digits = run.slice(from, to).map((g) => g.digits).join('');
      const start = run[from]!.start;
      const end = run[to - 1]!.end;
      if (digits.length >= 13 && digits.length <= 19 && passesLuhn(digits) && isFree(start, end)) {
        cards.push({ type: 'credit_card', start, end });
        next = to;
        break;
      }
    }
    from = next;
  }
  return cards;
}

function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/**
 * `AAA-GG-SSSS` anywhere; `AAA GG SSSS` or `AAAGGSSSS` only when "social
 * security"/"SSN" was said just before, since bare 9-digit numbers are common.
 */
function findSsns(run: DigitGroup[], text: string, precedingContext: string): PiiMatch[] {
  const ssns: PiiMatch[] = [];
  const saidBefore = (start: number) =>
    SSN_CONTEXT.test(`${precedingContext}\n${text.slice(0, start)}`.slice(-SSN_CONTEXT_CHARS));
  run.forEach((group, i) => {
    const [area, grp, serial] = [group, run[i + 1], run[i + 2]];
    if (grp && serial && area.digits.length === 3 && grp.digits.length === 2 && serial.digits.length === 4) {
      const dashed = grp.separator === '-' && serial.separator === '-';
      if (isValidSsn(area.digits + grp.digits + serial.digits) && (dashed || saidBefore(area.start))) {
        ssns.push({ type: 'ssn', start: area.start, end: serial.end });
      }
    } else if (group.digits.length === 9 && isValidSsn(group.digits) && saidBefore(group.start)) {
      ssns.push({ type: 'ssn', start: group.start, end: group.end });
    }
  });
  return ssns;
}

/** SSA rules: area not 000, 666 or 900-999; group not 00; serial not 0000. */
function isValidSsn(nineDigits: string): boolean {
  const area = Number(nineDigits.slice(0, 3));
  const group = Number(nineDigits.slice(3, 5));
  const serial = Number(nineDigits.slice(5));
  return area !== 0 && area !== 666 && area < 900 && group !== 0 && serial !== 0;
}

// --- redaction -------------------------------------------------------------

/** Character span of each word in its segment's text; undefined for words already redacted. */
function locateWords(segment: TranscriptSegment): ({ start: number; end: number } | undefined)[] {
  let cursor = 0;
  return segment.words.map((word) => {
    // A previous redaction pass replaced this word's text; there is nothing left to find.
    if (word.text === REDACTED_WORD) return undefined;
    const start = segment.text.indexOf(word.text, cursor);
    if (start < 0) {
      // Fail closed: guessing the mapping could leave PII audible.
      throw new Error(`redactSegments: word "${word.text}" not found in segment text "${segment.text}"`);
    }
    cursor = start + word.text.length;
    return { start, end: cursor };
  });
}

function maskText(text: string, matches: PiiMatch[]): string {
  let masked = text;
  for (const match of [...matches].sort((a, b) => b.start - a.start)) {
    masked = `${masked.slice(0, match.start)}[REDACTED ${match.type.toUpperCase()}]${masked.slice(match.end)}`;
  }
  return masked;
}

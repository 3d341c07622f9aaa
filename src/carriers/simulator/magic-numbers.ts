// The simulated network's behaviour by destination: any valid number rings 1 s, answers,
// talks 5 s and hangs up; the magic numbers below drive every other outcome. This table is
// the source of docs/sandbox.md (Voice section): change both together.
import type { DialogueKind } from './conversation-script.ts';

export interface Destination {
  /** How the destination reacts when called (or when a call is transferred to it). */
  answer: 'answers' | 'busy' | 'no_answer' | 'fails';
  /** Whether a blind transfer *to* this number succeeds; `busy` = the transfer fails busy. */
  acceptsTransfer: boolean;
  /** What the called party says once answered; `null` talk = stays up until hung up or time_limit. */
  dialogue: DialogueKind;
  talk: 'short' | 'dialogue' | 'forever';
  description: string;
}

export const RING_SECONDS = 1;
export const SHORT_TALK_SECONDS = 5;
/** The called party starts speaking this long after answering. */
export const SPEECH_START_SECONDS = 0.5;

const NORMAL: Destination = {
  answer: 'answers', acceptsTransfer: true, dialogue: 'default', talk: 'short',
  description: 'Rings 1 s, answers, talks 5 s and hangs up (call completed, hangup_source callee).',
};

export const MAGIC_NUMBERS: Record<string, Destination> = {
  '+15005550001': { ...NORMAL, answer: 'busy', acceptsTransfer: false, description: 'Busy: the call ends busy (hangup_cause user_busy); a transfer to it fails busy.' },
  '+15005550002': { ...NORMAL, answer: 'no_answer', description: 'Rings and never answers: no_answer after the ring timeout (`timeout`, default 30 s); a transfer to it fails no_answer.' },
  '+15005550003': { ...NORMAL, answer: 'fails', acceptsTransfer: false, description: 'Carrier error: the call fails (hangup_cause network_out_of_order, hangup_source carrier); a transfer to it fails.' },
  '+15005550004': { ...NORMAL, talk: 'forever', description: 'Answers and stays up until you hang up or `time_limit` is reached (hangup_cause time_limit_reached).' },
  '+15005550005': { ...NORMAL, acceptsTransfer: false, description: 'Behaves normally when called, but rejects transfers made to it: the transfer fails busy and the call stays up.' },
  '+15005550006': { ...NORMAL, dialogue: 'pii', talk: 'dialogue', description: 'Answers and speaks a dialogue full of PII (card number, SSN, phone, e-mail), then hangs up (about 27 s): record it to try redaction.' },
};

export function destination(number: string): Destination {
  return MAGIC_NUMBERS[number] ?? NORMAL;
}

export const NORMAL_DESTINATION = NORMAL;

// What the sandbox phone network "says" on a simulated call. The words feed
// both the synthetic audio and the transcript, so recordings line up in time.
import type { CallChannel, Speaker } from '../../telephony/transcript.ts';

export interface DialogueLine {
  channel: CallChannel;
  speaker: Speaker;
  text: string;
}

export type DialogueKind = 'default' | 'pii';

// The PII values are fixed so tests and demos can look for them; the seed only
// varies names and filler words, never anything a detector has to find.
export const SIMULATED_PII = {
  creditCard: '4242 4242 4242 4242',
  ssn: '123-45-6789',
  phoneNumber: '(415) 555-0134',
  emailAddress: 'sam@example.com',
} as const;

const AGENT_NAMES = ['Sam', 'Alex', 'Jordan', 'Priya', 'Maya', 'Chris'];
const COMPANIES = ['Switchboard', 'Acme', 'Northwind', 'Globex'];
const ACKNOWLEDGEMENTS = ['Great, thanks.', 'Oh hi, thanks.', 'Perfect, thank you.'];

export function simulatedDialogue(kind: DialogueKind, seed: string): DialogueLine[] {
  const pick = seededPicker(seed);
  const caller = (text: string): DialogueLine => ({ channel: 0, speaker: 'caller', text });
  const callee = (text: string): DialogueLine => ({ channel: 1, speaker: 'callee', text });

  if (kind === 'default') {
    // ~3.5 s at 3 words/s with 0.4 s gaps, so it fits short sandbox calls.
    return [
      callee('Hello?'),
      caller(`Hi, it's ${pick(AGENT_NAMES)} from ${pick(COMPANIES)}.`),
      callee(pick(ACKNOWLEDGEMENTS)),
    ];
  }

  // A customer (caller) reading details out to an agent (callee): every PII
  // type the recordings redactor knows appears, with punctuation attached the
  // way transcription engines write it ("4242," and "sam@example.com.").
  const agent = pick(AGENT_NAMES);
  return [
    callee(`Thanks for calling ${pick(COMPANIES)}, this is ${agent}. How can I help?`),
    caller('Hi, I need to update the card on my account.'),
    callee('Sure, what is the card number?'),
    caller(`It's ${SIMULATED_PII.creditCard}, expiring next year.`),
    callee('And for verification, your social security number?'),
    caller(`It's ${SIMULATED_PII.ssn}.`),
    callee('What is the best phone and email to reach you?'),
    caller(`Call me at ${SIMULATED_PII.phoneNumber} or email ${SIMULATED_PII.emailAddress}.`),
    callee(pick(ACKNOWLEDGEMENTS)),
  ];
}

/** Deterministic choices from a seed: successive picks walk an FNV-1a hash. */
function seededPicker(seed: string): <T>(options: readonly T[]) => T {
  let hash = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) {
    hash = Math.imul(hash ^ seed.charCodeAt(i), 0x01000193) >>> 0;
  }
  return (options) => {
    hash = Math.imul(hash ^ 0x9e3779b9, 0x01000193) >>> 0;
    // High bits: the multiply leaves the low bits poorly mixed.
    return options[(hash >>> 16) % options.length] as (typeof options)[number];
  };
}

// How long a simulated party talks once answered. Apart from voice.ts because the bridge
// (bridge.ts, used by the media port that voice.ts builds) needs it too.
import { SHORT_TALK_SECONDS, SPEECH_START_SECONDS, type Destination } from './magic-numbers.ts';
import { simulatedDialogue } from './conversation-script.ts';
import { timeDialogue } from './speech.ts';

/** Seconds a party talks: 5, or its whole dialogue plus a second for the goodbye. */
export function talkTime(party: Destination, callId: string, legIndex: number): number {
  if (party.talk === 'short') return SHORT_TALK_SECONDS;
  const segments = timeDialogue(simulatedDialogue(party.dialogue, `${callId}:${legIndex}`), { startAt: SPEECH_START_SECONDS });
  return Math.ceil(segments.at(-1)!.end) + 1;
}

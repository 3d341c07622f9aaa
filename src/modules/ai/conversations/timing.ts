// Simulated speech time: how long saying a line takes, so transcript offsets (`at`) and
// the conversation's duration look like a phone call and the sandbox clock can move them.
const WORDS_PER_SECOND = 2.5;
/** The pause between one speaker finishing and the other starting. */
export const TURN_GAP_SECONDS = 0.6;

export function speechSeconds(text: string): number {
  const words = text.trim().split(/\s+/).filter(Boolean).length;
  return Math.round(Math.max(0.8, words / WORDS_PER_SECOND) * 10) / 10;
}

/** When the next speaker starts, given the last turn said. */
export function nextTurnAt(last: { at: number; text: string } | undefined): number {
  if (!last) return 0;
  return round(last.at + speechSeconds(last.text) + TURN_GAP_SECONDS);
}

/** Seconds from answer to the end of the last turn. */
export function spokenUntil(last: { at: number; text: string } | undefined): number {
  return last ? round(last.at + speechSeconds(last.text)) : 0;
}

/** Transcript `at` values are tenths of a second, on both runners. */
export function round(seconds: number): number {
  return Math.round(seconds * 10) / 10;
}

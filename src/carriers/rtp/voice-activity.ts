// Voice-activity detection on what a leg hears, frame by frame: is the far end talking?
// Energy against a fixed floor with hangover, which is enough for line audio after G.711
// (comfort noise and line hiss stay far below it): speech must last 40 ms to count as
// talking, and 300 ms of quiet ends it, so the gaps between words do not end an utterance.
// `record`'s silence timeout and speech turn-taking are built on the transitions.

/** RMS below this (about -36 dBFS) is silence. */
const SPEECH_RMS = 500;
const START_FRAMES = 2;
const END_FRAMES = 15;

export class VoiceActivity {
  private talking = false;
  private run = 0;

  /** Takes one frame; returns the new state when it changed, else undefined. */
  accept(frame: Int16Array): boolean | undefined {
    let sum = 0;
    for (let i = 0; i < frame.length; i++) sum += (frame[i] as number) * (frame[i] as number);
    const loud = Math.sqrt(sum / frame.length) >= SPEECH_RMS;
    if (loud === this.talking) {
      this.run = 0;
      return undefined;
    }
    this.run++;
    if (this.run < (this.talking ? END_FRAMES : START_FRAMES)) return undefined;
    this.run = 0;
    this.talking = loud;
    return loud;
  }
}

// The timed transcript of a recording: segments (one per utterance, on the channel of the
// party who spoke) made of words with start/end times in seconds from the recording's start.
// Recordings own these types; carriers (the simulator, later real ones) produce them.
import type { CallChannel } from '../../carriers/simulator/conversation-script.ts';

export interface TranscriptWord {
  text: string;
  /** Seconds from the start of the recording, 3 decimals. */
  start: number;
  end: number;
}

export interface TranscriptSegment {
  channel: CallChannel;
  speaker: string;
  start: number;
  end: number;
  text: string;
  words: TranscriptWord[];
}

// The timed transcript of a recording: segments (one per utterance, on the channel of the
// party who spoke) made of words with start/end times in seconds from the recording's start.
// Carriers produce them (the simulator, the live speech-to-text); the recordings module
// stores and redacts them.

/** A channel of a stereo call file: 0 the from side, 1 the to side. */
export type CallChannel = 0 | 1;

export interface TranscriptWord {
  text: string;
  /** Seconds from the start of the recording, 3 decimals. */
  start: number;
  end: number;
}

/**
 * Whose side of the call the words were heard on: `caller` the from side, `callee` the to
 * side. One meaning on both carriers: what a flow says or plays, and a party it dials (heard
 * through the flow's side while bridged), is the flow's party: the callee of an inbound call,
 * the caller of an outbound one. A closed set so code switching on it works sandbox and live.
 */
export const SPEAKERS = ['caller', 'callee'] as const;
export type Speaker = (typeof SPEAKERS)[number];

/** The party of a stereo channel (0 the from side, 1 the to side). */
export function speakerOn(channel: CallChannel): Speaker {
  return channel === 0 ? 'caller' : 'callee';
}

export interface TranscriptSegment {
  channel: CallChannel;
  speaker: Speaker;
  start: number;
  end: number;
  text: string;
  words: TranscriptWord[];
}

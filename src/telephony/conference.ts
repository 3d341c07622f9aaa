// What a media port needs to know of a conference to mix it: who is in it and how each one is
// heard. The conferences module owns the resource (names, statuses, participants' rows) and
// hands ports this picture whenever it changes; a port never reads the module's tables.
import type { Mode } from '../store/platform-tables.ts';

export const CONFERENCE_STATUSES = ['waiting', 'in_progress', 'completed'] as const;
export type ConferenceStatus = (typeof CONFERENCE_STATUSES)[number];

/** One participant's place in the mix. */
export interface ConferenceSeat {
  callId: string;
  /** Not heard by anyone. */
  muted: boolean;
  /** Hears the hold audio, and is not heard. */
  hold: boolean;
  /** A coach (whisper): heard by this call only; null: heard by everyone. */
  coachOf: string | null;
  /** Others hear a beep when this participant joins and leaves. */
  beep: boolean;
}

/**
 * A conference as its media sees it from now on. Until it is `in_progress` every participant
 * hears its own wait audio and nobody hears anybody; `completed` mixes nothing.
 */
export interface ConferenceMix {
  conferenceId: string;
  accountId: string;
  mode: Mode;
  status: ConferenceStatus;
  /** The participants present now (those who left are not seated). */
  seats: ConferenceSeat[];
  /**
   * The media node that mixes it (its first participant's): a participant held by another
   * node joins it over a node-to-node media leg. Absent or null: whichever node applies it.
   */
  home?: string | null;
}

/**
 * Who hears whom, the one rule every port applies: a listener hears a speaker when both are
 * seated, they are not the same call, the listener is not on hold, and the speaker is neither
 * muted nor held and, if it coaches, coaches this listener. `listener` null is the room (the
 * conference recording), which hears no coach.
 */
export function hears(listener: ConferenceSeat | null, speaker: ConferenceSeat): boolean {
  if (listener?.callId === speaker.callId) return false;
  if (listener?.hold) return false;
  if (speaker.muted || speaker.hold) return false;
  return speaker.coachOf === null || speaker.coachOf === listener?.callId;
}

/**
 * Two calls connected to each other (a queue's caller and the call that took it, both running
 * a `connect` operation) are mixed by their ports as a conference of two seats under this id,
 * each hearing the other. A supervisor's monitor (src/modules/monitors) is a third seat in
 * that same mix: the monitors module hands the ports the connection's ConferenceMix with it,
 * and the supervisor's call runs a `conference` operation on this id.
 */
export function connectionMixId(a: string, b: string): string {
  return `connect:${[a, b].sort().join(':')}`;
}

/** The other call of the connection `mixId` (connectionMixId) that `callId` is in; null when `mixId` is not a connection of it. */
export function connectionPeer(mixId: string, callId: string): string | null {
  const [kind, a, b, ...rest] = mixId.split(':');
  if (kind !== 'connect' || !a || !b || rest.length > 0) return null;
  return a === callId ? b : b === callId ? a : null;
}

/** Seats on a connection's mix: its two calls and one supervisor. */
export const CONNECTION_SEATS = 3;

/** A supervisor's seat beside a connection: listen (muted), whisper (a coach of the agent), barge (a plain seat). */
export const MONITOR_MODES = ['listen', 'whisper', 'barge'] as const;
export type MonitorMode = (typeof MONITOR_MODES)[number];

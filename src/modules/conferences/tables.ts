// Row types of the conferences module (migration 0028). Booleans are 0/1 integers.
import type { Mode } from '../../store/platform-tables.ts';
import type { ConferenceStatus } from '../../telephony/conference.ts';

export interface ConferenceRow {
  id: string;
  account_id: string;
  mode: Mode;
  name: string;
  status: ConferenceStatus;
  /** The most participants at once (from the verb of the first participant). */
  max_participants: number;
  /** A participant asked for it (`record: true`): recorded from its start. */
  record: number;
  /** The conference's recording (recordings resource, source conference), once started. */
  recording_id: string | null;
  /** Why it ended: `last_left`, `end_on_exit`, `api` (POST .../end), `node_lost` (its home node died). */
  end_reason: string | null;
  /** The media node that mixes it: its first participant's call's (migration 0042); null: any node (sandbox, SQLite). */
  node: string | null;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  updated_at: string;
}

/** One call's place in a conference; `id` is the call's id (a call is in a conference once). */
export interface ConferenceParticipantRow {
  id: string;
  conference_id: string;
  account_id: string;
  mode: Mode;
  /** `joined` while in it, then `left`. */
  status: 'joined' | 'left';
  muted: number;
  hold: number;
  coach_call_id: string | null;
  start_on_enter: number;
  end_on_exit: number;
  beep: number;
  joined_at: string;
  left_at: string | null;
  /** Why it left: `removed` (DELETE), `conference_ended`, `hangup`, `flow_updated`. */
  left_reason: string | null;
  updated_at: string;
}

export interface ConferenceTables {
  conferences: ConferenceRow;
  conference_participants: ConferenceParticipantRow;
}

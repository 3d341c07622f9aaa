// Conference and participant rows as the API shows them (GET, lists, event payloads).
import type { Static } from 'typebox';
import type { ConferenceSchema, ParticipantSchema } from './schema.ts';
import type { ConferenceParticipantRow, ConferenceRow } from './tables.ts';

export type Conference = Static<typeof ConferenceSchema>;
export type Participant = Static<typeof ParticipantSchema>;

export function presentConference(row: ConferenceRow, participantCount: number): Conference {
  return {
    id: row.id,
    object: 'conference',
    mode: row.mode,
    name: row.name,
    status: row.status,
    participant_count: participantCount,
    max_participants: Number(row.max_participants),
    recording_id: row.recording_id,
    end_reason: row.end_reason as Conference['end_reason'],
    created_at: row.created_at,
    started_at: row.started_at,
    ended_at: row.ended_at,
    updated_at: row.updated_at,
  };
}

export function presentParticipant(row: ConferenceParticipantRow): Participant {
  return {
    object: 'conference_participant',
    call_id: row.id,
    conference_id: row.conference_id,
    status: row.status,
    muted: Number(row.muted) === 1,
    hold: Number(row.hold) === 1,
    coach_call_id: row.coach_call_id,
    start_on_enter: Number(row.start_on_enter) === 1,
    end_on_exit: Number(row.end_on_exit) === 1,
    beep: Number(row.beep) === 1,
    joined_at: row.joined_at,
    left_at: row.left_at,
    left_reason: row.left_reason as Participant['left_reason'],
    updated_at: row.updated_at,
  };
}

// The Conference contract: the resource, its participants, and the requests that act on them.
import { Type, type Static } from 'typebox';
import { NullableTimestamp, PageQuery, Timestamp } from '../../platform/schemas.ts';
import { CONFERENCE_STATUSES } from '../../telephony/conference.ts';
import { SayVerb } from '../calls/flows/verbs/say.ts';
import { PlayVerb } from '../calls/flows/verbs/play.ts';

const Phone = (description: string) => Type.String({ pattern: '^\\+[1-9][0-9]{6,14}$', description: `${description} E.164.`, examples: ['+14155550100'] });

export const ConferenceSchema = Type.Object({
  id: Type.String({ examples: ['conf_01jd8x0v6kf5b9w3t2q1r0p9n8'] }),
  object: Type.Literal('conference'),
  mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')]),
  name: Type.String({ description: 'The name its conference verbs join it by (one open per account and mode).' }),
  status: Type.Enum([...CONFERENCE_STATUSES], { description: 'waiting: no start_on_enter participant yet (everyone hears the wait audio); in_progress: participants hear each other; completed: ended.' }),
  participant_count: Type.Integer({ description: 'Participants in it now.' }),
  max_participants: Type.Integer(),
  recording_id: Type.Union([Type.String(), Type.Null()], { description: 'Its recording (GET /v1/recordings/{id}; source conference), when a participant asked for `record`.' }),
  end_reason: Type.Union([Type.Enum(['last_left', 'end_on_exit', 'api', 'node_lost']), Type.Null()], { description: 'Why it ended: its last participant left, an end_on_exit participant left, POST /v1/conferences/{id}/end, or node_lost (the media node that mixed it died; with several nodes).' }),
  created_at: Timestamp,
  started_at: NullableTimestamp,
  ended_at: NullableTimestamp,
  updated_at: Timestamp,
}, { $id: 'Conference' });

export const ParticipantSchema = Type.Object({
  object: Type.Literal('conference_participant'),
  call_id: Type.String({ description: 'The participant\'s call (participants are addressed by it).' }),
  conference_id: Type.String(),
  status: Type.Enum(['joined', 'left']),
  muted: Type.Boolean({ description: 'Nobody hears it.' }),
  hold: Type.Boolean({ description: 'It hears the hold audio and nobody hears it.' }),
  coach_call_id: Type.Union([Type.String(), Type.Null()], { description: 'A coach: only this participant hears it.' }),
  start_on_enter: Type.Boolean(),
  end_on_exit: Type.Boolean(),
  beep: Type.Boolean(),
  joined_at: Timestamp,
  left_at: NullableTimestamp,
  left_reason: Type.Union([Type.Enum(['removed', 'conference_ended', 'flow_updated', 'hangup']), Type.Null()], {
    description: 'removed: DELETE .../participants/{call_id} (its flow went on); conference_ended: the conference ended (its flow went on); flow_updated: POST /v1/calls/{id}/flow; hangup: the call ended.',
  }),
  updated_at: Timestamp,
}, { $id: 'ConferenceParticipant' });

export const ConferenceListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(Type.Enum([...CONFERENCE_STATUSES])),
  name: Type.Optional(Type.String({ maxLength: 128, description: 'Only conferences of this name (the open one and earlier ones).' })),
});

export const ParticipantListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(Type.Enum(['joined', 'left'], { description: 'Default: both.' })),
});

export const ParticipantParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }), call_id: Type.String({ minLength: 1, maxLength: 64 }) });

export const AnnounceBody = Type.Object({
  say: Type.Optional(SayVerb),
  play: Type.Optional(PlayVerb),
}, { additionalProperties: false, description: 'What every participant not on hold hears now, and the conference recording: exactly one of say and play.' });
export type AnnounceBody = Static<typeof AnnounceBody>;

export const DialInBody = Type.Object({
  to: Phone('The number to call; it joins the conference when it answers.'),
  from: Phone('A voice number of the account the call comes from.'),
  muted: Type.Optional(Type.Boolean({ default: false })),
  coach_call_id: Type.Optional(Type.String({ maxLength: 64, description: 'The new participant coaches this one (heard by it only).', examples: ['call_01jd8x0v6kf5b9w3t2q1r0p9n8'] })),
  webhook_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, description: 'Where the new call\'s events go.' })),
}, { additionalProperties: false });

export const ParticipantPatch = Type.Object({
  muted: Type.Optional(Type.Boolean()),
  hold: Type.Optional(Type.Boolean({ description: 'Held: it hears the hold tone and nobody hears it.' })),
  coach_call_id: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()], { description: 'A participant of the same conference only it is heard by (whisper); null: heard by everyone again.' })),
}, { additionalProperties: false, description: 'The fields to change; those left out stay as they are (an empty body changes nothing).' });

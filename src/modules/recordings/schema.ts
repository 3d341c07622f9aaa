// The Recording contract: the resource, its transcript, what redaction did, and requests.
import { Type } from 'typebox';
import { PageQuery, Timestamp } from '../../platform/schemas.ts';
import { RECORDING_STATUSES } from './states.ts';
import { PII_TYPES } from './pii.ts';
import { SPEAKERS } from '../../telephony/transcript.ts';

const literals = <const T extends string[]>(values: readonly [...T]) => Type.Enum(values);
export const PiiTypeSchema = literals(PII_TYPES);

const Seconds = Type.Number({ description: 'Seconds from the start of the recording (millisecond precision).' });

export const TranscriptSegmentSchema = Type.Object({
  channel: Type.Integer({ description: '0 = the caller (from) side, 1 = the called party (to) side.' }),
  speaker: Type.Enum([...SPEAKERS], {
    description: 'Whose side of the call the words were heard on, the same on sandbox and live calls: caller = the from side, callee = the to side. '
      + 'What a flow says or plays (and a party its dial reached, heard through the flow\'s side) is the flow\'s party: the callee of an inbound call, the caller of an outbound one.',
  }),
  start: Seconds,
  end: Seconds,
  text: Type.String(),
  words: Type.Array(Type.Object({ text: Type.String(), start: Seconds, end: Seconds })),
});

export const RedactionSchema = Type.Object({
  type: PiiTypeSchema,
  channel: Type.Integer({ description: 'The channel on which it was said; the audio is silenced on every channel.' }),
  start: Seconds,
  end: Seconds,
});

export const RecordingSchema = Type.Object(
  {
    id: Type.String({ examples: ['rec_01jd8x0v6kf5b9w3t2q1r0p9n8'] }),
    object: Type.Literal('recording'),
    mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')]),
    call_id: Type.String({ description: 'The call recorded; for a conference\'s recording, the participant whose join started it.' }),
    conference_id: Type.Union([Type.String(), Type.Null()], { description: 'A conference\'s recording (source conference): the conference. Null for a call\'s recording.' }),
    status: literals(RECORDING_STATUSES),
    source: Type.Union([Type.Literal('record'), Type.Literal('api'), Type.Literal('flow'), Type.Literal('conference')], { description: 'record: the call\'s `record: true`; api: POST /v1/calls/{id}/recordings; flow: a flow\'s `record` verb (the other party only, mono); conference: a conference\'s `record: true` (one channel: what the room hears, from its start to its end).' }),
    format: Type.Literal('wav'),
    channels: Type.Integer({ description: '2 = dual channel (0 caller, 1 called party), 1 = mono mix.' }),
    sample_rate: Type.Integer({ description: 'Hz (16-bit PCM).' }),
    duration_seconds: Type.Union([Type.Number(), Type.Null()], { description: 'Length of the audio, once ready.' }),
    size_bytes: Type.Union([Type.Integer(), Type.Null()], { description: 'Size of the WAV file, once ready.' }),
    media_url: Type.Union([Type.String({ format: 'uri' }), Type.Null()], { description: 'Absolute URL of the WAV file (GET it with your API key), once ready; its base is SWITCHBOARD_PUBLIC_URL.' }),
    transcript: Type.Union([Type.Object({ segments: Type.Array(TranscriptSegmentSchema) }), Type.Null()], {
      description: 'Timed transcript, once ready: segment and word times match the audio.',
    }),
    redacted: Type.Boolean(),
    redactions: Type.Array(RedactionSchema, { description: 'What was redacted: PII types and time ranges, never the values.' }),
    timestamps: Type.Record(Type.String(), Timestamp, { description: 'Latest time the recording entered each status.' }),
    error: Type.Union([Type.String(), Type.Null()]),
    failure: Type.Union([Type.Ref('Failure'), Type.Null()], {
      description: 'Set when the recording failed: code processing_failed, message = error. Null otherwise.',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Recording' },
);

export const StartRecordingBody = Type.Object(
  {
    channels: Type.Optional(Type.Union([Type.Literal(1), Type.Literal(2)], { default: 2, description: '2 = dual channel (default), 1 = mono.' })),
  },
  { additionalProperties: false },
);

export const RedactBody = Type.Object(
  {
    types: Type.Optional(Type.Array(PiiTypeSchema, { minItems: 1, uniqueItems: true, description: `Default: all of ${PII_TYPES.join(', ')}.` })),
  },
  { additionalProperties: false },
);

/** GET /v1/calls/{id}/recordings: pages only (the call is the filter). */
export const CallRecordingListQuery = Type.Object({ ...PageQuery });

export const RecordingListQuery = Type.Object({
  ...PageQuery,
  call_id: Type.Optional(Type.String({ maxLength: 64 })),
  conference_id: Type.Optional(Type.String({ maxLength: 64, description: 'Only the recording of this conference.' })),
  status: Type.Optional(literals(RECORDING_STATUSES)),
  created_gte: Type.Optional(Type.String({ format: 'date-time', description: 'Only recordings created at or after this time.' })),
  created_lte: Type.Optional(Type.String({ format: 'date-time', description: 'Only recordings created at or before this time.' })),
});

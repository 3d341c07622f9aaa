// The Call contract (spec section 2): request bodies, the Call resource and list filters.
import { Type } from 'typebox';
import { Metadata, NullableTimestamp, PageQuery, Timestamp } from '../../platform/schemas.ts';
import { CALL_STATUSES } from '../../telephony/call-ref.ts';
import { HANGUP_CAUSES, HANGUP_SOURCES } from '../../telephony/call-end.ts';
import { TRANSFER_STATUSES } from './transfer-states.ts';

const PhoneNumber = (description: string) =>
  Type.String({ format: 'e164', minLength: 2, maxLength: 32, description: `${description} E.164, e.g. +14155550100 (checked with libphonenumber).`, examples: ['+14155550100'] });
const literals = <const T extends string[]>(values: readonly [...T]) => Type.Enum(values);

export const CallStatusSchema = literals(CALL_STATUSES);

export const CallTransferSchema = Type.Object({
  to: Type.String(),
  status: Type.Enum(TRANSFER_STATUSES, { description: 'pending while the target rings; completed when connected; busy, no_answer or failed when the target refused (the call stays up); canceled when the call ended first.' }),
  requested_at: Timestamp,
  settled_at: NullableTimestamp,
});

export const CallSchema = Type.Object(
  {
    id: Type.String({ description: '`call_` followed by an opaque, time-sortable suffix.', examples: ['call_01jd8x0v6kf5b9w3t2q1r0p9n8'] }),
    object: Type.Literal('call'),
    mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')]),
    direction: Type.Union([Type.Literal('outbound'), Type.Literal('inbound')], { description: 'outbound: placed with POST /v1/calls; inbound: a caller reached a number of the account (`from` is the caller, `to` your number).' }),
    status: CallStatusSchema,
    from: Type.String(),
    to: Type.String(),
    recording: Type.Boolean({ description: 'Reflects the `record` request field.' }),
    recordings: Type.Array(Type.String(), { description: 'Ids of the recordings of this call (rec_...), oldest first.' }),
    webhook_url: Type.String({
      format: 'uri',
      description: 'Address to which this call\'s webhooks go; never null. The request\'s webhook_url, else the `from` number\'s webhook_url '
        + '(these two also receive the call\'s events, besides your subscriptions); else the URL of your oldest enabled subscription in this mode '
        + 'that receives call.completed; else the absolute URL where the call\'s events can be read: {SWITCHBOARD_PUBLIC_URL}/v1/events?object_id={id}.',
      examples: ['https://example.com/hooks/calls'],
    }),
    timeout: Type.Integer({ description: 'Ring timeout, seconds.' }),
    time_limit: Type.Integer({ description: 'Longest talk time, seconds.' }),
    metadata: Type.Record(Type.String(), Type.String()),
    timestamps: Type.Record(Type.String(), Timestamp, { description: 'When the call entered each status it went through, by status.' }),
    answered_at: NullableTimestamp,
    ended_at: NullableTimestamp,
    duration_seconds: Type.Union([Type.Integer(), Type.Null()], { description: 'Talk time (answer to hang-up), once the call has ended; 0 if never answered.' }),
    hangup_cause: Type.Union([literals(HANGUP_CAUSES), Type.Null()]),
    hangup_source: Type.Union([literals(HANGUP_SOURCES), Type.Null()]),
    hangup_reason: Type.Union([Type.String(), Type.Null()], { description: 'How the call ended, in a sentence; null until it ends.', examples: ['The called party was busy.'] }),
    failure: Type.Union([Type.Ref('Failure'), Type.Null()], {
      description: 'Set when the call ended without being completed (busy, no_answer, failed, canceled): `code` is the hangup_cause, `carrier_code` the SIP status once a real carrier reports one. Null otherwise.',
    }),
    transfers: Type.Array(CallTransferSchema),
    sip_status: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Live calls over a SIP trunk: the final SIP response code of the call set-up (200 when answered, 486 busy, 487 canceled, ...). Null in the sandbox and until the trunk answers.',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Call' },
);

export const CreateCallBody = Type.Object(
  {
    from: PhoneNumber('Calling number: an active voice number of the account in this mode.'),
    to: PhoneNumber('Called number.'),
    record: Type.Optional(Type.Boolean({ default: false, description: 'Record the call from the moment it is answered.' })),
    webhook_url: Type.Optional(Type.String({ maxLength: 2048, description: 'Where this call\'s events go, in addition to your subscriptions. Default: the from number\'s webhook_url.' })),
    timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 600, default: 30, description: 'Seconds to let the call ring before giving up (no_answer).' })),
    time_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400, default: 14_400, description: 'Seconds of talk after which the call is hung up (time_limit_reached).' })),
    metadata: Type.Optional(Metadata),
    flow: Type.Optional(Type.Array(Type.Any(), {
      description: 'A call flow (the `Flow` schema; docs/voice-flows.md) run when the called party answers. '
        + 'Validated before anything is created: a 400 `validation_failed` names each bad path, e.g. `flow[2].say.loop`. Not with answer_url.',
    })),
    answer_url: Type.Optional(Type.String({ maxLength: 2048, description: 'When the called party answers, Switchboard POSTs the call here (signed like every webhook) and runs the flow the answer holds. Not with flow.', examples: ['https://example.com/voice/answer'] })),
    answer_fallback_url: Type.Optional(Type.String({ maxLength: 2048, description: 'Asked once when a flow webhook of this call fails (timeout, non-2xx, invalid flow); after it, the caller hears an apology and the call hangs up.', examples: ['https://example.com/voice/fallback'] })),
  },
  { additionalProperties: false },
);

export const TransferBody = Type.Object(
  {
    to: PhoneNumber('Number to hand the called party over to.'),
    timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 600, default: 30, description: 'Seconds to let the target ring.' })),
  },
  { additionalProperties: false },
);

export const CallListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(CallStatusSchema),
  from: Type.Optional(Type.String({ maxLength: 32 })),
  to: Type.Optional(Type.String({ maxLength: 32 })),
  created_gte: Type.Optional(Type.String({ format: 'date-time', description: 'Only calls created at or after this time.' })),
  created_lte: Type.Optional(Type.String({ format: 'date-time', description: 'Only calls created at or before this time.' })),
});

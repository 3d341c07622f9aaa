// The analytics and usage contract. Every figure counts resources created inside a bucket
// (a call by when it was placed or reached us, a message by when it was accepted), in the
// key's mode only.
import { Type, type TSchema } from 'typebox';
import { Timestamp } from '../../platform/schemas.ts';

const Count = Type.Integer({ minimum: 0 });
const Ratio = Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()]);
const Counts = (description: string) => Type.Record(Type.String(), Count, { description });

const WindowFields = {
  start: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339. Moved back to the start of its UTC bucket. Default: `end` minus 24 hours (interval=hour) or 30 days (interval=day).', examples: ['2026-11-01T00:00:00Z'] })),
  end: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339, exclusive. Moved forward to the end of its UTC bucket. Default: now (the test clock for a sandbox key).', examples: ['2026-12-01T00:00:00Z'] })),
};
const IntervalField = Type.Optional(Type.Union([Type.Literal('hour'), Type.Literal('day')], {
  default: 'day', description: 'Bucket size, in UTC. At most 744 hourly or 366 daily buckets per request.',
}));

export const CallAnalyticsQuery = Type.Object({
  ...WindowFields,
  interval: IntervalField,
  group_by: Type.Optional(Type.Union([Type.Literal('status'), Type.Literal('direction'), Type.Literal('number'), Type.Literal('trunk')], {
    description: "Split each bucket (and the totals) by the call's status, its direction, the account's number on it (the caller of an outbound call, the called number of an inbound one), "
      + "or the SIP trunk it went over (its name in the carriers file; '' for calls that used no trunk, such as every sandbox call).",
  })),
}, { additionalProperties: false });

export const MessageAnalyticsQuery = Type.Object({
  ...WindowFields,
  interval: IntervalField,
  group_by: Type.Optional(Type.Union([Type.Literal('channel'), Type.Literal('status'), Type.Literal('number')], {
    description: "Split each bucket (and the totals) by channel, status, or the account's number on the message.",
  })),
}, { additionalProperties: false });

export const UsageQuery = Type.Object({ ...WindowFields }, { additionalProperties: false });

/**
 * Named components for a bucketed answer: its group, its totals, its bucket and itself, so the
 * SDKs get one model of each (CallAnalyticsBucket, ...), not one per place it appears.
 */
function Bucketed(metrics: Record<string, TSchema>, name: string, object: string, description: string, extra: Record<string, TSchema> = {}): TSchema[] {
  const groups = Type.Optional(Type.Array(Type.Ref(`${name}Group`), { description: 'With group_by only: one entry per value seen, sorted by value.' }));
  return [
    Type.Object({ value: Type.String({ description: 'The group: the group_by value of these figures (a status, direction, channel, phone number, trunk, endpoint, event type, agent or queue id).' }), ...metrics }, { $id: `${name}Group` }),
    Type.Object({ ...metrics, groups }, { $id: `${name}Totals`, description: 'The figures over the whole window.' }),
    Type.Object({
      start: Type.String({ format: 'date-time', description: "The bucket's first instant." }),
      end: Type.String({ format: 'date-time', description: "The bucket's end, exclusive." }),
      ...metrics,
      groups,
    }, { $id: `${name}Bucket` }),
    Type.Object({
      object: Type.Literal(object),
      mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')]),
      interval: Type.Union([Type.Literal('hour'), Type.Literal('day')]),
      start: Type.String({ format: 'date-time', description: 'The first instant covered (start of its UTC bucket).' }),
      end: Type.String({ format: 'date-time', description: 'The end of the last bucket, exclusive.' }),
      group_by: Type.Union([Type.String(), Type.Null()]),
      totals: Type.Ref(`${name}Totals`),
      data: Type.Array(Type.Ref(`${name}Bucket`), { description: 'Every bucket of the window in time order, empty ones included with zeros.' }),
      ...extra,
    }, { $id: name, description }),
  ];
}

export const PostDialDelaySchema = Type.Object({
  p50: Type.Union([Type.Integer(), Type.Null()]),
  p95: Type.Union([Type.Integer(), Type.Null()]),
}, { $id: 'PostDialDelay', description: 'Live calls placed over a SIP trunk: from sending the INVITE to the first 180 or 183, nearest-rank percentiles in ms; null without such calls (sandbox calls have none).' });

export const CallAnalyticsSchemas = Bucketed({
  attempted: { ...Count, description: 'Calls placed (outbound) or received (inbound).' },
  answered: { ...Count, description: 'Calls that were answered.' },
  answer_seizure_ratio: { ...Ratio, description: 'answered / attempted, to 4 decimals; null without attempts.' },
  average_duration_seconds: Type.Union([Type.Number(), Type.Null()], { description: 'Average talk time of answered calls that ended (ACD), to 2 decimals; null without any.' }),
  total_duration_seconds: { ...Count, description: 'Talk time of the answered calls that ended.' },
  by_status: Counts('Calls by their current status; every status is present.'),
  by_hangup_cause: Counts('Ended calls by hangup cause (normal_clearing, user_busy, no_answer, ...); only causes seen.'),
  post_dial_delay_ms: Type.Ref('PostDialDelay'),
}, 'CallAnalytics', 'call_analytics', 'Call volumes and outcomes per UTC bucket.');

export const DeliveryTimesSchema = Type.Object({
  p50: Type.Union([Type.Integer(), Type.Null()]),
  p95: Type.Union([Type.Integer(), Type.Null()]),
}, { $id: 'DeliveryTimes', description: 'From acceptance (created_at) to delivery (delivered_at), nearest-rank percentiles in ms; null without deliveries.' });

export const MessageAnalyticsSchemas = Bucketed({
  outbound: { ...Count, description: 'Messages sent through the API.' },
  inbound: { ...Count, description: 'Messages received.' },
  sent: { ...Count, description: 'Outbound messages the network accepted (status sent, delivered, read or undelivered).' },
  delivered: { ...Count, description: 'Outbound messages delivered (status delivered or read).' },
  failed: { ...Count, description: 'Outbound messages that failed or were undelivered.' },
  delivery_rate: { ...Ratio, description: 'delivered / (delivered + failed), to 4 decimals: of the messages with a final outcome; null without any.' },
  segments: { ...Count, description: 'Segments of the outbound messages.' },
  time_to_delivery_ms: Type.Ref('DeliveryTimes'),
  by_status: Counts('Messages (both directions) by current status; every status is present.'),
  by_error_code: Counts('Failed and undelivered outbound messages by error_code; only codes seen.'),
}, 'MessageAnalytics', 'message_analytics', 'Message volumes, delivery and time to delivery per UTC bucket.');

export const WebhookAnalyticsQuery = Type.Object({
  ...WindowFields,
  interval: IntervalField,
  group_by: Type.Optional(Type.Union([Type.Literal('endpoint'), Type.Literal('event_type')], {
    description: 'Split each bucket (and the totals) by webhook endpoint (its wh_ id; the URL for a call\'s own webhook_url) or by event type.',
  })),
}, { additionalProperties: false });

export const AttemptLatencySchema = Type.Object({
  p50: Type.Union([Type.Integer(), Type.Null()]),
  p99: Type.Union([Type.Integer(), Type.Null()]),
}, { $id: 'AttemptLatency', description: 'How long endpoints took to answer each attempt (request sent to response read), nearest-rank percentiles in ms; null without attempts.' });

export const WebhookAnalyticsSchemas = Bucketed({
  deliveries: { ...Count, description: 'Deliveries of the events created in the bucket (one per event and endpoint).' },
  succeeded: { ...Count, description: 'Deliveries an endpoint accepted (2xx).' },
  failed: { ...Count, description: 'Deliveries stopped early (410 Gone, endpoint disabled or deleted, URL no longer allowed).' },
  dead_lettered: { ...Count, description: 'Deliveries that failed every scheduled attempt and wait in the dead-letter queue.' },
  pending: { ...Count, description: 'Deliveries waiting for their first or next attempt.' },
  success_rate: { ...Ratio, description: 'succeeded / (succeeded + failed + dead_lettered), to 4 decimals; null without any finished.' },
  attempts: { ...Count, description: 'HTTP attempts made for those deliveries, retries and replays included.' },
  attempt_latency_ms: Type.Ref('AttemptLatency'),
}, 'WebhookAnalytics', 'webhook_analytics', 'Webhook deliveries, their outcomes and endpoint latency per UTC bucket.');

export const AiAnalyticsQuery = Type.Object({
  ...WindowFields,
  interval: IntervalField,
  agent_id: Type.Optional(Type.String({ maxLength: 64, description: "Only this AI agent's conversations and unanswered questions (as GET /v1/ai/conversations filters).", examples: ['agent_01jd8x0v6kf5b9w3t2q1r0p9n8'] })),
  group_by: Type.Optional(Type.Union([Type.Literal('agent')], {
    description: 'Split each bucket (and the totals) by AI agent (its agent_ id).',
  })),
  questions_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'How many groups of unanswered questions to return, most asked first.' })),
}, { additionalProperties: false });

export const UnansweredQuestionSchema = Type.Object({
  question: Type.String({ description: 'The wording callers used most for this question.' }),
  count: { ...Count, description: 'How many times callers asked it (in any wording of the group) without an answer from the knowledge.' },
  examples: Type.Array(Type.String(), { description: 'Up to 3 other wordings of the same question, most asked first.' }),
  conversation_ids: Type.Array(Type.String(), { description: 'Up to 5 conversations it was asked in, latest first.' }),
  last_asked_at: Type.String({ format: 'date-time', description: 'When the latest of those conversations started.' }),
}, { $id: 'UnansweredQuestion', description: 'Caller questions the receptionist could not answer from its knowledge, grouped by similar wording.' });

export const AiAnalyticsSchemas = Bucketed({
  conversations: { ...Count, description: 'Conversations the AI receptionist started.' },
  completed: { ...Count, description: 'Of those, the conversations that have ended (they have an outcome).' },
  contained: { ...Count, description: 'Ended conversations the receptionist resolved without a person (outcome resolved).' },
  containment_rate: { ...Ratio, description: 'contained / completed, to 4 decimals; null without an ended conversation.' },
  transferred: { ...Count, description: 'Conversations handed to a person (outcome transferred).' },
  messages_taken: { ...Count, description: 'Conversations in which the receptionist took a message (outcome message_taken).' },
  abandoned: { ...Count, description: 'Conversations the caller left unresolved (outcome abandoned).' },
  scored: { ...Count, description: 'Conversations scored so far.' },
  average_score: Type.Union([Type.Number(), Type.Null()], { description: 'Average overall score (0 to 100) of the scored conversations, to 2 decimals; null without any.' }),
}, 'AiAnalytics', 'ai_analytics', 'AI receptionist conversations, their outcomes and scores per UTC bucket, and the questions it could not answer.', {
  agent_id: Type.Union([Type.String(), Type.Null()], { description: 'The agent_id filter, or null for every agent.' }),
  unanswered_questions: Type.Array(Type.Ref('UnansweredQuestion'), {
    description: 'Over the whole window: caller questions not answered from the knowledge, grouped by similar wording, most asked first (questions_limit groups).',
  }),
  questions_scanned: Type.Object({
    conversations: { ...Count, description: 'Conversations whose transcripts were read for unanswered questions.' },
    complete: Type.Boolean({ description: 'False when the window held more conversations than are read per request (the latest ones were read).' }),
  }),
});

export const QueueAnalyticsQuery = Type.Object({
  ...WindowFields,
  interval: IntervalField,
  queue_id: Type.Optional(Type.String({ maxLength: 64, description: 'Only the callers of this queue (its queue_ id).', examples: ['queue_01jd8x0v6kf5b9w3t2q1r0p9n8'] })),
  group_by: Type.Optional(Type.Union([Type.Literal('queue')], {
    description: 'Split each bucket (and the totals) by queue (its queue_ id).',
  })),
}, { additionalProperties: false });

export const QueueWaitsSchema = Type.Object({
  p50: Type.Union([Type.Number(), Type.Null()]),
  p95: Type.Union([Type.Number(), Type.Null()]),
}, { $id: 'QueueWaits', description: 'How long callers waited before their wait ended (taken, hung up, timed out, left), nearest-rank percentiles in seconds; null without such waits. Sandbox waits count simulated seconds.' });

export const QueueAnalyticsSchemas = Bucketed({
  entered: { ...Count, description: 'Callers that joined a queue (an enqueue verb) in the bucket. A caller refused because the queue was full never joined.' },
  answered: { ...Count, description: 'Of those, the callers taken out and bridged (a dequeue to a call in progress or a dialled number).' },
  abandoned: { ...Count, description: 'Callers who hung up while waiting.' },
  timed_out: { ...Count, description: 'Callers whose max_wait_seconds passed.' },
  waiting: { ...Count, description: 'Callers still in the queue now (waiting, or held for a dequeue).' },
  answer_rate: { ...Ratio, description: 'answered / callers whose wait ended, to 4 decimals; null without any.' },
  wait_seconds: Type.Ref('QueueWaits'),
  longest_wait_seconds: Type.Union([Type.Number(), Type.Null()], { description: 'The longest wait that ended; null without any.' }),
  by_result: Counts('Callers whose wait ended, by result (bridged, hangup, timeout, leave, error); only results seen.'),
}, 'QueueAnalytics', 'queue_analytics', 'Call queue figures per UTC bucket: callers that joined, how their wait ended, and how long they waited.', {
  queue_id: Type.Union([Type.String(), Type.Null()], { description: 'The queue_id filter, or null for every queue.' }),
});

const Minutes = Type.Object({
  calls: Count,
  answered: Count,
  seconds: { ...Count, description: 'Talk time.' },
  minutes: { ...Count, description: 'Billable minutes: each call rounded up to a whole minute.' },
}, { $id: 'UsageCallMinutes' });
const ChannelUsage = Type.Object({ outbound: Count, inbound: Count, segments: { ...Count, description: 'Segments, both directions.' } }, { $id: 'UsageChannel' });
const UsageFigures = {
  calls: Type.Object({ outbound: Type.Ref('UsageCallMinutes'), inbound: Type.Ref('UsageCallMinutes') }),
  messages: Type.Object({ sms: Type.Ref('UsageChannel'), mms: Type.Ref('UsageChannel'), whatsapp: Type.Ref('UsageChannel') }),
  recordings: Type.Object({
    count: Count,
    seconds: Type.Number({ minimum: 0, description: 'Recorded time of the recordings started that day (deleted ones excluded).' }),
    bytes: { ...Count, description: 'Bytes those recordings keep stored.' },
  }),
  ai_conversations: { ...Count, description: 'AI receptionist conversations started.' },
};

export const UsageTotalsSchema = Type.Object(UsageFigures, { $id: 'UsageTotals', description: 'The usage over the whole window.' });
export const UsageRecordSchema = Type.Object({
  object: Type.Literal('usage_record'),
  date: Type.String({ description: 'The UTC day, YYYY-MM-DD.', examples: ['2026-11-26'] }),
  start: Timestamp,
  end: Timestamp,
  ...UsageFigures,
}, { $id: 'UsageRecord', description: 'One UTC day of usage.' });

export const UsageSchema = Type.Object({
  object: Type.Literal('usage'),
  mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')]),
  start: Timestamp,
  end: Timestamp,
  totals: Type.Ref('UsageTotals'),
  data: Type.Array(Type.Ref('UsageRecord'), { description: 'One usage record per UTC day, empty days included with zeros.' }),
}, { $id: 'Usage', description: "The account's usage in the key's mode, per UTC day." });

/** Every named component, for app.addSchema. */
export const ANALYTICS_SCHEMAS: TSchema[] = [
  PostDialDelaySchema, ...CallAnalyticsSchemas, DeliveryTimesSchema, ...MessageAnalyticsSchemas, AttemptLatencySchema, ...WebhookAnalyticsSchemas,
  UnansweredQuestionSchema, ...AiAnalyticsSchemas, QueueWaitsSchema, ...QueueAnalyticsSchemas,
  Minutes, ChannelUsage, UsageTotalsSchema, UsageRecordSchema, UsageSchema,
];

// Analytics and usage: read-only aggregates over the calls, messages, webhooks, recordings and AI
// conversations of one account in one mode, in whole UTC buckets. Each figure is one grouped
// SQL scan of an (account_id, mode, created_at) index range; buckets and groups are folded
// here, so an empty bucket is present with zeros and both engines answer the same numbers.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../../store/db.ts';
import type { Mode } from '../../store/platform-tables.ts';
import { CALL_STATUSES } from '../calls/states.ts';
import { MESSAGE_STATUSES } from '../messages/states.ts';
import { BUCKET_KEY_LENGTH, type Window } from './range.ts';
import { Folder, bump, ratio, zeros } from './folder.ts';
import { aiAnalytics, type AiFilter } from './ai.ts';
import { queueAnalytics, type QueueFilter } from './queues.ts';

export type CallGroupBy = 'status' | 'direction' | 'number' | 'trunk';
export type MessageGroupBy = 'channel' | 'status' | 'number';
export type WebhookGroupBy = 'endpoint' | 'event_type';

const CHANNELS = ['sms', 'mms', 'whatsapp'] as const;
const DIRECTIONS = ['outbound', 'inbound'] as const;

interface CallAcc {
  pdd50: number | null;
  pdd95: number | null;
  attempted: number;
  answered: number;
  ended_answered: number;
  duration: number;
  by_status: Record<string, number>;
  by_hangup_cause: Record<string, number>;
}

interface WebhookAcc {
  deliveries: number;
  succeeded: number;
  failed: number;
  dead: number;
  pending: number;
  attempts: number;
  p50: number | null;
  p99: number | null;
}

interface MessageAcc {
  outbound: number;
  inbound: number;
  segments: number;
  by_status: Record<string, number>;
  by_error_code: Record<string, number>;
  p50: number | null;
  p95: number | null;
}

export class AnalyticsService {
  private readonly db: Kysely<any>;
  constructor(private readonly database: Database) {
    this.db = database.db as unknown as Kysely<any>;
  }

  private bucketOf(window: Window): RawBuilder<string> {
    return sql<string>`substr(created_at, 1, ${sql.lit(BUCKET_KEY_LENGTH[window.interval])})`;
  }

  /** The account's own number on a call or message: the caller of an outbound, the called of an inbound. */
  private ownNumber(): RawBuilder<string> {
    return sql<string>`case when direction = 'inbound' then to_number else from_number end`;
  }

  /**
   * The SIP trunk a live call went over: the carrier keeps its name in the call's carrier state
   * (the trunk chosen for an outbound call, the one an inbound call arrived on). Calls that used
   * no trunk (every sandbox call, a live call refused before one was chosen) give ''.
   */
  private trunk(): RawBuilder<string> {
    return this.database.engine === 'postgres'
      ? sql<string>`coalesce(carrier_state::jsonb ->> 'trunk', '')`
      : sql<string>`coalesce(json_extract(carrier_state, '$.trunk'), '')`;
  }

  async calls(accountId: string, mode: Mode, window: Window, groupBy: CallGroupBy | undefined) {
    const group = groupBy === 'status' ? sql<string>`status`
      : groupBy === 'direction' ? sql<string>`coalesce(direction, 'outbound')`
        : groupBy === 'number' ? this.ownNumber()
          : groupBy === 'trunk' ? this.trunk() : sql<string>`''`;
    const base = () => this.db.selectFrom('calls')
      .where('account_id', '=', accountId).where('mode', '=', mode)
      .where('created_at', '>=', window.start).where('created_at', '<', window.end);
    const rows = await base()
      .select([
        this.bucketOf(window).as('b'),
        group.as('g'),
        'status',
        'hangup_cause',
        sql<number>`count(*)`.as('n'),
        sql<number>`sum(case when answered_at is not null then 1 else 0 end)`.as('answered'),
        sql<number>`sum(case when answered_at is not null and duration_seconds is not null then 1 else 0 end)`.as('ended_answered'),
        sql<number>`sum(case when answered_at is not null then coalesce(duration_seconds, 0) else 0 end)`.as('duration'),
      ])
      .groupBy([sql`b`, sql`g`, 'status', 'hangup_cause'])
      .execute() as Array<{ b: string; g: string; status: string; hangup_cause: string | null; n: number; answered: number; ended_answered: number; duration: number }>;

    const folder = new Folder<CallAcc>(window, () => ({
      pdd50: null, pdd95: null, attempted: 0, answered: 0, ended_answered: 0, duration: 0, by_status: zeros(CALL_STATUSES), by_hangup_cause: {},
    }));
    for (const row of rows) {
      for (const acc of folder.targets(row.b, groupBy ? String(row.g) : null)) {
        const n = Number(row.n);
        acc.attempted += n;
        acc.answered += Number(row.answered);
        acc.ended_answered += Number(row.ended_answered);
        acc.duration += Number(row.duration);
        bump(acc.by_status, row.status, n);
        bump(acc.by_hangup_cause, row.hangup_cause, n);
      }
    }

    // Post-dial delay: an integer column the SIP carrier stored, so ranking it costs no date arithmetic.
    const delays = base().where('post_dial_delay_ms', 'is not', null)
      .select([this.bucketOf(window).as('b'), group.as('g'), sql<number>`post_dial_delay_ms`.as('v')]);
    await folder.addPercentiles(this.db, delays as any, [50, 95], Boolean(groupBy), (acc, p, v) => {
      if (p === 50) acc.pdd50 = v;
      else acc.pdd95 = v;
    });
    return {
      object: 'call_analytics' as const,
      mode,
      interval: window.interval,
      start: window.start,
      end: window.end,
      group_by: groupBy ?? null,
      ...folder.render(groupBy !== undefined, (acc) => ({
        attempted: acc.attempted,
        answered: acc.answered,
        answer_seizure_ratio: ratio(acc.answered, acc.attempted),
        average_duration_seconds: acc.ended_answered === 0 ? null : Math.round((acc.duration / acc.ended_answered) * 100) / 100,
        total_duration_seconds: acc.duration,
        by_status: acc.by_status,
        by_hangup_cause: acc.by_hangup_cause,
        post_dial_delay_ms: { p50: acc.pdd50, p95: acc.pdd95 },
      })),
    };
  }

  async messages(accountId: string, mode: Mode, window: Window, groupBy: MessageGroupBy | undefined) {
    const group = groupBy === 'channel' ? sql<string>`channel`
      : groupBy === 'status' ? sql<string>`status`
        : groupBy === 'number' ? this.ownNumber() : sql<string>`''`;
    const base = () => this.db.selectFrom('messages')
      .where('account_id', '=', accountId).where('mode', '=', mode)
      .where('created_at', '>=', window.start).where('created_at', '<', window.end);
    const rows = await base()
      .select([
        this.bucketOf(window).as('b'),
        group.as('g'),
        'direction',
        'status',
        'error_code',
        sql<number>`count(*)`.as('n'),
        sql<number>`sum(segments)`.as('segments'),
      ])
      .groupBy([sql`b`, sql`g`, 'direction', 'status', 'error_code'])
      .execute() as Array<{ b: string; g: string; direction: string; status: string; error_code: string | null; n: number; segments: number }>;

    const folder = new Folder<MessageAcc>(window, () => ({
      outbound: 0, inbound: 0, segments: 0, by_status: zeros(MESSAGE_STATUSES), by_error_code: {}, p50: null, p95: null,
    }));
    for (const row of rows) {
      for (const acc of folder.targets(row.b, groupBy ? String(row.g) : null)) {
        const n = Number(row.n);
        if (row.direction === 'inbound') {
          acc.inbound += n;
        } else {
          acc.outbound += n;
          acc.segments += Number(row.segments);
          bump(acc.by_error_code, row.error_code, n);
        }
        bump(acc.by_status, row.status, n);
      }
    }

    // Time to delivery: from creation (the API accepted it) to the carrier's delivery report,
    // stamped in ms when an outbound message was delivered (an integer column: nothing to
    // parse). Only outbound messages ever have it, so the predicate is the partial index
    // messages_delivery's own (migration 0033), which answers without reading message rows.
    const source = base()
      .select([this.bucketOf(window).as('b'), group.as('g'), sql<number>`delivery_ms`.as('v')])
      .where('delivery_ms', 'is not', null);
    await folder.addPercentiles(this.db, source as any, [50, 95], Boolean(groupBy), (acc, p, v) => {
      if (p === 50) acc.p50 = v;
      else acc.p95 = v;
    });

    return {
      object: 'message_analytics' as const,
      mode,
      interval: window.interval,
      start: window.start,
      end: window.end,
      group_by: groupBy ?? null,
      ...folder.render(groupBy !== undefined, (acc) => {
        const s = acc.by_status;
        const delivered = (s.delivered ?? 0) + (s.read ?? 0);
        const failed = (s.failed ?? 0) + (s.undelivered ?? 0);
        return {
          outbound: acc.outbound,
          inbound: acc.inbound,
          sent: (s.sent ?? 0) + (s.undelivered ?? 0) + delivered,
          delivered,
          failed,
          delivery_rate: ratio(delivered, delivered + failed),
          segments: acc.segments,
          time_to_delivery_ms: { p50: acc.p50, p95: acc.p95 },
          by_status: acc.by_status,
          by_error_code: acc.by_error_code,
        };
      }),
    };
  }

  /**
   * Deliveries of the events created in each bucket, by their outcome, and how fast endpoints
   * answered their attempts (webhook_attempts.latency_ms: from sending the request to the
   * end of the response). A replayed delivery counts once, in its event's bucket.
   */
  async webhooks(accountId: string, mode: Mode, window: Window, groupBy: WebhookGroupBy | undefined) {
    const group = groupBy === 'endpoint' ? sql<string>`coalesce(d.webhook_id, d.url)`
      : groupBy === 'event_type' ? sql<string>`d.event_type` : sql<string>`''`;
    const bucket = sql<string>`substr(d.created_at, 1, ${sql.lit(BUCKET_KEY_LENGTH[window.interval])})`;
    const deliveries = () => this.db.selectFrom('webhook_deliveries as d')
      .where('d.account_id', '=', accountId).where('d.mode', '=', mode)
      .where('d.created_at', '>=', window.start).where('d.created_at', '<', window.end);
    const rows = await deliveries()
      .select([bucket.as('b'), group.as('g'), 'd.status', sql<number>`count(*)`.as('n'), sql<number>`sum(d.attempt_count)`.as('attempts')])
      .groupBy([sql`b`, sql`g`, 'd.status'])
      .execute() as Array<{ b: string; g: string; status: string; n: number; attempts: number }>;
    const folder = new Folder<WebhookAcc>(window, () => ({ deliveries: 0, succeeded: 0, failed: 0, dead: 0, pending: 0, attempts: 0, p50: null, p99: null }));
    for (const row of rows) {
      for (const acc of folder.targets(row.b, groupBy ? String(row.g) : null)) {
        const n = Number(row.n);
        acc.deliveries += n;
        acc.attempts += Number(row.attempts);
        if (row.status === 'succeeded' || row.status === 'failed' || row.status === 'dead' || row.status === 'pending') acc[row.status] += n;
      }
    }
    const latencies = deliveries()
      .innerJoin('webhook_attempts as a', 'a.delivery_id', 'd.id')
      .select([bucket.as('b'), group.as('g'), sql<number>`a.latency_ms`.as('v')]);
    await folder.addPercentiles(this.db, latencies as any, [50, 99], Boolean(groupBy), (acc, p, v) => {
      if (p === 50) acc.p50 = v;
      else acc.p99 = v;
    });
    return {
      object: 'webhook_analytics' as const,
      mode,
      interval: window.interval,
      start: window.start,
      end: window.end,
      group_by: groupBy ?? null,
      ...folder.render(groupBy !== undefined, (acc) => ({
        deliveries: acc.deliveries,
        succeeded: acc.succeeded,
        failed: acc.failed,
        dead_lettered: acc.dead,
        pending: acc.pending,
        success_rate: ratio(acc.succeeded, acc.succeeded + acc.failed + acc.dead),
        attempts: acc.attempts,
        attempt_latency_ms: { p50: acc.p50, p99: acc.p99 },
      })),
    };
  }

  /** The AI receptionist's conversations and the questions it could not answer (ai.ts). */
  ai(accountId: string, mode: Mode, window: Window, filter: AiFilter) {
    return aiAnalytics(this.db, accountId, mode, window, filter);
  }

  /** Callers in the call queues: how their waits ended and how long they lasted (queues.ts). */
  queues(accountId: string, mode: Mode, window: Window, filter: QueueFilter) {
    return queueAnalytics(this.db, accountId, mode, window, filter);
  }

  async usage(accountId: string, mode: Mode, window: Window) {
    const scope = (table: 'calls' | 'messages' | 'recordings' | 'ai_conversations') => this.db.selectFrom(table as string)
      .where('account_id', '=', accountId).where('mode', '=', mode)
      .where('created_at', '>=', window.start).where('created_at', '<', window.end);
    const day = this.bucketOf(window);
    const [calls, messages, recordings, conversations] = await Promise.all([
      scope('calls').select([
        day.as('b'),
        sql<string>`coalesce(direction, 'outbound')`.as('direction'),
        sql<number>`count(*)`.as('n'),
        sql<number>`sum(case when answered_at is not null then 1 else 0 end)`.as('answered'),
        sql<number>`sum(coalesce(duration_seconds, 0))`.as('seconds'),
        // Billed per started minute of talk, as carriers bill.
        sql<number>`sum((coalesce(duration_seconds, 0) + 59) / 60)`.as('minutes'),
      ]).groupBy([sql`b`, sql`coalesce(direction, 'outbound')`]).execute(),
      scope('messages').select([
        day.as('b'), 'channel', 'direction',
        sql<number>`count(*)`.as('n'),
        sql<number>`sum(segments)`.as('segments'),
      ]).groupBy([sql`b`, 'channel', 'direction']).execute(),
      scope('recordings').where('status', '!=', 'deleted').select([
        day.as('b'),
        sql<number>`count(*)`.as('n'),
        sql<number>`sum(coalesce(duration_ms, 0))`.as('ms'),
        sql<number>`sum(coalesce(size_bytes, 0))`.as('bytes'),
      ]).groupBy(sql`b`).execute(),
      scope('ai_conversations').select([day.as('b'), sql<number>`count(*)`.as('n')]).groupBy(sql`b`).execute(),
    ]) as [
      Array<{ b: string; direction: string; n: number; answered: number; seconds: number; minutes: number }>,
      Array<{ b: string; channel: string; direction: string; n: number; segments: number }>,
      Array<{ b: string; n: number; ms: number; bytes: number }>,
      Array<{ b: string; n: number }>,
    ];

    const fresh = () => ({
      calls: Object.fromEntries(DIRECTIONS.map((d) => [d, { calls: 0, answered: 0, seconds: 0, minutes: 0 }])) as Record<(typeof DIRECTIONS)[number], { calls: number; answered: number; seconds: number; minutes: number }>,
      messages: Object.fromEntries(CHANNELS.map((c) => [c, { outbound: 0, inbound: 0, segments: 0 }])) as Record<(typeof CHANNELS)[number], { outbound: number; inbound: number; segments: number }>,
      recordings: { count: 0, milliseconds: 0, bytes: 0 },
      ai_conversations: 0,
    });
    type Day = ReturnType<typeof fresh>;
    const days = new Map<string, Day>(window.buckets.map((b) => [b.key, fresh()]));
    const totals = fresh();
    const each = (key: string, f: (d: Day) => void) => {
      const d = days.get(key);
      if (d) { f(d); f(totals); }
    };
    for (const r of calls) {
      each(r.b, (d) => {
        const c = d.calls[r.direction === 'inbound' ? 'inbound' : 'outbound'];
        c.calls += Number(r.n); c.answered += Number(r.answered); c.seconds += Number(r.seconds); c.minutes += Number(r.minutes);
      });
    }
    for (const r of messages) {
      each(r.b, (d) => {
        const m = d.messages[r.channel as (typeof CHANNELS)[number]];
        if (!m) return;
        if (r.direction === 'inbound') m.inbound += Number(r.n);
        else m.outbound += Number(r.n);
        m.segments += Number(r.segments);
      });
    }
    for (const r of recordings) {
      each(r.b, (d) => { d.recordings.count += Number(r.n); d.recordings.milliseconds += Number(r.ms); d.recordings.bytes += Number(r.bytes); });
    }
    for (const r of conversations) each(r.b, (d) => { d.ai_conversations += Number(r.n); });

    // Recording time is stored in ms; it is shown in seconds, rounded once, after summing.
    const shown = (d: Day) => ({
      ...d,
      recordings: { count: d.recordings.count, seconds: Math.round(d.recordings.milliseconds) / 1000, bytes: d.recordings.bytes },
    });
    return {
      object: 'usage' as const,
      mode,
      start: window.start,
      end: window.end,
      totals: shown(totals),
      data: window.buckets.map((b) => ({ object: 'usage_record' as const, date: b.key, start: b.start, end: b.end, ...shown(days.get(b.key)!) })),
    };
  }
}

// GET /v1/queues/{id}/stats: a queue's live statistics, computed from durable records (the
// queue's member rows, their calls, and the workers) so every node answers the same. It lives
// with the workers because half of it is theirs: who could take the queue's callers, by status.
import type { Kysely } from 'kysely';
import type { Tables } from '../../store/tables.ts';
import type { Mode } from '../../store/platform-tables.ts';
import type { Platform } from '../../platform/context.ts';
import type { Clock } from '../../platform/clock.ts';
import { notFound } from '../../platform/problems.ts';
import { IN_QUEUE, realSeconds, secondsBetween } from '../queues/members.ts';
import { routingOf } from '../queues/routing.ts';
import { chooseWorkers } from './routing.ts';
import { WORKER_STATUSES, type WorkerStatus } from './tables.ts';

const DEFAULT_SERVICE_LEVEL_SECONDS = 20;

export class QueueStats {
  private readonly db: Kysely<Tables>;

  constructor(private readonly platform: Platform) {
    this.db = platform.database.db;
  }

  async of(accountId: string, mode: Mode, clock: Clock, queueId: string, windowMinutes: number) {
    const queue = await this.db.selectFrom('queues').selectAll().where('id', '=', queueId).where('account_id', '=', accountId).where('mode', '=', mode).executeTakeFirst();
    if (!queue) throw notFound('queue', queueId);
    const now = clock.now().toISOString();
    const since = new Date(Date.parse(now) - realSeconds(this.platform, mode, windowMinutes * 60) * 1000).toISOString();
    const seconds = (from: string, to: string) => secondsBetween(this.platform, mode, from, to);

    const waiting = await this.db.selectFrom('queue_members').select('enqueued_at').where('queue_id', '=', queue.id).where('status', 'in', [...IN_QUEUE]).execute();
    const ended = await this.db.selectFrom('queue_members').leftJoin('calls', 'calls.id', 'queue_members.call_id')
      .select(['queue_members.reason', 'queue_members.wait_seconds', 'queue_members.left_at', 'calls.ended_at'])
      .where('queue_members.queue_id', '=', queue.id).where('queue_members.left_at', '>=', since)
      .where('queue_members.reason', 'in', ['bridged', 'hangup']).execute();
    const answered = ended.filter((m) => m.reason === 'bridged');
    const abandoned = ended.length - answered.length;
    const routing = routingOf(queue.routing);
    const level = routing?.service_level_seconds ?? DEFAULT_SERVICE_LEVEL_SECONDS;
    const handled = answered.filter((m) => m.ended_at && m.left_at).map((m) => seconds(m.left_at!, m.ended_at!));

    const workers = await this.db.selectFrom('workers').selectAll().where('account_id', '=', accountId).where('mode', '=', mode).execute();
    const eligible = routing ? chooseWorkers(workers, routing) : workers;
    const byStatus = Object.fromEntries(WORKER_STATUSES.map((s) => [s, 0])) as Record<WorkerStatus, number>;
    for (const w of eligible) byStatus[w.status] += 1;

    return {
      object: 'queue_stats' as const,
      queue_id: queue.id,
      window_minutes: windowMinutes,
      waiting: waiting.length,
      oldest_wait_seconds: waiting.length ? Math.max(...waiting.map((m) => seconds(m.enqueued_at, now))) : 0,
      answered: answered.length,
      abandoned,
      abandonment_rate: ratio(abandoned, ended.length),
      average_speed_of_answer_seconds: average(answered.map((m) => Number(m.wait_seconds ?? 0))),
      service_level_seconds: level,
      service_level: ratio(answered.filter((m) => Number(m.wait_seconds ?? 0) <= level).length, ended.length),
      average_handle_seconds: average(handled),
      workers: byStatus,
    };
  }
}

function ratio(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 1000) / 1000;
}

function average(values: number[]): number {
  return values.length === 0 ? 0 : Math.round(values.reduce((a, b) => a + b, 0) / values.length);
}

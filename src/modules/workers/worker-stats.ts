// GET /v1/workers/{id}/stats: a worker's statistics over a window, summed from its status
// history (migration 0038, written in the transaction of every move), so every node answers
// the same and a change a crash rolled back is never counted. Talk is time busy, wrap-up time
// in wrap_up, idle time available; offline time is none of them. A call handled is one that
// bridged the worker to its caller: a worker who answers an offer whose caller has just hung up
// is busy a moment (it hears that the caller is gone) but handled nothing.
import type { Kysely } from 'kysely';
import type { Tables } from '../../store/tables.ts';
import type { Mode } from '../../store/platform-tables.ts';
import type { Platform } from '../../platform/context.ts';
import type { Clock } from '../../platform/clock.ts';
import { notFound } from '../../platform/problems.ts';
import { realSeconds } from '../queues/members.ts';
import type { WorkerStatus, WorkerStatusHistoryRow } from './tables.ts';

type Point = Pick<WorkerStatusHistoryRow, 'change' | 'status' | 'at'>;

export class WorkerStats {
  private readonly db: Kysely<Tables>;

  constructor(private readonly platform: Platform) {
    this.db = platform.database.db;
  }

  async of(accountId: string, mode: Mode, clock: Clock, workerId: string, windowMinutes: number) {
    const worker = await this.db.selectFrom('workers').select(['id', 'status']).where('id', '=', workerId)
      .where('account_id', '=', accountId).where('mode', '=', mode).executeTakeFirst();
    if (!worker) throw notFound('worker', workerId);
    const nowMs = clock.now().getTime();
    const since = new Date(nowMs - realSeconds(this.platform, mode, windowMinutes * 60) * 1000).toISOString();
    const history = this.db.selectFrom('worker_status_history').select(['change', 'status', 'at', 'call_id', 'caller_call_id']).where('worker_id', '=', worker.id);
    // The status the worker was in when the window opened, then everything since, in order.
    const opening = await history.where('at', '<', since).orderBy('seq', 'desc').limit(1).executeTakeFirst();
    const within = await history.where('at', '>=', since).orderBy('seq').execute();
    const points: Point[] = opening ? [{ ...opening, change: 'status', at: since }, ...within] : within;
    const handled = await this.bridged(within.filter((p) => p.change === 'status' && p.status === 'busy'));

    const ms = timeByStatus(points, nowMs);
    const scale = mode === 'sandbox' ? this.platform.config.simTimeScale : 1;
    const seconds = (status: WorkerStatus) => Math.floor(ms[status] / 1000 / scale);
    const talk = seconds('busy');
    const wrapUp = seconds('wrap_up');
    const idle = seconds('available');
    return {
      object: 'worker_stats' as const,
      worker_id: worker.id,
      window_minutes: windowMinutes,
      status: worker.status,
      calls_handled: handled,
      calls_missed: within.filter((p) => p.change === 'missed').length,
      talk_seconds: talk,
      wrap_up_seconds: wrapUp,
      idle_seconds: idle,
      occupancy: talk + wrapUp + idle === 0 ? 0 : Math.round(((talk + wrapUp) / (talk + wrapUp + idle)) * 1000) / 1000,
    };
  }

  /** How many of these busy moves' calls were bridged to the caller they were offered (by the caller's stay in the queue). */
  private async bridged(busy: Array<Pick<WorkerStatusHistoryRow, 'call_id' | 'caller_call_id'>>): Promise<number> {
    const offered = busy.filter((b) => b.call_id && b.caller_call_id);
    if (offered.length === 0) return 0;
    const stays = await this.db.selectFrom('queue_members').select(['call_id', 'peer_call_id'])
      .where('call_id', 'in', offered.map((b) => b.caller_call_id!)).where('reason', '=', 'bridged').execute();
    const pairs = new Set(stays.map((s) => `${s.call_id} ${s.peer_call_id}`));
    return offered.filter((b) => pairs.has(`${b.caller_call_id} ${b.call_id}`)).length;
  }
}

/**
 * Milliseconds spent in each status: each point starts an interval in its status that the next
 * point (or now) ends. A miss starts one in the same status, which changes no sum. Intervals a
 * node's clock skew would make negative count as none.
 */
export function timeByStatus(points: readonly Point[], nowMs: number): Record<WorkerStatus, number> {
  const ms: Record<WorkerStatus, number> = { available: 0, busy: 0, wrap_up: 0, offline: 0 };
  points.forEach((point, i) => {
    const end = i + 1 < points.length ? Date.parse(points[i + 1]!.at) : nowMs;
    ms[point.status] += Math.max(0, end - Date.parse(point.at));
  });
  return ms;
}

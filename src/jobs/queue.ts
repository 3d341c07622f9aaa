// A durable job queue in the database. Jobs are enqueued inside the caller's transaction
// (so a job exists exactly when the change that scheduled it committed), claimed with a
// lease (PostgreSQL: FOR UPDATE SKIP LOCKED, so several nodes share the work), retried with
// backoff, and survive restarts. A finished job is deleted; a job that exhausts its
// attempts stays as `failed` for inspection. A job may belong to one media node (`node`):
// only that node claims it, the others pass it over, and on PostgreSQL a NOTIFY at the commit
// wakes that node's worker at once (the node listens: carriers/sip/node-commands.ts).
//
// Lanes: a job of a named lane (`lane`, e.g. webhook deliveries) is claimed by that lane's
// own loop into its own slots, so it never waits for a free slot behind jobs of another
// kind (a burst of carrier submits filling every slot), and never waits behind their
// backlog in the claim's index walk (jobs(lane, state, run_at, id), migration 0043). Every
// queue that starts runs every lane, so no job is left without a claimer.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/db.ts';
import type { Tables } from '../store/tables.ts';
import type { JobRow } from '../store/platform-tables.ts';
import type { Trx } from '../store/transaction.ts';
import type { Clock } from '../platform/clock.ts';
import { newId } from '../platform/ids.ts';
import { inRequestScope, outsideRequestScope } from '../store/request-transaction.ts';
import { prepareInsert } from '../store/prepared.ts';
import { deferInsert } from '../store/batch-scope.ts';

/** Every event's delivery and every carrier step enqueues a job: the insert is compiled once (a job with a `node` has one more column and goes through Kysely). */
const insertJob = prepareInsert('jobs', ['id', 'kind', 'payload', 'run_at', 'state', 'attempts', 'max_attempts', 'locked_until', 'locked_by', 'last_error', 'clock_id', 'lane', 'created_at']);

/** The named lanes; a job of none (lane null) runs in the default lane. */
export const LANES = ['webhooks'] as const;
export type Lane = (typeof LANES)[number];

export interface JobContext {
  job: JobRow;
  /** 1 on the first run. */
  attempt: number;
}

export type JobHandler<P = any> = (payload: P, ctx: JobContext) => Promise<void>;

export interface JobKindOptions {
  maxAttempts?: number;
  /** Seconds to wait before attempt n+1 after attempt n failed. */
  backoffSeconds?: (attempt: number) => number;
}

export interface EnqueueOptions {
  /** Run after this many seconds (of the job's clock); default now. */
  delaySeconds?: number;
  /** A sandbox test clock: advancing it brings this job forward. */
  clockId?: string | null;
  maxAttempts?: number;
  /**
   * Only this media node may claim the job (it acts on a live call whose dialog and media live
   * in that node's memory); default any node.
   */
  node?: string | null;
  /** Claimed and run in this lane's own slots (see the top of this file); default the shared lane. */
  lane?: Lane;
}

export interface JobQueueOptions {
  /** Slots of the default lane. */
  concurrency: number;
  /** Slots of each named lane; default `concurrency`. 0 turns a lane off. */
  laneConcurrency?: Partial<Record<Lane, number>>;
  pollMs: number;
  leaseMs: number;
  onError: (err: unknown, job: JobRow) => void;
}

/** One claim loop with its own slots: the default lane (name null) or a named one. */
interface LaneLoop {
  name: Lane | null;
  concurrency: number;
  active: number;
  notified: boolean;
  wake: (() => void) | null;
  loop: Promise<void> | null;
  lastExpiredScan: number;
}

interface Registered {
  handler: JobHandler;
  maxAttempts: number;
  backoffSeconds: (attempt: number) => number;
}

/** The channel a job given to a node wakes that node on (the payload is the node's id). */
export const NODE_WAKE_CHANNEL = 'switchboard_nodes';

const EXPIRED_SCAN_MS = 1000;
const defaultBackoff = (attempt: number) => Math.min(3600, 2 ** attempt);

export class JobQueue {
  private readonly kinds = new Map<string, Registered>();
  private readonly db: Kysely<Tables>;
  private readonly workerId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private running = false;
  private active = 0;
  private readonly lanes: LaneLoop[];
  private idle: Array<() => void> = [];
  private finished: string[] = [];
  private flushing: Promise<void> | null = null;
  private renewTimer: NodeJS.Timeout | null = null;
  /** The media node this process is (PostgreSQL with live SIP calls); null: it claims only jobs of no node. */
  private node: string | null = null;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly opts: JobQueueOptions,
  ) {
    this.db = database.db;
    const loop = (name: Lane | null, concurrency: number): LaneLoop => ({ name, concurrency, active: 0, notified: false, wake: null, loop: null, lastExpiredScan: 0 });
    // A queue with the worker off (concurrency 0) claims nothing in any lane.
    this.lanes = [loop(null, opts.concurrency), ...LANES.map((name) => loop(name, opts.concurrency === 0 ? 0 : opts.laneConcurrency?.[name] ?? opts.concurrency))];
  }

  /** From now on this process also claims the jobs that belong to media node `nodeId`. */
  serveNode(nodeId: string): void {
    this.node = nodeId;
  }

  /** The media node this process serves (set by serveNode); null: none (SQLite, or no live carrier). */
  get servedNode(): string | null {
    return this.node;
  }

  register<P>(kind: string, handler: JobHandler<P>, opts: JobKindOptions = {}): void {
    if (this.kinds.has(kind)) throw new Error(`job kind ${kind} registered twice`);
    this.kinds.set(kind, {
      handler,
      maxAttempts: opts.maxAttempts ?? 10,
      backoffSeconds: opts.backoffSeconds ?? defaultBackoff,
    });
  }

  /** Schedules a job inside `trx`; the worker is woken once the transaction commits. */
  async enqueue(trx: Trx, kind: string, payload: unknown, opts: EnqueueOptions = {}): Promise<string> {
    const id = newId('job');
    await insertJob(trx, this.row(id, kind, payload, opts));
    if (!opts.delaySeconds) trx.afterCommit(() => this.notifyLane(opts.lane ?? null));
    // Delivered at the commit: the node need not wait for its next poll (the poll is the durable path).
    if (opts.node && !opts.delaySeconds && this.database.engine === 'postgres') await sql`select pg_notify(${NODE_WAKE_CHANNEL}, ${opts.node})`.execute(trx);
    return id;
  }

  /** Many jobs in one insert: the hot path of fan-out (one event, many webhook endpoints). */
  async enqueueMany(trx: Trx, jobs: Array<{ kind: string; payload: unknown; opts?: EnqueueOptions }>): Promise<void> {
    if (jobs.length === 0) return;
    const rows = jobs.map((j) => this.row(newId('job'), j.kind, j.payload, j.opts ?? {}));
    // In a ledger batch, inserted with the batch's other jobs before it commits (batch-scope.ts).
    if (!deferInsert(trx, 'jobs', rows)) {
      if (rows.length === 1) await insertJob(trx, rows[0]!);
      else await trx.insertInto('jobs').values(rows).execute();
    }
    const lanes = new Set(jobs.map((j) => j.opts?.lane ?? null));
    trx.afterCommit(() => lanes.forEach((lane) => this.notifyLane(lane)));
  }

  private row(id: string, kind: string, payload: unknown, opts: EnqueueOptions): JobRow {
    const registered = this.kinds.get(kind);
    const now = this.clock.now();
    return {
      id,
      kind,
      payload: JSON.stringify(payload),
      run_at: new Date(now.getTime() + (opts.delaySeconds ?? 0) * 1000).toISOString(),
      state: 'pending',
      attempts: 0,
      max_attempts: opts.maxAttempts ?? registered?.maxAttempts ?? 10,
      locked_until: null,
      locked_by: null,
      last_error: null,
      clock_id: opts.clockId ?? null,
      lane: opts.lane ?? null,
      ...(opts.node ? { node: opts.node } : {}),
      created_at: now.toISOString(),
    };
  }

  /**
   * Pending jobs of `kind` waiting out a retry backoff become due now: what they waited for
   * (a carrier link binding again) is back, so they need not wait up to a minute more.
   */
  async runNow(kind: string): Promise<number> {
    const now = this.clock.now().toISOString();
    const result = await this.db.updateTable('jobs').set({ run_at: now })
      .where('kind', '=', kind).where('state', '=', 'pending').where('run_at', '>', now).executeTakeFirst();
    const moved = Number(result.numUpdatedRows);
    if (moved > 0) this.notify();
    return moved;
  }

  /** Something may be claimable in any lane (a job was made due from outside this process). */
  notify(): void {
    for (const lane of this.lanes) this.wakeLoop(lane);
  }

  /** A commit enqueued a job of `lane`, or a job of it finished and freed a slot: only that lane looks. */
  private notifyLane(name: Lane | null): void {
    const lane = this.lanes.find((l) => l.name === name);
    if (lane) this.wakeLoop(lane);
  }

  private wakeLoop(lane: LaneLoop): void {
    lane.notified = true;
    lane.wake?.();
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    for (const lane of this.lanes) lane.loop = this.run(lane);
    // A lease covers a dead worker, not a slow one: while this process is alive its running
    // jobs keep their leases, so a job that waits long (an SMPP window slot, a slow webhook)
    // is never claimed by a second worker and run twice. Renewed at a third of the lease.
    this.renewTimer = setInterval(() => void this.renewLeases(), Math.max(50, Math.floor(this.opts.leaseMs / 3)));
    this.renewTimer.unref();
  }

  /** One statement extends the lease of every job this worker is running. */
  private async renewLeases(): Promise<void> {
    if (this.active === 0) return;
    const lockedUntil = new Date(this.clock.now().getTime() + this.opts.leaseMs).toISOString();
    await this.db.updateTable('jobs').set({ locked_until: lockedUntil })
      .where('state', '=', 'running').where('locked_by', '=', this.workerId)
      .execute()
      .catch((err) => this.opts.onError(err, { id: 'renew' } as JobRow));
  }

  /** Stops claiming, then waits for the jobs in hand to finish (graceful shutdown). */
  async stop(): Promise<void> {
    this.running = false;
    this.notify();
    await Promise.all(this.lanes.map((lane) => lane.loop));
    while (this.active > 0) await new Promise<void>((resolve) => this.idle.push(resolve));
    if (this.renewTimer) clearInterval(this.renewTimer);
    this.renewTimer = null;
  }

  /**
   * On SQLite only one server process works a data dir, so any job still marked running
   * at start-up belonged to a process that died: release it now instead of waiting for
   * its lease. On PostgreSQL other nodes may be alive; leases expire on their own.
   */
  async releaseOrphans(): Promise<number> {
    if (this.database.engine !== 'sqlite') return 0;
    const result = await this.db.updateTable('jobs').set({ state: 'pending', locked_until: null, locked_by: null })
      .where('state', '=', 'running').executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  private async run(lane: LaneLoop): Promise<void> {
    if (lane.concurrency <= 0) return;
    while (this.running) {
      // A notify() that arrives while we claim must not be lost: without this flag the job
      // it announced would wait a whole poll interval (a 200 ms latency tail).
      lane.notified = false;
      const free = lane.concurrency - lane.active;
      let claimed: JobRow[] = [];
      if (free > 0) {
        try {
          claimed = await this.claim(Math.min(free, 100), null, lane);
        } catch (err) {
          this.opts.onError(err, { id: 'claim' } as JobRow);
        }
      }
      for (const job of claimed) {
        lane.active++;
        this.active++;
        void this.execute(job).finally(() => {
          // A freed slot matters to a lane that was full: it stopped claiming, and jobs
          // committed meanwhile wait for this wake-up. The webhooks lane with free slots was
          // woken by its jobs' commits already (its only delayed jobs are retries, seconds
          // away, which the poll finds), so another claim there would find nothing: one more
          // write per delivery, waiting for a group commit on SQLite, for nothing. The
          // default lane looks again after every job: chains of steps a few milliseconds
          // apart (the simulator's scaled delays) run back to back instead of a poll apart.
          const wasFull = lane.active >= lane.concurrency;
          lane.active--;
          this.active--;
          if (this.active === 0) this.idle.splice(0).forEach((f) => f());
          if (wasFull || lane.name === null) this.wakeLoop(lane);
        });
      }
      if ((claimed.length === 0 || lane.active >= lane.concurrency) && !lane.notified) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.opts.pollMs);
          lane.wake = () => {
            clearTimeout(timer);
            lane.wake = null;
            resolve();
          };
        });
      }
    }
  }

  /**
   * Claims due jobs of `lane`. `clockId` (a string) restricts the claim to one test clock's
   * jobs, in order, of every lane (a clock advance runs them all itself).
   */
  private async claim(limit: number, clockId: string | null, lane: LaneLoop | null): Promise<JobRow[]> {
    const now = this.clock.now().toISOString();
    // Two claims instead of one OR: with an OR, SQLite sorts every due row for each claim
    // (milliseconds per claim under a backlog of thousands of webhook deliveries), while
    // each half alone walks the (state, run_at, id) index and stops at `limit`.
    // Expired leases are rare (a dead worker): look for them at most every second, not on
    // every claim, which under load runs once per finished job.
    const nowMs = Date.parse(now);
    const lookForExpired = lane === null || nowMs - lane.lastExpiredScan >= EXPIRED_SCAN_MS;
    if (lookForExpired && lane !== null) lane.lastExpiredScan = nowMs;
    const expired = lookForExpired ? await this.take(this.due('running', now, limit, clockId, lane), now) : [];
    const fresh = expired.length < limit ? await this.take(this.due('pending', now, limit - expired.length, clockId, lane), now) : [];
    return [...expired, ...fresh].sort((a, b) => (a.run_at < b.run_at ? -1 : a.run_at > b.run_at ? 1 : a.id < b.id ? -1 : 1));
  }

  /** Ids of pending jobs due now, or of running jobs whose lease expired (their worker died). */
  private due(state: 'pending' | 'running', now: string, limit: number, clockId: string | null, lane: LaneLoop | null) {
    let due = this.db.selectFrom('jobs').select('id');
    if (lane !== null) due = lane.name === null ? due.where('lane', 'is', null) : due.where('lane', '=', lane.name);
    due = due.where('state', '=', state)
      .where(state === 'pending' ? 'run_at' : 'locked_until', '<=', now)
      .orderBy('run_at').orderBy('id').limit(limit);
    if (clockId !== null) due = due.where('clock_id', '=', clockId);
    if (this.database.engine === 'postgres') {
      // Only PostgreSQL runs several nodes; on SQLite no job has a node and the claim stays as it was.
      const node = this.node;
      due = due.where((eb) => (node === null ? eb('node', 'is', null) : eb.or([eb('node', 'is', null), eb('node', '=', node)])));
      due = due.forUpdate().skipLocked();
    }
    return due;
  }

  private take(due: ReturnType<JobQueue['due']>, now: string): Promise<JobRow[]> {
    return this.db.updateTable('jobs')
      .set((eb) => ({
        state: 'running',
        locked_until: new Date(Date.parse(now) + this.opts.leaseMs).toISOString(),
        locked_by: this.workerId,
        attempts: eb('attempts', '+', 1),
      }))
      .where('id', 'in', due)
      .returningAll()
      .execute();
  }

  private async execute(job: JobRow): Promise<void> {
    const registered = this.kinds.get(job.kind);
    try {
      if (!registered) throw new Error(`no handler for job kind ${job.kind}`);
      await registered.handler(JSON.parse(job.payload), { job, attempt: job.attempts });
      await this.complete(job.id);
    } catch (err) {
      this.opts.onError(err, job);
      const message = err instanceof Error ? err.message : String(err);
      const exhausted = job.attempts >= job.max_attempts;
      const delay = registered?.backoffSeconds(job.attempts) ?? 60;
      await this.db.updateTable('jobs')
        .set({
          state: exhausted ? 'failed' : 'pending',
          run_at: new Date(this.clock.now().getTime() + delay * 1000).toISOString(),
          locked_until: null,
          locked_by: null,
          last_error: message.slice(0, 1000),
        })
        .where('id', '=', job.id)
        .execute()
        .catch((e) => this.opts.onError(e, job));
    }
  }

  /**
   * A finished job is deleted together with the others that finished in the same turn of
   * the event loop: one statement (and on SQLite one commit) instead of one per job. If the
   * process dies before the flush, the job runs again after its lease, which handlers
   * tolerate (they are idempotent by rule).
   *
   * A job finished inside a request's transaction (a sandbox clock advance with an
   * Idempotency-Key drains its clock there) is deleted in that transaction, never through
   * the shared batch: the batch runs on its own connection, which on SQLite waits for the
   * very transaction that would be waiting for the batch (issue 22: the whole server froze),
   * and on PostgreSQL waits for the job row that transaction locked when it claimed it.
   */
  private complete(id: string): Promise<void> {
    if (inRequestScope()) return this.deleteFinished([id]);
    this.finished.push(id);
    // The batch belongs to no request: created outside every scope, whoever starts it.
    this.flushing ??= outsideRequestScope(() => new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      const ids = this.finished.splice(0);
      this.flushing = null;
      await this.deleteFinished(ids);
    }));
    return this.flushing;
  }

  private async deleteFinished(ids: string[]): Promise<void> {
    await this.db.deleteFrom('jobs').where('id', 'in', ids).where('locked_by', '=', this.workerId).execute();
  }

  /**
   * Runs every due job of one test clock, in run_at order, until none is left: what a
   * sandbox clock advance does before it answers. Jobs those jobs schedule are included.
   */
  async drainClock(clockId: string): Promise<number> {
    let ran = 0;
    for (;;) {
      const [job] = await this.claim(1, clockId, null);
      if (job) {
        await this.execute(job);
        ran++;
        continue;
      }
      // Inside a request's transaction (an advance with an Idempotency-Key) the drain runs
      // only what it claimed: a job in a worker's hands needs the connection this transaction
      // holds (SQLite) or rows it locked (PostgreSQL), so waiting for it would wait for
      // ourselves. Such a job was due before this advance; it finishes right after.
      if (inRequestScope()) return ran;
      // A job of this clock may be in a worker's hands right now: running, or (PostgreSQL)
      // still pending but locked by a worker's claim in flight, which SKIP LOCKED passed
      // over. Wait until no job of this clock is due or running.
      const now = this.clock.now().toISOString();
      const busy = await this.db.selectFrom('jobs').select('id').where('clock_id', '=', clockId)
        .where((eb) => eb.or([
          eb.and([eb('state', '=', 'running'), eb('locked_until', '>', now)]),
          eb.and([eb('state', '=', 'pending'), eb('run_at', '<=', now)]),
        ]))
        .executeTakeFirst();
      if (!busy) return ran;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

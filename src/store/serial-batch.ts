// Many small writes as one transaction. Items submitted within one turn of the event loop,
// or while the batch before them commits, are applied one after another inside a single
// transaction, and each caller hears its result only once that transaction has committed:
// the same "nothing acted on before it is durable" as one transaction per item, at the cost
// of one transaction per burst (one BEGIN/COMMIT or savepoint, one connection hand-off, one
// round trip of each on PostgreSQL) instead of one per item.
//
// One batch runs at a time: items of this batcher never interleave, which is the mutual
// exclusion a per-key lock gave them before (on this node). If any item throws, the whole
// batch rolled back and every item is applied again in a transaction of its own, so one bad
// item fails alone and the others still commit. Items must therefore be safe to apply again
// after a rollback, which every write in a transaction is.
import type { Kysely } from 'kysely';
import type { Tables } from './tables.ts';
import { inTransaction, type Trx } from './transaction.ts';
import { outsideRequestScope } from './request-transaction.ts';
import { flushDeferred, openBatchScope } from './batch-scope.ts';

export interface SerialBatchOptions<I> {
  /** At most this many items per transaction (bounds how long one holds the writer). */
  maxItems: number;
  /**
   * Items that join the batch being cut wherever they wait in the queue, up to `maxItems`
   * more. The rest keep their turn, so nothing starves.
   */
  joinEarly?: (item: I) => boolean;
  /** Applies a batch's items in this order (a stable sort) rather than as they came. */
  order?: (a: I, b: I) => number;
  /** Called after each item applied inside a batch, before the commit (a test failpoint). */
  afterItem?: (items: readonly I[], index: number) => void;
}

interface Pending<I, R> {
  item: I;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

export class SerialBatcher<I, R> {
  private queue: Pending<I, R>[] = [];
  private running = false;
  private scheduled = false;

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly apply: (trx: Trx, item: I) => Promise<R>,
    private readonly opts: SerialBatchOptions<I>,
  ) {}

  /** Applies `item` in the next batch; resolves once that batch has committed. */
  add(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.running || this.scheduled) return;
    this.scheduled = true;
    // The batch belongs to no request: a request-wide transaction must not swallow it.
    outsideRequestScope(() => setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    }));
  }

  private async flush(): Promise<void> {
    if (this.running || this.queue.length === 0) return;
    this.running = true;
    const batch = this.queue.splice(0, this.opts.maxItems);
    if (this.opts.joinEarly && this.queue.length > 0) {
      // At most `maxItems` of them: a batch stays within twice the bound (the deadline).
      const rest: Pending<I, R>[] = [];
      let joined = 0;
      for (const p of this.queue) {
        if (joined < this.opts.maxItems && this.opts.joinEarly(p.item)) {
          batch.push(p);
          joined++;
        } else {
          rest.push(p);
        }
      }
      this.queue = rest;
    }
    if (this.opts.order) batch.sort((a, b) => this.opts.order!(a.item, b.item));
    try {
      await this.runBatch(batch);
    } finally {
      this.running = false;
      if (this.queue.length > 0) this.schedule();
    }
  }

  private async runBatch(batch: Pending<I, R>[]): Promise<void> {
    const items = batch.map((p) => p.item);
    let results: R[];
    try {
      results = await inTransaction(this.db, async (trx) => {
        // Rows read once per batch, event/delivery/job rows inserted together (batch-scope.ts).
        openBatchScope(trx);
        const out: R[] = [];
        for (let i = 0; i < items.length; i++) {
          out.push(await this.apply(trx, items[i]!));
          this.opts.afterItem?.(items, i);
        }
        await flushDeferred(trx);
        return out;
      });
    } catch (err) {
      if (batch.length === 1) {
        batch[0]!.reject(err);
        return;
      }
      // Something in the batch failed and took the rest with it: each alone, so it fails alone.
      for (const p of batch) {
        await inTransaction(this.db, (trx) => this.apply(trx, p.item)).then(p.resolve, p.reject);
      }
      return;
    }
    batch.forEach((p, i) => p.resolve(results[i]!));
  }
}

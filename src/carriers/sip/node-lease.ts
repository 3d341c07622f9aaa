// Which media nodes are alive. A call's SIP dialog and RTP live in one node's memory, so
// when a node dies its calls cannot go on anywhere else: they must end, and someone must
// say so. Each node keeps its row in sip_nodes fresh; every node also sweeps for rows older
// than the lease and hands each dead node to `onDead` (which ends its calls), then deletes
// the row. Two survivors may sweep the same dead node: ending a call is idempotent.
import type { Kysely } from 'kysely';
import type { Tables } from '../../store/tables.ts';

export interface NodeLeaseOptions {
  nodeId: string;
  leaseSeconds: number;
  /** host:port of this node's SIP listener, where other nodes send node-to-node media legs. */
  sipAddress: string;
  /** Ends the live calls a dead node carried. */
  onDead(nodeId: string): Promise<void>;
  log(err: Error): void;
}

export class NodeLease {
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> = Promise.resolve();

  constructor(private readonly db: Kysely<Tables>, private readonly options: NodeLeaseOptions) {}

  async start(): Promise<void> {
    const now = new Date().toISOString();
    await this.db.insertInto('sip_nodes').values({ id: this.options.nodeId, started_at: now, heartbeat_at: now, sip_address: this.options.sipAddress }).execute();
    // A third of the lease: two missed beats in a row are still inside it.
    this.timer = setInterval(() => {
      this.beating = this.beat().catch((err: Error) => this.options.log(err));
    }, (this.options.leaseSeconds * 1000) / 3);
    this.timer.unref();
    // Calls of nodes that died while none was running (this one's own previous life, say).
    this.beating = this.sweep().catch((err: Error) => this.options.log(err));
  }

  /** A clean stop: the node has ended its calls itself, so its row simply goes. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.beating;
    await this.db.deleteFrom('sip_nodes').where('id', '=', this.options.nodeId).execute();
  }

  /** Where node `nodeId` takes node-to-node media legs; null when it is gone (or predates them). */
  async addressOf(nodeId: string): Promise<string | null> {
    const row = await this.db.selectFrom('sip_nodes').select('sip_address').where('id', '=', nodeId).executeTakeFirst();
    return row?.sip_address ?? null;
  }

  private async beat(): Promise<void> {
    const now = new Date().toISOString();
    const renewed = await this.db.updateTable('sip_nodes').set({ heartbeat_at: now }).where('id', '=', this.options.nodeId).executeTakeFirst();
    if (Number(renewed.numUpdatedRows) === 0) {
      // We stalled past the lease and a survivor declared us dead (and ended the calls it
      // found): we are alive again, so the calls we place from now on are ours to answer for.
      this.options.log(new Error(`node ${this.options.nodeId} missed its lease and was declared dead; rejoining`));
      await this.db.insertInto('sip_nodes').values({ id: this.options.nodeId, started_at: now, heartbeat_at: now, sip_address: this.options.sipAddress }).execute();
    }
    await this.sweep();
  }

  private async sweep(): Promise<void> {
    const stale = new Date(Date.now() - this.options.leaseSeconds * 1000).toISOString();
    const dead = await this.db.selectFrom('sip_nodes').select('id')
      .where('heartbeat_at', '<', stale).where('id', '<>', this.options.nodeId).limit(20).execute();
    for (const { id } of dead) {
      await this.options.onDead(id);
      await this.db.deleteFrom('sip_nodes').where('id', '=', id).execute();
    }
  }
}

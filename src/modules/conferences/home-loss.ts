// A conference is mixed in the memory of one media node, its home (conferences.node). When
// that node dies its mix, its room recording and the node-to-node legs it answered die with
// it, so the conference cannot go on anywhere: the node-loss rule that ends a dead node's
// calls (src/carriers/sip/cluster.ts) ends its conferences too, `end_reason` `node_lost`.
// The participants whose calls other nodes hold leave it (`conference_ended`) and go on with
// their flows; those the dead node held were ended with it (they left as `hangup`).
import type { Platform } from '../../platform/context.ts';
import { inTransaction } from '../../store/transaction.ts';
import type { ConferenceEvents } from '../../carriers/index.ts';
import type { ConferenceSeating } from './seating.ts';

export class ConferenceHomeLoss implements ConferenceEvents {
  constructor(private readonly platform: Platform, private readonly seating: ConferenceSeating) {}

  async homeLost(nodeId: string): Promise<void> {
    const { db } = this.platform.database;
    const open = await db.selectFrom('conferences').select('id').where('node', '=', nodeId).where('status', '!=', 'completed').execute();
    for (const { id } of open) {
      // One transaction each: two survivors sweeping the same dead node end each conference once (the lock, then its status).
      await inTransaction(db, async (trx) => {
        const locked = await this.seating.lock(trx, id);
        if (!locked || locked.status === 'completed' || locked.node !== nodeId) return;
        // Nothing the end sets off (the silent mix, the recording's stop) is sent to the dead node.
        await trx.updateTable('conferences').set({ node: null }).where('id', '=', id).execute();
        const clock = await this.platform.sandboxClocks.clockFor(locked.account_id, locked.mode, trx);
        await this.seating.end(trx, { ...locked, node: null }, 'node_lost', clock);
      });
    }
    if (open.length) this.platform.log.warn({ node: nodeId, conferences: open.length }, 'conferences: their home node died; ended');
  }
}

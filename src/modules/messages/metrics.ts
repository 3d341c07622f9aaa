// switchboard_messages_total: bumped where a message enters a status (created as queued or
// received, or moved by the state machine), once the change commits.
import type { Trx } from '../../store/transaction.ts';
import { messagesTotal } from '../../platform/metrics.ts';
import type { MessageRow } from './tables.ts';

export function countMessageStatus(trx: Trx, row: Pick<MessageRow, 'channel' | 'status'>): void {
  const labels = { channel: row.channel, status: row.status };
  trx.afterCommit(() => messagesTotal.inc(labels));
}

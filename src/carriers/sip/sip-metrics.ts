// switchboard_sip_responses_total, counted in the transaction layer: a response received once
// per client transaction state change (a retransmitted final is not counted again), a response
// sent once per server transaction answer (our own retransmissions of it are not either).
import { sipResponses } from '../../platform/metrics.ts';

type Children = Map<number, ReturnType<typeof sipResponses.labels>>;
const received: Children = new Map();
const sent: Children = new Map();

export function countSipResponse(code: number, direction: 'received' | 'sent'): void {
  const children = direction === 'received' ? received : sent;
  let child = children.get(code);
  if (!child) children.set(code, (child = sipResponses.labels({ code: String(code), direction })));
  child.inc();
}

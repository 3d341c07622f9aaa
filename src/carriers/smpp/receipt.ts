// Delivery receipts (deliver_sm with esm_class bit 2 set, SMPP 3.4 section 5.2.12) in both
// forms SMSCs send: the receipted_message_id and message_state TLVs, or only the text of
// Appendix B ("id:IIII sub:001 dlvrd:001 submit date:... done date:... stat:DELIVRD err:000").
// When both are present the TLVs win; the text still supplies `err`.
import type { Pdu } from 'smpp';

export type ReceiptOutcome = 'delivered' | 'undelivered' | 'failed' | 'pending';

export interface Receipt {
  carrierMessageId: string;
  outcome: ReceiptOutcome;
  /** The SMSC's final state name, e.g. UNDELIV. */
  state: string;
  /** The network error from `err:`, e.g. "001"; null when absent. */
  error: string | null;
}

const RECEIPT_FLAGS = 0x3c;

/** message_state values (section 5.3.2.35) by number. */
const STATE_NAMES: Record<number, string> = { 1: 'ENROUTE', 2: 'DELIVRD', 3: 'EXPIRED', 4: 'DELETED', 5: 'UNDELIV', 6: 'ACCEPTD', 7: 'UNKNOWN', 8: 'REJECTD' };

const OUTCOMES: Record<string, ReceiptOutcome> = {
  DELIVRD: 'delivered',
  UNDELIV: 'undelivered',
  EXPIRED: 'undelivered',
  UNKNOWN: 'undelivered',
  DELETED: 'failed',
  REJECTD: 'failed',
  ENROUTE: 'pending',
  ACCEPTD: 'pending',
};

export function isReceipt(pdu: Pdu): boolean {
  return (Number(pdu.esm_class) & RECEIPT_FLAGS) === 0x04;
}

export function parseReceipt(pdu: Pdu, text: string): Receipt | null {
  const fields = Object.fromEntries([...text.matchAll(/(id|stat|err):\s*([^\s]+)/gi)].map((m) => [m[1]!.toLowerCase(), m[2]!]));
  const tlvId = pdu.receipted_message_id ? String(pdu.receipted_message_id).replace(/\0+$/, '') : undefined;
  const id = tlvId || fields.id;
  const state = (typeof pdu.message_state === 'number' ? STATE_NAMES[pdu.message_state] : undefined) ?? fields.stat?.toUpperCase();
  if (!id || !state) return null;
  return { carrierMessageId: id, state, outcome: OUTCOMES[state] ?? 'undelivered', error: fields.err ?? null };
}

/** Message-id forms differ (hex in submit_sm_resp, decimal in receipts, on some SMSCs): compare as given, then as numbers. */
export function carrierIdVariants(id: string): string[] {
  const variants = new Set([id]);
  if (/^[0-9a-f]+$/i.test(id) && id.length <= 12) variants.add(String(parseInt(id, 16)));
  if (/^\d+$/.test(id) && id.length <= 15) variants.add(Number(id).toString(16));
  return [...variants];
}

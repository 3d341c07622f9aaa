// The simulated losing carrier of a port-in order (sandbox only). Deterministic: the
// magic values below drive the exception and rejection paths; every other order gets a
// firm order commitment (FOC) date 5 to 10 business days after its submission, the
// number of days fixed by the order id so the same order always gets the same date.
import { createHash } from 'node:crypto';
import { addBusinessDays } from '../../telephony/business-days.ts';
import type { PortReview, PortSubmission } from '../sandbox-network.ts';

/** Seconds (before config.simTimeScale) the losing carrier takes to answer a submission. */
export const PORT_REVIEW_SECONDS = 60;

export const PORT_MAGIC = {
  /** PIN that the losing carrier says is wrong: exception `wrong_pin`. */
  wrongPin: '0000',
  /** Account numbers starting with this: exception `account_number_mismatch`. */
  mismatchPrefix: 'MISMATCH',
  /** Account numbers starting with this: the losing carrier rejects the order. */
  rejectPrefix: 'REJECT',
} as const;

export type { PortReview, PortSubmission };

/** 5..10, fixed per order id. */
export function focBusinessDays(portId: string): number {
  return 5 + (createHash('sha256').update(portId).digest()[0]! % 6);
}

export function reviewPort(port: PortSubmission, holidays: readonly string[]): PortReview {
  if (port.accountNumber.toUpperCase().startsWith(PORT_MAGIC.rejectPrefix)) {
    return { outcome: 'rejected', reason: 'The losing carrier rejected the order: the numbers are not eligible for porting on this account.' };
  }
  if (port.pin === PORT_MAGIC.wrongPin) {
    return { outcome: 'exception', code: 'wrong_pin', detail: 'The losing carrier says the PIN does not match. Correct it with PATCH /v1/numbers/ports/{id}.' };
  }
  if (port.accountNumber.toUpperCase().startsWith(PORT_MAGIC.mismatchPrefix)) {
    return { outcome: 'exception', code: 'account_number_mismatch', detail: 'The losing carrier has no account with this number. Correct it with PATCH /v1/numbers/ports/{id}.' };
  }
  const businessDays = focBusinessDays(port.id);
  return { outcome: 'foc_scheduled', focDate: addBusinessDays(port.submittedAt, businessDays, holidays), businessDays };
}

// How a SIP failure reads on a call: final response codes and `Reason` headers (RFC 3326)
// mapped to the call's status and hangup cause. A Q.850 cause in a Reason header is the
// network's own word and wins over the response code (a 480 that says "cause=17" is busy).

export type FailedStatus = 'busy' | 'no_answer' | 'failed' | 'canceled';
export type SipHangupCause = 'user_busy' | 'no_answer' | 'call_rejected' | 'unallocated_number' | 'network_out_of_order' | 'originator_cancel' | 'normal_clearing';

export interface FailureOutcome {
  status: FailedStatus;
  cause: SipHangupCause;
}

const BY_Q850: Record<number, FailureOutcome> = {
  1: { status: 'failed', cause: 'unallocated_number' },
  16: { status: 'failed', cause: 'normal_clearing' },
  17: { status: 'busy', cause: 'user_busy' },
  18: { status: 'no_answer', cause: 'no_answer' },
  19: { status: 'no_answer', cause: 'no_answer' },
  21: { status: 'failed', cause: 'call_rejected' },
  27: { status: 'failed', cause: 'network_out_of_order' },
  38: { status: 'failed', cause: 'network_out_of_order' },
};

export function failureOutcome(status: number, reason?: { protocol: string; cause: number | undefined }): FailureOutcome {
  if (reason?.protocol === 'Q.850' && reason.cause !== undefined && BY_Q850[reason.cause]) return BY_Q850[reason.cause] as FailureOutcome;
  if (status === 486 || status === 600) return { status: 'busy', cause: 'user_busy' };
  if (status === 408 || status === 480) return { status: 'no_answer', cause: 'no_answer' };
  if (status === 487) return { status: 'canceled', cause: 'originator_cancel' };
  if (status === 404 || status === 484 || status === 604) return { status: 'failed', cause: 'unallocated_number' };
  if (status === 403 || status === 603 || (status >= 400 && status < 500)) return { status: 'failed', cause: 'call_rejected' };
  return { status: 'failed', cause: 'network_out_of_order' };
}

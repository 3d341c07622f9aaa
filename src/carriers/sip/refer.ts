// Blind transfer by REFER (RFC 3515): we ask the far end (the carrier) to call the target
// itself; it answers 202 and reports the new call's progress in NOTIFYs whose body is a
// message/sipfrag status line (RFC 3420). The final status decides the outcome. On success
// the transferor leaves (RFC 5589: we send BYE); on failure the original call stays up.
import type { Dialog } from './dialog.ts';
import type { SipRequest } from './message.ts';
import type { TransferOutcome } from '../../telephony/call-end.ts';

/** The outcome a sipfrag final status means; undefined while it is provisional (1xx). */
export function sipfragOutcome(body: string): TransferOutcome | undefined {
  const match = /^\s*SIP\/2\.0\s+(\d{3})/.exec(body);
  if (!match) return undefined;
  const status = Number(match[1]);
  if (status < 200) return undefined;
  if (status < 300) return 'completed';
  if (status === 486 || status === 600) return 'busy';
  if (status === 408 || status === 480 || status === 487) return 'no_answer';
  return 'failed';
}

/**
 * Sends REFER to `target` on `dialog` and resolves with the transfer's outcome: the REFER's
 * own refusal, the final sipfrag NOTIFY, or no_answer when no final NOTIFY came within
 * `waitSeconds` (the far end rang the target that long).
 */
export async function referTransfer(dialog: Dialog, target: string, referredBy: string, waitSeconds: number): Promise<{ outcome: TransferOutcome; detail: string }> {
  let onNotify: (request: SipRequest) => void = () => {};
  let onEnded: () => void = () => {};
  let timer: NodeJS.Timeout | undefined;
  const final = new Promise<{ outcome: TransferOutcome; detail: string }>((resolve) => {
    onNotify = (request) => {
      const event = (request.headers.get('event') ?? '').toLowerCase();
      if (!event.startsWith('refer')) return;
      const outcome = sipfragOutcome(request.body);
      if (outcome) resolve({ outcome, detail: `NOTIFY ${request.body.trim().split(/\r?\n/)[0]}` });
    };
    // The far end hung up before telling us how the transfer went: it did not connect here.
    onEnded = () => resolve({ outcome: 'failed', detail: 'the call ended before the transfer reported its outcome' });
    timer = setTimeout(() => resolve({ outcome: 'no_answer', detail: `no final NOTIFY within ${waitSeconds} s` }), waitSeconds * 1000);
  });
  dialog.on('notify', onNotify);
  dialog.once('ended', onEnded);
  try {
    const response = await dialog.request('REFER', { headers: { 'Refer-To': `<${target}>`, 'Referred-By': `<${referredBy}>` } });
    if (response.status >= 300) return { outcome: 'failed', detail: `REFER answered ${response.status} ${response.reason}` };
    return await final;
  } finally {
    clearTimeout(timer);
    dialog.off('notify', onNotify);
    dialog.off('ended', onEnded);
  }
}

// The simulated messaging network (sandbox). Deterministic: the destination decides the
// outcome, and every step is a durable job on the account's sandbox test clock, each
// scheduling the next in the transaction that records the previous one.
//
//   any other destination   sending -> sent -> delivered (-> read, WhatsApp only)
//   +15005550009            sending -> sent -> undelivered   (unreachable handset)
//   +15005550010            sending -> failed                (carrier refused the message)
//   +15005550011            waits `queued` (congested network) for HOLD_SECONDS, then as any other
//
// Delays (seconds of simulated time, times config.simTimeScale): sent 1, delivered 2,
// read 3 after the previous step.
import type { JobQueue } from '../../jobs/queue.ts';
import type { Trx } from '../../store/transaction.ts';
import type { CarrierMessage, CarrierStatus, MessageStatusSink, MessagingCarrier, QueuedHold, StatusReport } from '../messaging-carrier.ts';

export const MESSAGING_MAGIC_NUMBERS = {
  undelivered: '+15005550009',
  failed: '+15005550010',
  congested: '+15005550011',
} as const;

/**
 * Simulated seconds a message to the congested number waits `queued`. Not scaled by the time
 * scale: it stands for a live link that is down, and leaves time to cancel the message (advance
 * the test clock to let it go).
 */
export const HOLD_SECONDS = 60;

export const SIM_MESSAGE_STEP_JOB = 'sim.messaging.step';

// `sending` is never a simulator step (the dispatch job moves the message there).
const STEP_SECONDS: Record<CarrierStatus, number> = { sending: 0, sent: 1, failed: 1, delivered: 2, undelivered: 2, read: 3 };

interface Step {
  messageId: string;
  accountId: string;
  channel: CarrierMessage['channel'];
  to: string;
  status: CarrierStatus;
}

/** What follows a step for this destination and channel, or null at the end. */
export function nextStatus(step: Pick<Step, 'channel' | 'to' | 'status'> | { channel: CarrierMessage['channel']; to: string; status: 'sending' }): CarrierStatus | null {
  switch (step.status) {
    case 'sending':
      return step.to === MESSAGING_MAGIC_NUMBERS.failed ? 'failed' : 'sent';
    case 'sent':
      return step.to === MESSAGING_MAGIC_NUMBERS.undelivered ? 'undelivered' : 'delivered';
    case 'delivered':
      return step.channel === 'whatsapp' ? 'read' : null;
    default:
      return null;
  }
}

function reportFor(step: Step): StatusReport {
  if (step.status === 'failed') return { messageId: step.messageId, status: 'failed', errorCode: 'carrier_rejected', errorMessage: 'The carrier refused the message (sandbox magic number +15005550010).' };
  if (step.status === 'undelivered') return { messageId: step.messageId, status: 'undelivered', errorCode: 'unreachable_destination', errorMessage: 'The handset could not be reached (sandbox magic number +15005550009).' };
  return { messageId: step.messageId, status: step.status };
}

export class SimulatedMessagingCarrier implements MessagingCarrier {
  readonly name = 'simulator';
  private sink: MessageStatusSink | null = null;

  constructor(private readonly jobs: JobQueue, private readonly timeScale: number) {
    jobs.register<Step>(SIM_MESSAGE_STEP_JOB, (step) => this.run(step));
  }

  attach(sink: MessageStatusSink): void {
    this.sink = sink;
  }

  holdQueued(to: string): QueuedHold | null {
    if (to !== MESSAGING_MAGIC_NUMBERS.congested) return null;
    return { seconds: HOLD_SECONDS, reason: `The sandbox network is congested for ${to} (magic number): the message waits ${HOLD_SECONDS} s of the test clock before it is sent.` };
  }

  async submit(trx: Trx, message: CarrierMessage): Promise<void> {
    const first = nextStatus({ channel: message.channel, to: message.to, status: 'sending' })!;
    await this.schedule(trx, { messageId: message.id, accountId: message.accountId, channel: message.channel, to: message.to, status: first });
  }

  private async run(step: Step): Promise<void> {
    if (!this.sink) throw new Error('the simulated messaging carrier has no status sink attached');
    // A duplicate run (after a crash) reports again; the sink answers 'duplicate' and the
    // next step, scheduled with the first report, is not scheduled twice.
    await this.sink(reportFor(step), async (trx) => {
      const next = nextStatus(step);
      if (next) await this.schedule(trx, { ...step, status: next });
    });
  }

  private schedule(trx: Trx, step: Step): Promise<string> {
    return this.jobs.enqueue(trx, SIM_MESSAGE_STEP_JOB, step, {
      delaySeconds: STEP_SECONDS[step.status] * this.timeScale,
      clockId: step.accountId,
    });
  }
}

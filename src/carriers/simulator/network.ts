// The sandbox network (../sandbox-network.ts) over the simulator: inbound rings and scripted
// callers go to its voice carrier, the far end's keys and words to its media port, port
// reviews to the simulated losing carrier.
import type { Trx } from '../../store/transaction.ts';
import type { CallRef } from '../../telephony/call-ref.ts';
import type { HeardInput } from '../../telephony/media-ops.ts';
import type { CallerStep, PortReview, PortSubmission, SandboxNetwork } from '../sandbox-network.ts';
import type { SimulatedVoiceCarrier } from './voice.ts';
import { RING_SECONDS } from './magic-numbers.ts';
import { PORT_REVIEW_SECONDS, reviewPort } from './porting.ts';

export class SimulatedNetwork implements SandboxNetwork {
  readonly ringSeconds = RING_SECONDS;
  readonly portReviewSeconds = PORT_REVIEW_SECONDS;

  constructor(private readonly voice: SimulatedVoiceCarrier) {}

  ringInbound(trx: Trx, call: CallRef, script: CallerStep[]): Promise<void> {
    return this.voice.ringInbound(trx, call, script);
  }

  takeCallerLines(trx: Trx, call: CallRef): Promise<string[]> {
    return this.voice.takeCallerLines(trx, call);
  }

  farEnd(trx: Trx, call: CallRef, input: Extract<HeardInput, { kind: 'dtmf' | 'speech' }>): Promise<void> {
    return this.voice.media.farEnd(trx, call, input);
  }

  reviewPort(port: PortSubmission, holidays: readonly string[]): PortReview {
    return reviewPort(port, holidays);
  }
}

// Sandbox-only tools: the account's test clock, and injecting what the simulated network
// would deliver (inbound messages). Live keys get 403 mode_not_supported.
import type { Mode } from '../../store/platform-tables.ts';
import type { Platform } from '../../platform/context.ts';
import { Problem, invalidField } from '../../platform/problems.ts';

export interface ClockView {
  object: 'sandbox_clock';
  now: string;
  offset_seconds: number;
  jobs_run?: number;
}

export function assertSandbox(mode: Mode, what: string): void {
  if (mode !== 'sandbox') throw new Problem('mode_not_supported', `${what} exists only in the sandbox; use a sandbox key (sb_test_...).`);
}

export class SandboxService {
  constructor(private readonly platform: Platform) {}

  async clock(accountId: string, mode: Mode): Promise<ClockView> {
    assertSandbox(mode, 'The test clock');
    return this.view(await this.platform.sandboxClocks.offsetMs(accountId));
  }

  /**
   * Moves the clock forward, runs every job that fell due in order, then answers. An
   * Idempotency-Key moves the clock at most once, however often the request is retried.
   */
  async advance(accountId: string, mode: Mode, by: { seconds: number } | { to: string }, idempotencyKey?: string): Promise<ClockView> {
    assertSandbox(mode, 'The test clock');
    let ms: number;
    if ('seconds' in by) {
      ms = Math.round(by.seconds * 1000);
      if (ms <= 0) throw invalidField('seconds', 'must move the clock forward by at least 1 ms.', 'too_small');
    } else {
      const now = (await this.platform.sandboxClocks.clockFor(accountId, 'sandbox')).now();
      ms = Date.parse(by.to) - now.getTime();
      if (!(ms > 0)) throw invalidField('to', `must be later than the sandbox clock's current time ${now.toISOString()}; test clocks only move forward.`, 'too_small');
    }
    const { offsetMs, jobsRun } = await this.platform.sandboxClocks.advance(accountId, ms, idempotencyKey);
    return { ...this.view(offsetMs), jobs_run: jobsRun };
  }

  private view(offsetMs: number): ClockView {
    return {
      object: 'sandbox_clock',
      now: new Date(this.platform.clock.now().getTime() + offsetMs).toISOString(),
      offset_seconds: offsetMs / 1000,
    };
  }
}

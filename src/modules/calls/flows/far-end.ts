// The sandbox's far end, played by hand: POST /v1/sandbox/calls/{id}/press and /say make the
// simulated other party press keys or speak on a call in progress (speech is heard as the
// exact text: the sandbox needs no recogniser). A gather running on the call hears it;
// otherwise it is only noted as heard. Sandbox keys only.
import type { Platform } from '../../../platform/context.ts';
import type { Mode } from '../../../store/platform-tables.ts';
import { inTransaction } from '../../../store/transaction.ts';
import { Problem } from '../../../platform/problems.ts';
import { assertSandbox } from '../../sandbox/service.ts';
import type { SandboxNetwork } from '../../../carriers/index.ts';
import type { CallService } from '../service.ts';
import type { Call } from '../presenter.ts';

export class SandboxFarEnd {
  constructor(private readonly platform: Platform, private readonly calls: CallService, private readonly sandbox: SandboxNetwork) {}

  press(accountId: string, mode: Mode, callId: string, digits: string): Promise<Call> {
    return this.act(accountId, mode, callId, { kind: 'dtmf', digits });
  }

  say(accountId: string, mode: Mode, callId: string, text: string): Promise<Call> {
    return this.act(accountId, mode, callId, { kind: 'speech', text });
  }

  private async act(accountId: string, mode: Mode, callId: string, input: { kind: 'dtmf'; digits: string } | { kind: 'speech'; text: string }): Promise<Call> {
    assertSandbox(mode, 'Acting as the other party of a call');
    await inTransaction(this.platform.database.db, async (trx) => {
      const call = await this.calls.lockOwned(trx, accountId, mode, callId);
      if (call.status !== 'in_progress') {
        throw new Problem('call_not_in_progress', `The other party can only press keys or speak on a call in progress; call ${callId} is ${call.status}.`);
      }
      await this.sandbox.farEnd(trx, call, input);
    });
    return this.calls.get(accountId, mode, callId);
  }
}

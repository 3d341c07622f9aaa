// `switchboard carriers check` for an SMPP link: bind as the server would, then unbind.
import type { ProbeResult } from '../config/registry.ts';
import type { SmppBindConfig } from './config.ts';
import { closeSession, openSession } from './connect.ts';

export async function probeSmppBind(bind: SmppBindConfig, timeoutMs: number): Promise<ProbeResult> {
  const command = bind.bind === 'transceiver' ? 'bind_transceiver' : 'bind_transmitter';
  try {
    const session = await openSession(bind, command, timeoutMs);
    await closeSession(session);
    return { ok: true, detail: `bound (${command.replace('bind_', '')}) and unbound` };
  } catch (err) {
    return { ok: false, detail: (err as Error).message };
  }
}

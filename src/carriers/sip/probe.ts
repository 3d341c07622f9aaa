// `switchboard carriers check` for a SIP trunk: an OPTIONS from an ephemeral port, with
// digest credentials when the trunk challenges. Any final answer proves the trunk is
// reachable; 2xx (or a 405 from a trunk that refuses OPTIONS) means it is usable. A trunk
// that registers is also asked a REGISTER without a Contact, which checks its credentials
// and binds nothing. Over TLS the handshake is checked as a call would make it (our CA
// file, verification on), so a certificate problem shows here with the TLS error.
import { SipTransport } from './transport.ts';
import { UserAgent } from './user-agent.ts';
import { transportTls } from './tls.ts';
import { trunkPeer, trunkUri } from './trunk-target.ts';
import { registrationDialog } from './registration.ts';
import type { SipTlsSettings, TrunkSettings } from './settings.ts';

export async function probeTrunk(trunk: TrunkSettings, tls: SipTlsSettings, timeoutMs: number): Promise<{ ok: boolean; detail: string }> {
  const peer = trunkPeer(trunk);
  // Stream transports need no listener to send; UDP needs its socket.
  const transport = new SipTransport({
    host: trunk.host.includes(':') ? '::' : '0.0.0.0', udpPort: peer.transport === 'UDP' ? 0 : undefined,
    tls: peer.transport === 'TLS' ? transportTls(tls) : undefined,
  });
  await transport.start();
  const ua = new UserAgent({ transport, publicHost: '127.0.0.1', timers: { t1: Math.min(500, timeoutMs / 64), t2: 4000, linger: 0 } });
  const credentials = trunk.username && trunk.password ? { username: trunk.username, password: trunk.password } : undefined;
  try {
    const started = Date.now();
    const response = await ua.options(trunkUri(trunk), peer, credentials);
    const ms = Date.now() - started;
    if (response.local === 'timeout') return { ok: false, detail: `no answer to OPTIONS within ${timeoutMs} ms` };
    if (response.local === 'transport') return { ok: false, detail: response.reason.replace(/^Service Unavailable \((.*)\)$/, '$1') };
    const ok = (response.status >= 200 && response.status < 300) || response.status === 405;
    const detail = `OPTIONS answered ${response.status} ${response.reason} in ${ms} ms`;
    if (!ok || !trunk.register || !credentials) return { ok, detail };
    // A registering trunk: check its credentials with a REGISTER that binds nothing (no Contact).
    const query = await ua.register(registrationDialog({ ...trunk, username: credentials.username }, '127.0.0.1'), peer, null, credentials);
    const registers = query.status >= 200 && query.status < 300;
    return { ok: registers, detail: `${detail}; REGISTER ${registers ? 'accepted' : 'refused'}: ${query.status} ${query.reason}` };
  } catch (err) {
    return { ok: false, detail: (err as Error).message };
  } finally {
    ua.shutdown();
    await transport.stop();
  }
}

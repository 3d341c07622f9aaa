// `switchboard carriers check` for a SIP trunk: an OPTIONS from an ephemeral port, with
// digest credentials when the trunk challenges. Any final answer proves the trunk is
// reachable; 2xx (or a 405 from a trunk that refuses OPTIONS) means it is usable.
import { SipTransport } from './transport.ts';
import { UserAgent } from './user-agent.ts';
import type { TrunkSettings } from './settings.ts';

export async function probeTrunk(trunk: TrunkSettings, timeoutMs: number): Promise<{ ok: boolean; detail: string }> {
  const tcp = trunk.transport === 'tcp';
  const transport = new SipTransport({ host: trunk.host.includes(':') ? '::' : '0.0.0.0', udpPort: tcp ? undefined : 0, tcpPort: tcp ? 0 : undefined });
  await transport.start();
  const ua = new UserAgent({ transport, publicHost: '127.0.0.1', timers: { t1: Math.min(500, timeoutMs / 64), t2: 4000, linger: 0 } });
  const credentials = trunk.username && trunk.password ? { username: trunk.username, password: trunk.password } : undefined;
  try {
    const started = Date.now();
    const response = await ua.options(`sip:${trunk.host}:${trunk.port}`, { transport: tcp ? 'TCP' : 'UDP', address: trunk.host, port: trunk.port }, credentials);
    const ms = Date.now() - started;
    if (response.status === 408 && /no response/.test(response.reason)) return { ok: false, detail: `no answer to OPTIONS within ${timeoutMs} ms` };
    const ok = (response.status >= 200 && response.status < 300) || response.status === 405;
    return { ok, detail: `OPTIONS answered ${response.status} ${response.reason} in ${ms} ms` };
  } catch (err) {
    return { ok: false, detail: (err as Error).message };
  } finally {
    ua.shutdown();
    await transport.stop();
  }
}

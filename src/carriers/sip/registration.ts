// Registration with a carrier's registrar (RFC 3261 10), for trunks with `register:` in the
// carriers file: carriers such as VoIP.ms sub-accounts or credential-based connections send
// calls for an account only to a contact that REGISTERed with its user name and password.
//
// Each such trunk keeps one binding of its address of record (sip:username@host) to our
// Contact (sip:username@public_host:port): registered at start, refreshed at half the time
// the registrar granted, retried with backoff when refused or unanswered (5 s doubling to
// 5 min), and removed (Expires: 0) when the server stops. A 423 Interval Too Brief is
// answered with the Min-Expires it names. Calls the registrar then sends us arrive as ordinary
// inbound INVITEs, admitted while the binding is up when they come from an address the
// registrar's host resolved to (or from the trunk's inbound_sources, for carriers whose calls
// come from other machines); their Request-URI user is the user name, so the called number is
// read from To.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { formatUri, parseNameAddr } from './headers.ts';
import { newCallId, newTag } from './dialog.ts';
import type { SipResponse } from './message.ts';
import type { RegistrationDialog, UserAgent } from './user-agent.ts';
import type { TrunkSettings } from './settings.ts';
import { trunkPeer, trunkUri } from './trunk-target.ts';

const RETRY_MIN_SECONDS = 5;
const RETRY_MAX_SECONDS = 300;
/** Refresh this long before the binding would lapse at the latest, whatever was granted. */
const REFRESH_MARGIN_SECONDS = 30;
/** How long stop() waits for the registrar to confirm each removal. */
const UNREGISTER_TIMEOUT_MS = 2000;

interface Entry {
  trunk: TrunkSettings & { register: NonNullable<TrunkSettings['register']>; username: string; password: string };
  dialog: RegistrationDialog;
  expires: number;
  timer: NodeJS.Timeout | undefined;
  retrySeconds: number;
  /** The registrar holds our binding now (so stopping removes it). */
  registered: boolean;
  /** The addresses the registrar's host resolved to when the binding last succeeded. */
  addresses: string[];
}

export interface RegistrationLog {
  info(detail: Record<string, unknown>, message: string): void;
  warn(detail: Record<string, unknown>, message: string): void;
}

/** A fresh registration of `trunk` (its username as our Contact's user). */
export function registrationDialog(trunk: TrunkSettings & { username: string }, publicHost: string): RegistrationDialog {
  const scheme = trunk.sips ? 'sips' : 'sip';
  return {
    registrar: trunkUri(trunk),
    aor: formatUri({ scheme, user: trunk.username, host: trunk.host, port: undefined, params: {} }),
    contactUser: trunk.username, callId: newCallId(publicHost), fromTag: newTag(), seq: 0,
  };
}

export class TrunkRegistrations {
  private readonly entries: Entry[];
  private stopped = false;

  constructor(private readonly ua: UserAgent, trunks: TrunkSettings[], publicHost: string, private readonly log: RegistrationLog) {
    this.entries = trunks.flatMap((trunk) => {
      if (!trunk.register || !trunk.username || !trunk.password) return [];
      return [{
        trunk: { ...trunk, register: trunk.register, username: trunk.username, password: trunk.password },
        dialog: registrationDialog({ ...trunk, username: trunk.username }, publicHost),
        expires: trunk.register.expiresSeconds,
        timer: undefined,
        retrySeconds: RETRY_MIN_SECONDS,
        registered: false,
        addresses: [],
      }];
    });
  }

  /** Registers every `register:` trunk (in the background: a registrar that does not answer delays nothing). */
  start(): void {
    for (const entry of this.entries) void this.renew(entry);
  }

  /** The registering trunk whose binding is up and whose registrar is at `address`: its calls come from there. */
  trunkAt(address: string): TrunkSettings | undefined {
    return this.entries.find((e) => e.registered && e.addresses.includes(address))?.trunk;
  }

  /** Stops refreshing and removes each binding that is up, waiting a little for the registrars. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.entries.map(async (entry) => {
      clearTimeout(entry.timer);
      if (!entry.registered) return;
      entry.registered = false;
      const removal = this.ua.register(entry.dialog, trunkPeer(entry.trunk), 0, credentialsOf(entry));
      await Promise.race([removal, new Promise((resolve) => setTimeout(resolve, UNREGISTER_TIMEOUT_MS).unref())]);
    }));
  }

  private async renew(entry: Entry): Promise<void> {
    if (this.stopped) return;
    let response: SipResponse;
    try {
      response = await this.ua.register(entry.dialog, trunkPeer(entry.trunk), entry.expires, credentialsOf(entry));
    } catch (err) {
      return this.failed(entry, 0, (err as Error).message);
    }
    if (this.stopped) return;
    if (response.status === 423) {
      // Interval Too Brief: ask again at once for what the registrar accepts.
      const minimum = Number(response.headers.get('min-expires'));
      if (Number.isFinite(minimum) && minimum > entry.expires) {
        entry.expires = minimum;
        return this.renew(entry);
      }
    }
    if (response.status < 200 || response.status >= 300) return this.failed(entry, response.status, response.reason);
    const granted = grantedSeconds(response, entry.dialog.contactUser) ?? entry.expires;
    entry.addresses = await addressesOf(entry.trunk.host);
    if (this.stopped) return;
    entry.registered = true;
    entry.retrySeconds = RETRY_MIN_SECONDS;
    this.log.info({ trunk: entry.trunk.name, registrar: entry.dialog.registrar, expires: granted }, 'sip: registered with the trunk\'s registrar');
    const refreshIn = Math.max(1, Math.min(granted / 2, granted - REFRESH_MARGIN_SECONDS));
    entry.timer = setTimeout(() => void this.renew(entry), refreshIn * 1000);
    entry.timer.unref();
  }

  private failed(entry: Entry, status: number, reason: string): void {
    const retryInSeconds = entry.retrySeconds;
    entry.registered = false;
    entry.retrySeconds = Math.min(RETRY_MAX_SECONDS, entry.retrySeconds * 2);
    this.log.warn({ trunk: entry.trunk.name, registrar: entry.dialog.registrar, status, reason, retry_in_seconds: retryInSeconds },
      'sip: registration with the trunk\'s registrar failed; calls for it will not reach us until it succeeds');
    entry.timer = setTimeout(() => void this.renew(entry), retryInSeconds * 1000);
    entry.timer.unref();
  }
}

/** Every address `host` resolves to now (itself when it is one); none when it does not resolve. */
async function addressesOf(host: string): Promise<string[]> {
  if (isIP(host)) return [host];
  try {
    return (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    return [];
  }
}

function credentialsOf(entry: Entry): { username: string; password: string } {
  return { username: entry.trunk.username, password: entry.trunk.password };
}

/** What the registrar granted our binding: its Contact's `expires` parameter, else the Expires header. */
function grantedSeconds(response: SipResponse, contactUser: string): number | undefined {
  // Contact is a list header: the parser has already split `a, b` into one entry each.
  for (const contact of response.headers.getAll('contact')) {
    const parsed = parseNameAddr(contact);
    if (parsed.uri.includes(`${contactUser}@`) && parsed.params.expires !== undefined) return positive(parsed.params.expires);
  }
  return positive(response.headers.get('expires'));
}

function positive(value: string | null | undefined): number | undefined {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

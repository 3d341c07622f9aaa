// The registrar for workers' softphones (RFC 3261 10.3), on the same listeners as the trunks:
// a REGISTER is challenged (401, digest MD5 with qop=auth, in the realm the worker's HA1 was
// made for), its answer checked against the worker's HA1 (wrong: 403, no binding), and then
// its Contacts applied through the softphone registry (src/carriers/softphones.ts):
//   - each Contact's expiry is its `expires` parameter, else the Expires header, else the
//     configured default; below min_expires (and not 0) the whole REGISTER gets 423 Interval
//     Too Brief with Min-Expires, above max_expires it is cut to max_expires;
//   - expiry 0 removes that Contact; `Contact: *` with `Expires: 0` removes them all;
//   - no Contact only asks for the bindings.
// The 200 OK lists every live binding of the user with the seconds it has left. Where the
// REGISTER came from (address, port, transport) is kept with the binding, so calls reach a
// softphone behind NAT (softphone-target.ts).
import type { SoftphoneBinding, RegistrationChange, SoftphoneRegistry } from '../softphones.ts';
import type { RegistrarSettings } from './settings.ts';
import type { IncomingRegister, UserAgent } from './user-agent.ts';
import { DigestNonces, digestAnswerMatches, parseAuthorization } from './digest-server.ts';
import { parseCSeq, parseNameAddr, parseUri } from './headers.ts';

/** A final response ending a REGISTER. */
interface Answer {
  status: number;
  reason: string;
  headers?: Record<string, string | string[]>;
}

export interface RegistrarLog {
  info(detail: Record<string, unknown>, message: string): void;
}

export class Registrar {
  private readonly nonces = new DigestNonces();

  constructor(
    private readonly ua: () => UserAgent,
    private readonly settings: RegistrarSettings,
    private readonly registry: () => SoftphoneRegistry,
    private readonly log: RegistrarLog,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async receive(incoming: IncomingRegister): Promise<void> {
    const answer = await this.answer(incoming);
    this.ua().respondTo(incoming, answer.status, answer.reason, answer.headers);
  }

  private async answer({ request, from }: Pick<IncomingRegister, 'request' | 'from'>): Promise<Answer> {
    const registry = this.registry();
    const user = userOfAddressOfRecord(request.headers.get('to'));
    if (!user) return { status: 400, reason: 'Bad Request', headers: { Warning: '399 switchboard "To needs a sip: URI with the softphone\'s user name"' } };
    const authorization = request.headers.get('authorization');
    if (!authorization) return this.challenge(registry.realm, false);
    const params = parseAuthorization(authorization);
    // A nonce of another node or an earlier process: challenge afresh rather than refuse.
    const nonce = this.nonces.check(params.nonce ?? '');
    if (nonce !== 'fresh') return this.challenge(registry.realm, nonce === 'stale');
    const credentials = params.username === user && params.realm === registry.realm ? await registry.credentials(user) : undefined;
    if (!credentials || !digestAnswerMatches(params, credentials.ha1, request.method)) {
      this.log.info({ user, source: from.address }, 'sip: a softphone REGISTER was refused: wrong or unknown credentials');
      return { status: 403, reason: 'Forbidden' };
    }
    const change = this.changeOf({ request, from });
    if ('status' in change) return change;
    const now = this.now();
    const bindings = await registry.register(user, change, now);
    if (change.kind !== 'query') this.log.info({ user, source: `${from.address}:${from.port}`, bindings: bindings.length }, 'sip: softphone registration changed');
    return {
      status: 200, reason: 'OK',
      headers: { Contact: bindings.map((b) => `<${b.contact}>;expires=${secondsLeft(b, now)}`), Date: now.toUTCString() },
    };
  }

  private challenge(realm: string, stale: boolean): Answer {
    return { status: 401, reason: 'Unauthorized', headers: { 'WWW-Authenticate': this.nonces.challenge(realm, stale) } };
  }

  /** What the REGISTER asks for, or the answer refusing it (400, 423). */
  private changeOf({ request, from }: Pick<IncomingRegister, 'request' | 'from'>): RegistrationChange | Answer {
    const contacts = request.headers.getAll('contact');
    const callId = request.headers.get('call-id') ?? '';
    const cseq = parseCSeq(request.headers.get('cseq') ?? '').seq;
    const headerExpires = request.headers.get('expires');
    if (contacts.length === 0) return { kind: 'query' };
    if (contacts.some((c) => c.trim() === '*')) {
      // RFC 3261 10.3 step 6: `*` only alone, and only with Expires: 0.
      if (contacts.length !== 1 || headerExpires?.trim() !== '0') return { status: 400, reason: 'Bad Request', headers: { Warning: '399 switchboard "Contact: * needs Expires: 0 and no other Contact"' } };
      return { kind: 'remove_all', callId, cseq };
    }
    const { minExpires, maxExpires, defaultExpires } = this.settings;
    const now = this.now();
    const bindings: SoftphoneBinding[] = [];
    const removals: string[] = [];
    for (const text of contacts) {
      let contact: string;
      try {
        contact = parseNameAddr(text).uri;
        parseUri(contact);
      } catch {
        return { status: 400, reason: 'Bad Request', headers: { Warning: '399 switchboard "a Contact is not a sip: URI"' } };
      }
      const asked = seconds(parseNameAddr(text).params.expires) ?? seconds(headerExpires) ?? defaultExpires;
      if (asked === 0) {
        removals.push(contact);
        continue;
      }
      if (asked < minExpires) return { status: 423, reason: 'Interval Too Brief', headers: { 'Min-Expires': String(minExpires) } };
      const granted = Math.min(asked, maxExpires);
      bindings.push({
        contact, receivedAddress: from.address, receivedPort: from.port, transport: from.transport, callId, cseq,
        expiresAt: new Date(now.getTime() + granted * 1000).toISOString(), userAgent: request.headers.get('user-agent')?.slice(0, 200) ?? null,
        updatedAt: now.toISOString(),
      });
    }
    return { kind: 'update', bindings, removals };
  }
}

/** The user of the address of record a REGISTER's To names (sip:alice@switchboard.example -> alice). */
function userOfAddressOfRecord(to: string | undefined): string | undefined {
  try {
    return parseUri(parseNameAddr(to ?? '').uri).user || undefined;
  } catch {
    return undefined;
  }
}

function seconds(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value);
}

function secondsLeft(binding: SoftphoneBinding, now: Date): number {
  return Math.max(0, Math.round((Date.parse(binding.expiresAt) - now.getTime()) / 1000));
}

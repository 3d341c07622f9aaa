// The registrar's port: workers' softphones REGISTER with the live SIP carrier, which checks
// their digest and keeps their bindings through this interface (the workers module implements
// it; the composition root wires it), so the carrier never reads a module's tables. Bindings
// are durable rows: any node can find where a softphone is, and a restart loses none.
//
// A call to a softphone is placed with `to` = `softphone:<user>` (softphoneTarget): the
// carrier rings the user's most recently refreshed live binding.

/** What the registrar checks a REGISTER's digest answer against: MD5(user:realm:password). */
export interface SoftphoneCredentials {
  ha1: string;
  realm: string;
}

/** One contact a softphone registered, and where its REGISTER came from (for NAT). */
export interface SoftphoneBinding {
  /** The Contact URI as the softphone sent it, without header parameters. */
  contact: string;
  /** The source of the REGISTER that made or refreshed the binding. */
  receivedAddress: string;
  receivedPort: number;
  transport: 'UDP' | 'TCP' | 'TLS';
  /** The REGISTER's Call-ID and CSeq: a retransmitted or reordered older REGISTER changes nothing (RFC 3261 10.3 step 7). */
  callId: string;
  cseq: number;
  /** ISO instant the binding lapses unless refreshed. */
  expiresAt: string;
  userAgent: string | null;
  /** ISO instant of the last REGISTER that set it (the newest is the one calls ring). */
  updatedAt: string;
}

/** What one REGISTER asks for, already checked and clamped by the registrar. */
export type RegistrationChange =
  | { kind: 'query' }
  | { kind: 'remove_all'; callId: string; cseq: number }
  | { kind: 'update'; bindings: SoftphoneBinding[]; removals: string[] };

export interface SoftphoneRegistry {
  /** The realm softphones are challenged with (the one their HA1 was made for). */
  readonly realm: string;
  /** The digest secret of a softphone user, or undefined: no such user, or no credentials issued yet. */
  credentials(user: string): Promise<SoftphoneCredentials | undefined>;
  /** Applies a REGISTER's change at `now` (lapsed bindings are dropped first) and returns the live bindings after it. */
  register(user: string, change: RegistrationChange, now: Date): Promise<SoftphoneBinding[]>;
  /** The user's live bindings at `now`, most recently refreshed first. */
  bindings(user: string, now: Date): Promise<SoftphoneBinding[]>;
}

const PREFIX = 'softphone:';

/** The `to` of a call that rings a registered softphone. */
export function softphoneTarget(user: string): string {
  return `${PREFIX}${user}`;
}

/** The softphone user a call's `to` names, or undefined when it is a number or another URI. */
export function softphoneUserOf(to: string): string | undefined {
  return to.startsWith(PREFIX) ? to.slice(PREFIX.length) : undefined;
}

// The carriers file is one document with one top-level section per carrier kind (`smpp`,
// `whatsapp`, `http_sms`, and the SIP engineer's `sip`). Each kind contributes, from its own
// folder, the schema of its section and how to list and probe the links it configures; this
// registry only collects them, so adding a kind never touches the loader.
import type { TSchema } from 'typebox';

/** What a link carries: voice trunks serve calls, messaging links serve messages, speech endpoints serve voice. */
export type LinkRole = 'voice' | 'messaging' | 'speech';
export type MessagingChannel = 'sms' | 'mms' | 'whatsapp';

/** One named link the file configures (an SMPP bind, a WhatsApp number, a SIP trunk...). */
export interface CarrierLink {
  /** Unique across the whole file: numbers are bound to a link by this name. */
  name: string;
  kind: string;
  role: LinkRole;
  /** For messaging links: the channels it can carry. */
  channels: MessagingChannel[];
  /** Where it connects, for tables and logs (never a secret). */
  target: string;
  /** Path of the entry in the file, e.g. `smpp[0]`, for error messages. */
  path: string;
  /** The validated entry with every `env:` secret resolved. */
  config: unknown;
}

export interface ProbeResult {
  ok: boolean;
  /** One line: what was tried and what answered ("bound as transceiver", "401 from Graph API"). */
  detail: string;
}

export interface CarrierKind {
  /** Top-level key of the section in the carriers file. */
  section: string;
  /** TypeBox schema of the whole section's value. Mark secret fields with `Secret()`. */
  schema: TSchema;
  /** The links a validated section configures. `basePath` is the section's key. */
  links(value: unknown, basePath: string): CarrierLink[];
  /**
   * Problems the schema cannot express (fields that depend on each other, files that must be
   * readable), each at a path inside the section; runs only on a section the schema accepted.
   */
  check?(value: unknown): { path: (string | number)[]; message: string }[];
  /** Connects to one link as the server would and reports whether it works. */
  probe?(link: CarrierLink, opts: { timeoutMs: number }): Promise<ProbeResult>;
}

const kinds = new Map<string, CarrierKind>();

export function registerCarrierKind(kind: CarrierKind): void {
  if (kinds.has(kind.section)) throw new Error(`carrier kind "${kind.section}" is registered twice`);
  kinds.set(kind.section, kind);
}

export function carrierKinds(): CarrierKind[] {
  return [...kinds.values()];
}

export function carrierKind(section: string): CarrierKind | undefined {
  return kinds.get(section);
}

/** For a kind whose section is a list of entries that each have a `name`. */
export function namedEntries<T extends { name: string }>(
  value: unknown, basePath: string, describe: (entry: T) => { kind: string; role: LinkRole; channels: MessagingChannel[]; target: string },
): CarrierLink[] {
  return (value as T[]).map((entry, i) => ({ name: entry.name, path: `${basePath}[${i}]`, config: entry, ...describe(entry) }));
}

// Runs Kamailio on 127.0.0.x for tests as a stateful proxy in front of a SIP peer: it
// demands proxy authentication (407, checked against a static password with the auth
// module's pv_proxy_authenticate, so no database), Record-Routes every dialog it forwards
// and relays in-dialog requests by their Route headers (loose routing). It runs in the
// foreground (-DD -E) from a generated config and a private runtime directory.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPeerDaemon, type PeerDaemonOptions } from './peer-daemon.ts';

export interface KamailioOptions {
  /** Where Kamailio listens (UDP). */
  host: string;
  port: number;
  /** The peer every new dialog is forwarded to (SIPp as the UAS). */
  forwardTo: { host: string; port: number };
  realm: string;
  username: string;
  password: string;
}

export interface Kamailio {
  /** Kamailio's log so far (every request it relayed is logged by the config). */
  log(): string;
  stop(): Promise<void>;
}

/** How both configs log each request they take: method, CSeq, Call-ID and the transport it came over. */
export const RELAY_LOG = 'relay $rm cseq=$cs call=$ci from $pr:$si:$sp';

/**
 * The requests Kamailio took, in order, from its log (from character `since`): a UDP
 * retransmission (same method, CSeq and Call-ID) counts once, so a loaded machine does not
 * change the list.
 */
export function relayedRequests(log: string, since = 0): { method: string; transport: string }[] {
  const seen = new Set<string>();
  const out: { method: string; transport: string }[] = [];
  for (const m of log.slice(since).matchAll(/relay (\w+) cseq=(\d+) call=(\S+) from (\w+):/g)) {
    const key = `${m[1]}|${m[2]}|${m[3]}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ method: m[1]!, transport: m[4]! });
  }
  return out;
}

/** Where Debian installs Kamailio's modules. */
export const KAMAILIO_MODULES = '/usr/lib/x86_64-linux-gnu/kamailio/modules/';

/** The modules every test config loads (a stateful relay that logs); each adds its own. */
const BASE_MODULES = ['kex', 'corex', 'tm', 'sl', 'rr', 'maxfwd', 'pv', 'textops', 'siputils', 'xlog'];

/**
 * The global section of a test config: log to stderr, one worker, no SCTP, then the
 * config's own settings, its listeners ("udp:host:port") and its modules beyond the base.
 */
export function kamailioConfigHead(own: { settings: string[]; listen: string[]; modules: string[] }): string {
  return [
    '#!KAMAILIO',
    'debug=2',
    'log_stderror=yes',
    'children=1',
    'disable_sctp=yes',
    ...own.settings,
    ...own.listen.map((address) => `listen=${address}`),
    `mpath="${KAMAILIO_MODULES}"`,
    ...[...BASE_MODULES, ...own.modules].map((m) => `loadmodule "${m}.so"`),
  ].join('\n');
}

/**
 * The start of request_route both configs share: log the request, drop loops, relay
 * in-dialog requests only when they carry our Record-Route (or ACK a transaction we
 * relayed), and relay a CANCEL only for a transaction we know.
 */
export const RELAY_PROLOGUE = `  xlog("L_NOTICE", "${RELAY_LOG}\\n");
  if (!mf_process_maxfwd_header("10")) {
    sl_send_reply("483", "Too Many Hops");
    exit;
  }
  if (has_totag()) {
    if (loose_route()) route(RELAY);
    if (is_method("ACK") && t_check_trans()) route(RELAY);
    sl_send_reply("404", "Not here");
    exit;
  }
  if (is_method("CANCEL")) {
    if (t_check_trans()) route(RELAY);
    exit;
  }`;

/** The route RELAY_PROLOGUE and both request routes end in: forward statefully. */
export const RELAY_ROUTE = `route[RELAY] {
  if (!t_relay()) sl_reply_error();
  exit;
}`;

/** A string literal of the config language (quotes and backslashes dropped: test values only). */
export function quote(value: string): string {
  return `"${value.replace(/["\\]/g, '')}"`;
}

export function kamailioConfig(options: KamailioOptions): string {
  return `${kamailioConfigHead({
    settings: ['fork=no', 'disable_tcp=yes'],
    listen: [`udp:${options.host}:${options.port}`],
    modules: ['auth'],
  })}

request_route {
${RELAY_PROLOGUE}
  if (is_method("INVITE")) {
    if (!pv_proxy_authenticate(${quote(options.realm)}, ${quote(options.password)}, "0") || $au != ${quote(options.username)}) {
      proxy_challenge(${quote(options.realm)}, "1");
      exit;
    }
    consume_credentials();
  }
  record_route();
  $du = "sip:${options.forwardTo.host}:${options.forwardTo.port}";
  route(RELAY);
}

${RELAY_ROUTE}
`;
}

export async function startKamailio(options: KamailioOptions): Promise<Kamailio> {
  return runKamailio(kamailioConfig(options), [{ port: options.port, protocol: 'udp' }]);
}

/**
 * Runs Kamailio in the foreground (-DD -E) from `config`, with a private runtime directory
 * and small memory pools (it relays a handful of messages); ready once it listens on `listens`.
 */
export async function runKamailio(config: string, listens: PeerDaemonOptions['listens'], files: Record<string, string> = {}): Promise<Kamailio & { dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'kamailio-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const cfg = join(dir, 'kamailio.cfg');
  writeFileSync(cfg, config.replaceAll('@DIR@', dir));
  const daemon = await startPeerDaemon({
    name: 'kamailio', command: 'kamailio', cwd: dir, listens,
    args: ['-DD', '-E', '-f', cfg, '-m', '32', '-M', '4', '-Y', dir, '-P', join(dir, 'kamailio.pid'), '-w', dir],
  });
  return { dir, log: daemon.log, stop: daemon.stop };
}

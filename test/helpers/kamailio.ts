// Runs Kamailio on 127.0.0.x for tests as a stateful proxy in front of a SIP peer: it
// demands proxy authentication (407, checked against a static password with the auth
// module's pv_proxy_authenticate, so no database), Record-Routes every dialog it forwards
// and relays in-dialog requests by their Route headers (loose routing). It runs in the
// foreground (-DD -E) from a generated config and a private runtime directory.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitForListener } from './sipp.ts';

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

const MODULES = ['kex', 'corex', 'tm', 'sl', 'rr', 'maxfwd', 'pv', 'textops', 'siputils', 'xlog', 'auth'];

export function kamailioConfig(options: KamailioOptions): string {
  const quote = (value: string) => `"${value.replace(/["\\]/g, '')}"`;
  return `#!KAMAILIO
debug=2
log_stderror=yes
fork=no
children=1
disable_tcp=yes
disable_sctp=yes
listen=udp:${options.host}:${options.port}
mpath="/usr/lib/x86_64-linux-gnu/kamailio/modules/"
${MODULES.map((m) => `loadmodule "${m}.so"`).join('\n')}

request_route {
  xlog("L_NOTICE", "relay $rm $ru from $si:$sp route=[$hdr(Route)]\\n");
  if (!mf_process_maxfwd_header("10")) {
    sl_send_reply("483", "Too Many Hops");
    exit;
  }
  if (has_totag()) {
    # In-dialog: only what carries our Record-Route is relayed.
    if (loose_route()) {
      route(RELAY);
    }
    if (is_method("ACK") && t_check_trans()) {
      route(RELAY);
    }
    sl_send_reply("404", "Not here");
    exit;
  }
  if (is_method("CANCEL")) {
    if (t_check_trans()) route(RELAY);
    exit;
  }
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

route[RELAY] {
  if (!t_relay()) sl_reply_error();
  exit;
}
`;
}

export async function startKamailio(options: KamailioOptions): Promise<Kamailio> {
  const dir = mkdtempSync(join(tmpdir(), 'kamailio-'));
  const cfg = join(dir, 'kamailio.cfg');
  writeFileSync(cfg, kamailioConfig(options));
  // Small shared and private memory pools: it relays a handful of messages.
  const child: ChildProcess = spawn('kamailio', ['-DD', '-E', '-f', cfg, '-m', '32', '-M', '4', '-Y', dir, '-P', join(dir, 'kamailio.pid'), '-w', dir],
    { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    output += String(chunk);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitForListener(options.port, 'udp');
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`kamailio did not start: ${(err as Error).message}\n${output}`);
  }
  return {
    log: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(killer);
    },
  };
}

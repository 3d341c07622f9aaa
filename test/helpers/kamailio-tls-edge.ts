// Runs Kamailio with its tls module as a carrier's TLS edge for tests: it talks TLS to us and
// UDP to SIPp behind it. A new dialog from the TLS side (our INVITE) goes to SIPp over UDP;
// one from the UDP side (SIPp calling) goes to our TLS listener, whose certificate Kamailio
// verifies against the test CA. It Record-Routes both sides (rr's double Record-Route when
// the transport changes), so in-dialog requests cross it both ways. OPTIONS to the edge
// itself is answered 200 (what `carriers check` probes).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { KAMAILIO_MODULES, RELAY_PROLOGUE, RELAY_ROUTE, kamailioConfigHead, runKamailio, type Kamailio } from './kamailio.ts';

export interface KamailioTlsEdgeOptions {
  host: string;
  udpPort: number;
  tlsPort: number;
  /** The edge's own certificate and key, and the CA it verifies our certificate with. */
  certFile: string;
  keyFile: string;
  caFile: string;
  /** SIPp, behind the edge. */
  udpPeer: { host: string; port: number };
  /** Us: where calls from the UDP side go, over TLS. */
  tlsPeer: { host: string; port: number };
}

/** Kamailio and its tls module are installed (skips loudly on a dev machine without; fails on CI). */
export function kamailioTlsAvailable(): boolean {
  const found = existsSync(join(KAMAILIO_MODULES, 'tls.so'));
  if (!found) {
    if (process.env.CI) throw new Error('Kamailio\'s tls module is required on CI (.ci/run installs kamailio-tls-modules)');
    console.error('\n!!! kamailio-tls-modules is not installed: skipping the SIP over TLS tests. Install it (see .ci/run) to run them.\n');
  }
  return found;
}

export function kamailioTlsEdgeConfig(options: KamailioTlsEdgeOptions): string {
  return `${kamailioConfigHead({
    settings: ['tcp_children=1', 'enable_tls=yes'],
    listen: [`udp:${options.host}:${options.udpPort}`, `tls:${options.host}:${options.tlsPort}`],
    modules: ['tls'],
  })}
modparam("tls", "config", "@DIR@/tls.cfg")

request_route {
${RELAY_PROLOGUE}
  if (is_method("OPTIONS") && uri == myself && $rU == $null) {
    sl_send_reply("200", "OK");
    exit;
  }
  record_route();
  if ($pr == "tls") {
    $du = "sip:${options.udpPeer.host}:${options.udpPeer.port};transport=udp";
  } else {
    $du = "sip:${options.tlsPeer.host}:${options.tlsPeer.port};transport=tls";
  }
  route(RELAY);
}

${RELAY_ROUTE}
`;
}

/** The tls module's own file: our side's certificate as a server, and the CA it checks us with as a client. */
function tlsModuleConfig(options: KamailioTlsEdgeOptions): string {
  return `[server:default]
method = TLSv1.2+
verify_certificate = no
require_certificate = no
certificate = ${options.certFile}
private_key = ${options.keyFile}

[client:default]
method = TLSv1.2+
verify_certificate = yes
require_certificate = yes
ca_list = ${options.caFile}
`;
}

export function startKamailioTlsEdge(options: KamailioTlsEdgeOptions): Promise<Kamailio> {
  return runKamailio(kamailioTlsEdgeConfig(options), [
    { port: options.udpPort, protocol: 'udp' },
    { port: options.tlsPort, protocol: 'tcp' },
  ], { 'tls.cfg': tlsModuleConfig(options) });
}

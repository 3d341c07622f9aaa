// Kamailio as a carrier's registrar for tests: it challenges REGISTER with a static user and
// password (the auth module's pv_www_authenticate, no database), keeps the bindings in memory
// (usrloc, db_mode 0), and delivers an INVITE for a registered user to its contact, Record-
// Routing the dialog. Every request, and every binding it saves, is logged, so a test reads
// what was registered, refreshed and removed.
import { RELAY_PROLOGUE, RELAY_ROUTE, kamailioConfigHead, quote, runKamailio, type Kamailio } from './kamailio.ts';

export interface RegistrarOptions {
  host: string;
  port: number;
  realm: string;
  username: string;
  password: string;
}

/** The line the config logs for each REGISTER it accepts: user, Expires header and contact. */
export const SAVED_LOG = /saved (\S+) expires=(\S*) contact=(\S*)/g;

export function registrarConfig(options: RegistrarOptions): string {
  return `${kamailioConfigHead({
    settings: ['fork=no', 'disable_tcp=yes'],
    listen: [`udp:${options.host}:${options.port}`],
    modules: ['auth', 'usrloc', 'registrar'],
  })}
modparam("usrloc", "db_mode", 0)

request_route {
${RELAY_PROLOGUE}
  if (is_method("REGISTER")) {
    if (!pv_www_authenticate(${quote(options.realm)}, ${quote(options.password)}, "0") || $au != ${quote(options.username)}) {
      www_challenge(${quote(options.realm)}, "1");
      exit;
    }
    consume_credentials();
    xlog("L_NOTICE", "saved $tU expires=$hdr(Expires) contact=$ct\\n");
    if (!save("location")) sl_reply_error();
    exit;
  }
  if (is_method("INVITE")) {
    if (!lookup("location")) {
      sl_send_reply("404", "Not Registered");
      exit;
    }
    record_route();
    route(RELAY);
  }
  sl_send_reply("405", "Method Not Allowed");
}

${RELAY_ROUTE}
`;
}

export async function startRegistrar(options: RegistrarOptions): Promise<Kamailio> {
  return runKamailio(registrarConfig(options), [{ port: options.port, protocol: 'udp' }]);
}

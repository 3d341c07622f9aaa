// Kamailio as the SIP edge in front of Switchboard nodes, configured by the very blocks
// docs/live-voice.md ("Kamailio as the SIP edge") gives operators: its `kamailio.cfg` routing
// block and its `dispatcher.list` format are read from the document, so a change there is a
// change to what the test runs. The test adds only what a real install has around them: where
// to listen, where the modules are, the modules that block uses besides dispatcher, and a log
// line per request it takes.
import { readFileSync } from 'node:fs';
import { KAMAILIO_MODULES, RELAY_LOG, runKamailio, type Kamailio } from './kamailio.ts';

const DOC = new URL('../../docs/live-voice.md', import.meta.url).pathname;
const SECTION = '**Kamailio as the SIP edge.**';
const MODULES = ['kex', 'corex', 'tm', 'sl', 'rr', 'pv', 'textops', 'siputils', 'xlog'];

/** The first two fenced blocks after the section's heading: kamailio.cfg's routing part, then dispatcher.list. */
export function documentedDispatcher(): { config: string; list: string } {
  const text = readFileSync(DOC, 'utf8');
  const from = text.indexOf(SECTION);
  if (from < 0) throw new Error(`docs/live-voice.md has no "${SECTION}" section`);
  const blocks = [...text.slice(from).matchAll(/^```\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  if (blocks.length < 2) throw new Error('docs/live-voice.md: the Kamailio section needs its kamailio.cfg and dispatcher.list blocks');
  return { config: blocks[0]!, list: blocks[1]! };
}

/**
 * Runs the documented dispatcher on `host:port` (UDP) with `nodes` (host:port of each
 * Switchboard node's SIP listener) in set 1, in the documented list's format.
 */
export async function startDispatcher(options: { host: string; port: number; nodes: string[] }): Promise<Kamailio & { dir: string }> {
  const documented = documentedDispatcher();
  const entries = documented.list.split('\n').filter((line) => /^1 sip:/.test(line));
  if (entries.length === 0) throw new Error('docs/live-voice.md: the dispatcher.list block has no "1 sip:" line');
  // The documented list with its example addresses replaced by the nodes under test.
  const list = [
    ...documented.list.split('\n').filter((line) => !/^1 sip:/.test(line) && line.trim() !== ''),
    ...options.nodes.map((node) => entries[0]!.replace(/sip:\S+/, `sip:${node}`)),
    '',
  ].join('\n');
  const routing = documented.config
    .replace('/etc/kamailio/dispatcher.list', '@DIR@/dispatcher.list')
    // Each request logged as it arrives, the way the other Kamailio configs here do.
    .replace('request_route {', `request_route {\n    xlog("L_NOTICE", "${RELAY_LOG}\\n");`);
  if (routing === documented.config) throw new Error('docs/live-voice.md: the kamailio.cfg block changed shape (no dispatcher.list path or request_route)');
  const config = `#!KAMAILIO
debug=2
log_stderror=yes
fork=no
children=1
disable_tcp=yes
disable_sctp=yes
listen=udp:${options.host}:${options.port}
mpath="${KAMAILIO_MODULES}"
${MODULES.map((m) => `loadmodule "${m}.so"`).join('\n')}

${routing}`;
  return runKamailio(config, [{ port: options.port, protocol: 'udp' }], { 'dispatcher.list': list });
}

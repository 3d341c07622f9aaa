// Registers the `smpp` section of the carriers file: its schema, its links and how to
// probe them. Apart from config.ts so that the probe (which uses the config's types) and the
// config do not import each other; src/carriers/config/kinds.ts imports this file.
import { Type } from 'typebox';
import { namedEntries, registerCarrierKind } from '../config/registry.ts';
import { SmppBindConfig } from './config.ts';
import { probeSmppBind } from './probe.ts';

registerCarrierKind({
  section: 'smpp',
  schema: Type.Array(SmppBindConfig),
  links: (value, base) => namedEntries<SmppBindConfig>(value, base, (b) => ({
    kind: 'smpp', role: 'messaging', channels: ['sms'], target: `${b.tls ? 'ssmpp' : 'smpp'}://${b.host}:${b.port} as ${b.system_id}`,
  })),
  probe: (link, opts) => probeSmppBind(link.config as SmppBindConfig, opts.timeoutMs),
});

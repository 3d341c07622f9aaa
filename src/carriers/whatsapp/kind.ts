// Registers the `whatsapp` section of the carriers file: its schema, its links and how to
// probe them. Apart from config.ts so that the probe (which uses the config's types) and the
// config do not import each other; src/carriers/config/kinds.ts imports this file.
import { Type } from 'typebox';
import { namedEntries, registerCarrierKind } from '../config/registry.ts';
import { WhatsAppConfig } from './config.ts';
import { probeWhatsApp } from './probe.ts';

registerCarrierKind({
  section: 'whatsapp',
  schema: Type.Array(WhatsAppConfig),
  links: (value, base) => namedEntries<WhatsAppConfig>(value, base, (c) => ({
    kind: 'whatsapp', role: 'messaging', channels: ['whatsapp'], target: `${c.graph_base_url.replace(/\/+$/, '')}/${c.api_version}/${c.phone_number_id}`,
  })),
  probe: (link, opts) => probeWhatsApp(link.config as WhatsAppConfig, opts.timeoutMs),
});

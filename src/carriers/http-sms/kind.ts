// Registers the `http_sms` section of the carriers file: its schema, its links and how to
// probe them. Apart from config.ts so that the probe (which uses the config's types) and the
// config do not import each other; src/carriers/config/kinds.ts imports this file.
import { Type } from 'typebox';
import { namedEntries, registerCarrierKind } from '../config/registry.ts';
import { HttpSmsConfig, accountUrl } from './config.ts';
import { probeTwilio } from './probe.ts';

registerCarrierKind({
  section: 'http_sms',
  schema: Type.Array(HttpSmsConfig),
  links: (value, base) => namedEntries<HttpSmsConfig>(value, base, (c) => ({
    kind: 'http_sms', role: 'messaging', channels: [...c.channels], target: `${c.provider} ${accountUrl(c)}`,
  })),
  probe: (link, opts) => probeTwilio(link.config as HttpSmsConfig, opts.timeoutMs),
});

// The setup every live-call test shares: a carriers file with a `sip` section (and any other
// sections a test needs), a server started on it, a growth account, live numbers bound to
// trunks with the real CLI (`switchboard numbers import --trunk`), and a webhook receiver
// subscribed to every event. Tests describe only what differs: trunks, listeners, ranges.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type CreatedAccount, type TestServer } from './server.ts';
import type { ReceivedEvent, WebhookReceiver } from './webhook-receiver.ts';
import { decodeWav } from '../../src/media/wav.ts';
import { subscribeAll } from './subscribe.ts';
import { freeUdpPort } from './sipp.ts';
import { runCli, type CliResult } from './cli.ts';

export interface LiveVoiceOptions {
  /** The `listen:` mapping; default: UDP on 127.0.0.1 at a free port. */
  listen?: string;
  /** RTP port range [min, max]: give each test file its own, files run in parallel. */
  rtp: [number, number];
  /** One YAML flow mapping per trunk. */
  trunks: string[];
  /** Further lines of the `sip` section (indented by two spaces), e.g. a `tls:` mapping. */
  sipLines?: string[];
  /** Further top-level sections, as YAML lines (e.g. `speech:`). */
  sections?: string[];
  /** Live numbers to import, each bound to a trunk by name. */
  numbers: Record<string, string>;
  /** Further server environment (e.g. SWITCHBOARD_SECRET_KEY). */
  env?: Record<string, string>;
}

export interface LiveVoice {
  t: TestServer;
  acct: CreatedAccount;
  receiver: WebhookReceiver;
  carriersFile: string;
  /** The UDP port of the default listener (undefined when `listen` was given). */
  sipPort: number | undefined;
  /** The account's live-key client. */
  live(): ReturnType<TestServer['as']>;
  /** The recording of a call, once `call.recording.ready` arrived for it: the WAV as decoded. */
  recordingOf(callId: string): Promise<ReturnType<typeof decodeWav>>;
  /** Runs the switchboard CLI against this server's data and carriers file. */
  cli(...args: string[]): Promise<CliResult>;
  close(): Promise<void>;
}

export async function startLiveVoice(options: LiveVoiceOptions): Promise<LiveVoice> {
  const sipPort = options.listen === undefined ? await freeUdpPort() : undefined;
  const carriersFile = join(mkdtempSync(join(tmpdir(), 'sb-live-voice-')), 'carriers.yaml');
  writeFileSync(carriersFile, [
    'sip:',
    `  listen: ${options.listen ?? `{ host: 127.0.0.1, udp_port: ${sipPort} }`}`,
    '  public_host: 127.0.0.1',
    `  rtp: { port_min: ${options.rtp[0]}, port_max: ${options.rtp[1]} }`,
    ...(options.sipLines ?? []),
    '  trunks:',
    ...options.trunks.map((trunk) => `    - ${trunk}`),
    ...(options.sections ?? []),
    '',
  ].join('\n'));
  const t = await startTestServer({ ...options.env, SWITCHBOARD_CARRIERS_FILE: carriersFile });
  const cli = (...args: string[]) => runCli(t, carriersFile, args);
  try {
    const acct = await t.createAccount('growth');
    for (const [number, trunk] of Object.entries(options.numbers)) {
      const imported = await cli('numbers', 'import', '--account', acct.account.id, '--number', number, '--trunk', trunk, '--json');
      assert.equal(imported.status, 0, imported.stderr);
    }
    const receiver = await subscribeAll(t, acct.keys.live);
    return {
      t, acct, receiver, carriersFile, sipPort, cli,
      live: () => t.as(acct.keys.live),
      recordingOf: async (callId) => {
        const ofCall = (e: ReceivedEvent) => e.type === 'call.recording.ready' && e.data.object.call_id === callId;
        const ready = (await receiver.waitFor((events) => events.some(ofCall), 30_000)).find(ofCall)!;
        const media = await fetch(`${t.url}/v1/recordings/${ready.data.object.id}/media`, { headers: { authorization: `Bearer ${acct.keys.live}` } });
        assert.equal(media.status, 200);
        return decodeWav(Buffer.from(await media.arrayBuffer()));
      },
      close: async () => {
        await receiver.close();
        await t.close();
      },
    };
  } catch (err) {
    await t.close();
    throw err;
  }
}

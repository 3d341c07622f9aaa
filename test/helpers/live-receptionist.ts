// The setup the live AI receptionist tests share: the local server implementing OpenAI's
// audio API shapes (test/helpers/openai-audio.ts) as the speech endpoints, a test server with
// one SIP trunk that takes inbound calls from 127.0.0.0/8, a Growth account, a live number
// imported on that trunk through the CLI, and the fixture receptionist answering it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer, type CreatedAccount } from './server.ts';
import { freeUdpPort } from './sipp.ts';
import { runCli } from './cli.ts';
import { createFixtureAgent } from './ai.ts';
import { startFakeOpenAiAudio, speechSection, type FakeOpenAiAudio } from './openai-audio.ts';
import { toLineRate } from '../../src/media/resample.ts';
import { readPcm16Wav } from '../../src/media/wav.ts';

export interface LiveReceptionist {
  t: TestServer;
  acct: CreatedAccount;
  /** The speech endpoints: teach them each line the caller will say. */
  speech: FakeOpenAiAudio;
  /** Where SIPp sends its INVITEs. */
  sipPort: number;
  number: string;
  numberId: string;
  agentId: string;
  close(): Promise<void>;
}

export interface LiveReceptionistOptions {
  number: string;
  /** The speech endpoints' API key (the carriers file names it through an environment variable). */
  key: string;
  /** This file's own RTP port range. */
  rtp: [number, number];
  /** The trunk's `transfer` setting (a handoff to a person REFERs). */
  transfer?: 'refer';
}

/** A line spoken by flite, at the line's 8 kHz. */
export function spoken(text: string): Int16Array {
  const file = join(mkdtempSync(join(tmpdir(), 'sb-flite-')), 'line.wav');
  const run = spawnSync('flite', ['-t', text, '-o', file]);
  assert.equal(run.status, 0, String(run.stderr));
  const { sampleRate, samples } = readPcm16Wav(readFileSync(file));
  return toLineRate(samples, sampleRate);
}

export async function startLiveReceptionist(opts: LiveReceptionistOptions): Promise<LiveReceptionist> {
  const speech = await startFakeOpenAiAudio(opts.key);
  const keyVariable = `TEST_SPEECH_KEY_${opts.number.slice(1)}`;
  process.env[keyVariable] = opts.key;
  const sipPort = await freeUdpPort();
  const carriersFile = join(mkdtempSync(join(tmpdir(), 'sb-ai-live-')), 'carriers.yaml');
  writeFileSync(carriersFile, [
    'sip:',
    `  listen: { host: 127.0.0.1, udp_port: ${sipPort} }`,
    '  public_host: 127.0.0.1',
    `  rtp: { port_min: ${opts.rtp[0]}, port_max: ${opts.rtp[1]} }`,
    '  trunks:',
    `    - { name: carrier, host: 127.0.0.1, port: ${await freeUdpPort()}, inbound_sources: [127.0.0.0/8], codecs: [PCMU]${opts.transfer ? `, transfer: ${opts.transfer}` : ''} }`,
    ...speechSection(speech, keyVariable),
    '',
  ].join('\n'));
  const t = await startTestServer({ SWITCHBOARD_CARRIERS_FILE: carriersFile });
  const acct = await t.createAccount('growth');
  const imported = await runCli(t, carriersFile, ['numbers', 'import', '--account', acct.account.id, '--number', opts.number, '--trunk', 'carrier', '--json']);
  assert.equal(imported.status, 0, imported.stderr);
  const numberId = (JSON.parse(imported.stdout) as { id: string }).id;
  const { agent } = await createFixtureAgent(t, acct.keys.live, numberId);
  return {
    t, acct, speech, sipPort, number: opts.number, numberId, agentId: agent.id,
    async close() {
      await t.close();
      await speech.close();
    },
  };
}

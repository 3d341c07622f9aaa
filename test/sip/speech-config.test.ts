// The carriers file's `speech` section (OpenAI-compatible audio endpoints for live calls):
// validated with the file's path-named messages, and probed by `switchboard carriers check`
// against a local server that implements OpenAI's audio API shapes (test/helpers/openai-audio.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCarriersText, CarriersFileError } from '../../src/carriers/config/load.ts';
import { startFakeOpenAiAudio, type FakeOpenAiAudio } from '../helpers/openai-audio.ts';

const dir = mkdtempSync(join(tmpdir(), 'sb-speech-config-'));
let api: FakeOpenAiAudio;
before(async () => { api = await startFakeOpenAiAudio('sk-test-key'); });
after(() => api.close());

function problemsOf(text: string, env: Record<string, string> = {}): string[] {
  try {
    parseCarriersText(text, 'carriers.yaml', env);
  } catch (err) {
    assert.ok(err instanceof CarriersFileError, String(err));
    return err.problems;
  }
  assert.fail('the file was accepted');
}

function cli(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['bin/switchboard.js', ...args], { env: { ...process.env, SWITCHBOARD_DATA_DIR: join(dir, 'data'), ...env }, timeout: 180_000 });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

describe('the speech section of the carriers file', () => {
  test('loads with defaults filled and the key read from the environment; both endpoints are links of role speech', () => {
    const config = parseCarriersText([
      'speech:',
      '  tts: { base_url: "https://api.openai.com", api_key: env:OPENAI_API_KEY }',
      '  stt: { base_url: "http://127.0.0.1:8000/", model: whisper-large-v3, language: en }',
      '',
    ].join('\n'), 'carriers.yaml', { OPENAI_API_KEY: 'sk-live' });
    assert.deepEqual(config.links.map((l) => [l.name, l.kind, l.role, l.path, l.target]), [
      ['speech.tts', 'speech', 'speech', 'speech.tts', 'https://api.openai.com/v1/audio/speech (tts-1, alloy)'],
      ['speech.stt', 'speech', 'speech', 'speech.stt', 'http://127.0.0.1:8000/v1/audio/transcriptions (whisper-large-v3)'],
    ]);
    const tts = config.links[0]!.config as Record<string, unknown>;
    assert.deepEqual(tts, { base_url: 'https://api.openai.com', api_key: 'sk-live', model: 'tts-1', voice: 'alloy', response_format: 'wav', pcm_sample_rate: 24000, timeout_seconds: 15 });
    assert.equal((config.links[1]!.config as { timeout_seconds: number }).timeout_seconds, 30);
  });

  test('every problem names its place: a key in clear, a bad URL, an unknown format, an unknown field, an empty section', () => {
    assert.deepEqual(problemsOf([
      'speech:',
      '  tts:',
      '    base_url: api.openai.com',
      '    api_key: sk-in-clear',
      '    response_format: mp3',
      '  stt:',
      '    base_url: https://stt.example.com',
      '    language: English',
      '    temperature: 0',
      '',
    ].join('\n')).sort(), [
      'carriers.yaml:3:15 speech.tts.base_url: must match the pattern ^https?://[^\\s/?#]+(/[^\\s?#]*)?$',
      'carriers.yaml:4:14 speech.tts.api_key: is a secret: write it as env:NAME and set that environment variable, not the value itself',
      'carriers.yaml:5:22 speech.tts.response_format: must be one of: wav, pcm',
      'carriers.yaml:8:15 speech.stt.language: must match the pattern ^[a-z]{2,3}$',
      'carriers.yaml:9:18 speech.stt.temperature: is not a known field',
    ].sort());
    assert.deepEqual(problemsOf('speech: {}\n'), ['carriers.yaml:1:9 speech: must have at least 1 entry']);
  });
});

describe('switchboard carriers check with speech endpoints', () => {
  test('speaks a phrase and transcribes silence with the real key: one ok row each; a wrong key fails both, naming the answer', async () => {
    const path = join(dir, 'speech.yaml');
    writeFileSync(path, `speech:\n  tts: { base_url: "${api.baseUrl}", api_key: env:SPEECH_KEY, voice: nova }\n  stt: { base_url: "${api.baseUrl}", api_key: env:SPEECH_KEY }\n`);
    const good = await cli(['carriers', 'check', '--file', path, '--json'], { SPEECH_KEY: 'sk-test-key' });
    assert.equal(good.status, 0, good.stderr);
    const rows = JSON.parse(good.stdout).links as { name: string; kind: string; ok: boolean; detail: string }[];
    assert.deepEqual(rows.map((r) => [r.name, r.kind, r.ok]), [['speech.tts', 'speech', true], ['speech.stt', 'speech', true]]);
    assert.match(rows[0]!.detail, /^spoke "Switchboard speech check\.": 1\.\d s of wav with tts-1 \(nova\)$/);
    assert.equal(rows[1]!.detail, 'transcribed half a second of silence with whisper-1: "", 0 timed words');
    const transcription = api.requests.find((r) => r.path === '/v1/audio/transcriptions')!;
    assert.equal(transcription.fields.response_format, 'verbose_json');
    assert.equal(transcription.fields['timestamp_granularities[]'], 'word,segment');
    assert.equal(transcription.audio?.length, 4000, 'half a second at 8 kHz was uploaded');

    const bad = await cli(['carriers', 'check', '--file', path], { SPEECH_KEY: 'sk-wrong' });
    assert.equal(bad.status, 1);
    const lines = bad.stdout.trim().split('\n');
    assert.match(lines[1]!, new RegExp(`^speech\\.tts\\s+speech\\s+.*FAILED\\s+${api.baseUrl}/v1/audio/speech: 401 Incorrect API key provided\\.$`));
    assert.match(lines[2]!, /^speech\.stt\s+speech\s+.*FAILED\s+.*\/v1\/audio\/transcriptions: 401 Incorrect API key provided\.$/);
    assert.ok(!bad.stdout.includes('sk-wrong'), 'the key is never printed');
  });
});

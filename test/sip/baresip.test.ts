// A live call to baresip, a real SIP user agent with its own SIP stack, codecs and jitter
// buffer, on 127.0.0.3: it auto-answers our INVITE, records what it hears and speaks a
// known sweep back. The customer's view (events through HTTP and webhooks) and both
// directions of audio are checked: baresip heard our flow's `say` prompt, and our
// recording holds what baresip said.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitForTypes } from '../voice/voice-helpers.ts';
import { freeUdpPort, peerAvailable } from '../helpers/sipp.ts';
import { startBaresip, type Baresip } from '../helpers/baresip.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';
import { matchAudio } from '../helpers/audio-match.ts';
import { decodeWav } from '../../src/media/wav.ts';
import { decodeG711, encodeG711 } from '../../src/carriers/rtp/g711.ts';
import { EmbeddedTextToSpeech } from '../../src/carriers/speech/text-to-speech.ts';

const hasBaresip = peerAvailable('baresip');
const hasSox = peerAvailable('sox');
const FROM = '+14155550142';
const TO = '+14155550199';
const BARESIP_HOST = '127.0.0.3';

let lv: LiveVoice;
let baresip: Baresip | undefined;
let sweep: Int16Array;

before(async () => {
  if (!hasBaresip || !hasSox) return;
  const dir = mkdtempSync(join(tmpdir(), 'sb-baresip-'));
  // What baresip says: a 4 s sweep, whose sharp autocorrelation makes the alignment
  // unambiguous, then silence (baresip hangs up when its source file runs out).
  const sweepFile = join(dir, 'sweep.wav');
  const made = spawnSync('sox', ['-n', '-r', '8000', '-c', '1', '-b', '16', sweepFile, 'synth', '4', 'sine', '300-3000', 'gain', '-6', 'pad', '0', '60']);
  assert.equal(made.status, 0, String(made.stderr));
  sweep = decodeWav(readFileSync(sweepFile)).samples[0]!.subarray(0, 4 * 8000);

  const baresipPort = await freeUdpPort();
  baresip = await startBaresip({ host: BARESIP_HOST, user: TO, port: baresipPort, speaks: sweepFile, rtpPorts: { min: 46200, max: 46298 } });
  lv = await startLiveVoice({
    rtp: [46300, 46398],
    trunks: [`{ name: baresip, host: ${BARESIP_HOST}, port: ${baresipPort}, codecs: [PCMU, PCMA] }`],
    numbers: { [FROM]: 'baresip' },
  });
});

after(async () => {
  await baresip?.stop();
  await lv?.close();
});

describe('baresip as the called user agent', { skip: !hasBaresip || !hasSox }, () => {
  test('auto-answers; hears our say prompt; our recording holds what it said; the flow hangs up', async (ctx) => {
    const greeting = 'Hello from Switchboard. This is a test of live voice.';
    const live = lv.live();
    const placed = await live.post('/v1/calls', { from: FROM, to: TO, record: true, flow: [{ say: { text: greeting } }, { pause: { seconds: 2 } }] });
    assert.equal(placed.status, 200, JSON.stringify(placed.body));
    const callId = placed.body.id as string;

    const events = await waitForTypes(lv.receiver, callId, ['call.queued', 'call.ringing', 'call.answered', 'call.completed'], 60_000)
      .catch((err: Error) => assert.fail(`${err.message}\nbaresip said:\n${baresip!.log()}`));
    const done = events[3]!.data.object;
    assert.equal(done.hangup_source, 'caller', 'the flow ran out, so our side hung up');
    assert.equal(done.hangup_cause, 'normal_clearing');
    assert.equal(done.sip_status, 200);
    const flow = await live.get(`/v1/calls/${callId}/flow`);
    assert.deepEqual(flow.body.log.map((entry: { verb: string; result: { reason: string } }) => [entry.verb, entry.result.reason]), [['say', 'finished'], ['pause', 'finished']]);

    // What baresip heard is our prompt as it went on the line (G.711), after its jitter buffer.
    await baresip!.stop();
    const tts = new EmbeddedTextToSpeech();
    const spoken = await tts.synthesize(greeting, { language: 'en-US' });
    await tts.close();
    // The prompt starts when the speech engine has it ready: on a busy machine the first
    // utterance (the engine compiling) can take several seconds after the answer.
    const heard = matchAudio(decodeG711('PCMU', encodeG711('PCMU', spoken)), baresip!.heard(), 20 * 8000);
    assert.ok(heard.lag >= 0, `baresip's recording misses the first ${-heard.lag} samples of the prompt`);
    ctx.diagnostic(`baresip heard our prompt: correlation ${heard.correlation.toFixed(4)} at lag ${heard.lag}`);
    assert.ok(heard.correlation > 0.99, `what baresip heard vs our prompt: correlation ${heard.correlation}`);

    // And the other way: the callee channel of our recording is baresip's sweep.
    const recorded = await lv.recordingOf(callId);
    const said = matchAudio(decodeG711('PCMU', encodeG711('PCMU', sweep)), recorded.samples[1]!, 16_000);
    ctx.diagnostic(`our recording of baresip's sweep: correlation ${said.correlation.toFixed(4)} at lag ${said.lag}`);
    assert.ok(said.correlation > 0.99, `our recording's callee channel vs baresip's sweep: correlation ${said.correlation}`);
  });
});

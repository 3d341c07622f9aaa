// The flow operations of live calls against a scripted leg: barge-in, gather ends, record
// ends and hang-ups, as the flow interpreter will see them through MediaEvents.finished.
// (The say path runs end to end over SIPp in live-calls.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { LiveOperations, type CapturedSpan, type Hearing, type LegAudio } from '../../src/carriers/sip/live-operations.ts';
import type { MediaResult } from '../../src/telephony/media-ops.ts';
import { toLineRate } from '../../src/media/resample.ts';
import { readPcm16Wav } from '../../src/media/wav.ts';
import { encodeWav } from '../../src/media/wav.ts';

/** A leg whose prompts take their real length (8 samples a millisecond) and that can be poked. */
function fakeLeg() {
  const listeners: { digit?: (d: string) => void; voice?: (t: boolean) => void }[] = [];
  const played: number[] = [];
  // Like the RTP session: plays queue, one after the other; stopping drops the whole queue.
  const queue: { pcm: Int16Array; resolve: (r: { interrupted: boolean }) => void }[] = [];
  let timer: NodeJS.Timeout | undefined;
  const playHead = () => {
    const head = queue[0];
    if (!head) return;
    timer = setTimeout(() => { queue.shift(); head.resolve({ interrupted: false }); playHead(); }, head.pcm.length / 8);
  };
  const started = performance.now();
  const leg: LegAudio = {
    play: (_id, pcm) => new Promise((resolve) => {
      played.push(pcm.length);
      queue.push({ pcm, resolve });
      if (queue.length === 1) playHead();
    }),
    stopPlayback: async () => {
      clearTimeout(timer);
      for (const q of queue.splice(0)) q.resolve({ interrupted: true });
    },
    listen: (_id, on) => {
      listeners.push(on);
      return () => listeners.splice(listeners.indexOf(on), 1);
    },
    elapsed: () => (performance.now() - started) / 1000,
    // Bridging needs a SIP peer: live-calls.test.ts covers it against SIPp.
    bridge: async () => ({ kind: 'bridge', outcome: 'failed', talkSeconds: 0 }),
    // Mixing needs the RTP engine: live-conference.test.ts covers it against SIPp.
    mix: async () => {},
    // Node-to-node legs need two nodes: conference-nodes.test.ts covers them against SIPp.
    joinHome: async () => {},
  };
  return {
    leg,
    played,
    press: (digits: string) => { for (const d of digits) for (const l of [...listeners]) l.digit?.(d); },
    voice: (talking: boolean) => { for (const l of [...listeners]) l.voice?.(talking); },
  };
}

type Synthesize = (text: string) => Promise<Int16Array>;

function harness(options: { synthesize?: Synthesize; hearing?: Hearing } = {}) {
  const fake = fakeLeg();
  const synthesize = options.synthesize ?? (async (text: string) => new Int16Array(text.length * 400));
  const results: MediaResult[] = [];
  const spans: CapturedSpan[] = [];
  const heard: string[] = [];
  let resolveNext: (() => void) | null = null;
  const ops = new LiveOperations(fake.leg, () => ({ synthesize, close: async () => {} }), {
    report: async (_c, _o, result) => { results.push(result); resolveNext?.(); },
    heard: async (_c, input) => { if (input.kind === 'dtmf') heard.push(input.digits); },
    captured: (_c, span) => spans.push(span),
    log: (err) => { throw err; },
  }, { waiting: () => false, connectionBus: (a, b) => ({ bus: `${a}:${b}`, capacity: 2 }), mixedElsewhere: () => false }, options.hearing ?? null);
  const next = () => new Promise<MediaResult>((resolve) => {
    resolveNext = () => resolve(results.at(-1)!);
  });
  return { ...fake, ops, results, spans, heard, next };
}

const gather = { kind: 'collect' as const, dtmf: true, speech: false, finishOnKey: '#', timeoutSeconds: 0.3, speechTimeoutSeconds: 1, hints: [] };

test('a key pressed over the prompt cuts it (barge-in); the gather ends on the finish key', async () => {
  const h = harness();
  const done = h.next();
  h.ops.start('c1', 'op1', { ...gather, bargeIn: true, prompts: [{ kind: 'speak', text: 'a long prompt to barge into', loop: 1 }, { kind: 'silence', seconds: 5 }] });
  await sleep(100);
  h.press('4');
  await sleep(20);
  h.press('2#');
  assert.deepEqual(await done, { kind: 'collect', digits: '42', speech: null, confidence: null, reason: 'finish_key' });
  assert.equal(h.played.length, 1, 'the second prompt never played');
  assert.deepEqual(h.heard, ['4', '2', '#']);
});

test('a reply spoken by sentence starts before its later sentences are synthesised; barging in drops the rest', async () => {
  let openGate: () => void = () => {};
  const gate = new Promise<void>((resolve) => { openGate = resolve; });
  const asked: string[] = [];
  const h = harness({
    synthesize: async (text) => {
      asked.push(text);
      if (text.startsWith('Second')) await gate;
      return new Int16Array(4000);
    },
  });
  const done = h.next();
  h.ops.start('c1', 'op1', { ...gather, bargeIn: true, prompts: [{ kind: 'speak', text: 'First one. Second one is long. Third one.', loop: 1, bySentence: true }] });
  await sleep(100);
  assert.deepEqual(asked, ['First one.', 'Second one is long.', 'Third one.'], 'each sentence is synthesised on its own');
  assert.equal(h.played.length, 1, 'the first sentence plays while the second is still being made');
  h.press('5');
  openGate();
  h.press('#');
  assert.deepEqual(await done, { kind: 'collect', digits: '5', speech: null, confidence: null, reason: 'finish_key' });
  assert.equal(h.played.length, 1, 'nothing after the barge-in is played');
});

test('listening by words: a pause after an unfinished clause does not end the line; the finished line ends it, its words reused', async () => {
  const said = ['I would like to book an appointment for', 'I would like to book an appointment for Tuesday'];
  const transcribed: string[] = [];
  const hearing: Hearing = {
    farAudio: async () => new Int16Array(800),
    stt: { transcribe: async () => {
      const text = said[Math.min(transcribed.length, said.length - 1)]!;
      transcribed.push(text);
      return { text, confidence: null, words: [] };
    } },
  };
  const h = harness({ hearing });
  const done = h.next();
  h.ops.start('c1', 'op1', { ...gather, dtmf: false, speech: true, bargeIn: true, timeoutSeconds: 10, speechTimeoutSeconds: 0.8, endOfUtterance: 'words', prompts: [] });
  h.voice(true);
  await sleep(50);
  h.voice(false);
  // The caller hesitates after "for" (longer than the 0.8 s a line used to end on), then goes on.
  await sleep(1000);
  assert.equal(h.results.length, 0, 'the line did not end at the pause');
  h.voice(true);
  await sleep(50);
  h.voice(false);
  const result = await done;
  assert.equal(result.kind === 'collect' && result.speech, said[1]);
  assert.deepEqual(transcribed, said, 'one transcript per pause, the last one is the line');
});

test('without barge-in keys over the prompt are not input; num_digits and timeout end a gather', async () => {
  const h = harness();
  let done = h.next();
  h.ops.start('c1', 'op1', { ...gather, bargeIn: false, numDigits: 2, prompts: [{ kind: 'silence', seconds: 0.2 }] });
  h.press('9');
  await sleep(300);
  h.press('12');
  assert.deepEqual(await done, { kind: 'collect', digits: '12', speech: null, confidence: null, reason: 'num_digits' });
  done = h.next();
  h.ops.start('c1', 'op2', { ...gather, bargeIn: true, prompts: [] });
  h.press('7');
  const timedOut = await done;
  assert.equal(timedOut.kind === 'collect' && timedOut.reason, 'timeout');
  assert.equal(timedOut.kind === 'collect' && timedOut.digits, '7');
});

test('interrupt and hang-up end the running operation once, with their reason', async () => {
  const h = harness();
  let done = h.next();
  h.ops.start('c1', 'op1', { kind: 'speak', text: 'hello there', loop: 3 });
  await sleep(50);
  h.ops.interrupt('c1', 'other-op');
  h.ops.interrupt('c1', 'op1');
  assert.deepEqual(await done, { kind: 'speak', reason: 'interrupted' });
  done = h.next();
  h.ops.start('c1', 'op2', { ...gather, bargeIn: true, prompts: [] });
  h.ops.hungUp('c1');
  assert.equal((await done).kind === 'collect' && (await done as { reason: string }).reason, 'hangup');
  await sleep(400);
  assert.equal(h.results.length, 2, 'each operation reported exactly once');
});

test('record: a beep, then the caller until silence; the span is handed over for the sink', async () => {
  const h = harness();
  const done = h.next();
  h.ops.start('c1', 'op1', { kind: 'record', recordingId: 'rec_1', format: { channels: 1, sampleRate: 8000 }, maxSeconds: 5, silenceTimeoutSeconds: 0.3, finishOnKey: '', beep: true });
  await sleep(600);
  h.voice(true);
  await sleep(400);
  h.voice(false);
  const result = await done;
  assert.equal(result.kind === 'record' && result.reason, 'silence');
  assert.equal(h.played[0], 4000, 'a half-second beep first');
  assert.equal(h.spans.length, 1);
  const span = h.spans[0]!;
  assert.equal(span.recordingId, 'rec_1');
  assert.ok(span.end - span.start >= 0.65 && span.end - span.start < 2, `captured ${span.end - span.start} s`);
});

test('WAV prompts at other rates come to the line at 8 kHz with their shape', () => {
  const tone = Int16Array.from({ length: 16000 }, (_, i) => Math.round(9000 * Math.sin((2 * Math.PI * 440 * i) / 16000)));
  const { sampleRate, samples } = readPcm16Wav(encodeWav({ sampleRate: 16000, channels: 1, samples: [tone] }));
  const line = toLineRate(samples, sampleRate);
  assert.equal(line.length, 8000);
  let dot = 0;
  let ea = 0;
  let eb = 0;
  for (let i = 100; i < 7900; i++) {
    const want = 9000 * Math.sin((2 * Math.PI * 440 * i) / 8000);
    dot += want * (line[i] as number);
    ea += want * want;
    eb += (line[i] as number) ** 2;
  }
  assert.ok(dot / Math.sqrt(ea * eb) > 0.999);
  // A tone above the line's band is filtered out, not folded back as an alias.
  const high = Int16Array.from({ length: 16000 }, (_, i) => Math.round(9000 * Math.sin((2 * Math.PI * 6000 * i) / 16000)));
  const filtered = toLineRate(high, 16000);
  const rms = Math.sqrt(filtered.slice(100, 7900).reduce((n, v) => n + v * v, 0) / 7800);
  assert.ok(rms < 300, `6 kHz leaks through at RMS ${rms}`);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { simulatedDialogue } from '../../src/carriers/simulator/conversation-script.ts';
import { synthesizeAudio, timeDialogue, type TranscriptSegment } from '../../src/carriers/simulator/speech.ts';
import { decodeWav, encodeWav } from '../../src/media/wav.ts';
import { detectPii, redactSegments, silenceRanges, type PiiType } from '../../src/modules/recordings/pii.ts';

/** Detected values as `type:text`, for readable assertions. */
const found = (text: string, types?: PiiType[]) => detectPii(text, types).map((m) => `${m.type}:${text.slice(m.start, m.end)}`);

test('card numbers must pass Luhn, with optional single spaces or dashes between groups', () => {
  assert.deepEqual(found('card 4242 4242 4242 4242, thanks'), ['credit_card:4242 4242 4242 4242']);
  assert.deepEqual(found('card 4242-4242-4242-4242.'), ['credit_card:4242-4242-4242-4242']);
  assert.deepEqual(found('card 4111111111111111'), ['credit_card:4111111111111111']);
  assert.deepEqual(found('amex 3782 822463 10005'), ['credit_card:3782 822463 10005']);
  assert.deepEqual(found('card 4242 4242 4242 4241'), [], 'a 16-digit non-Luhn number is neither card nor phone');
  assert.deepEqual(found('order 4242  4242 4242 4242'), [], 'double space splits the number');
  assert.deepEqual(found('short 424242424242'), [], '12 digits is too short');
  assert.deepEqual(found('account 42424242424242424242'), [], '20 digits is too long');
  assert.deepEqual(found('ref A4242424242424242'), [], 'part of a word');
});

test('a card next to other numbers is found on its group boundaries', () => {
  assert.deepEqual(found('SSN 123-45-6789 4242 4242 4242 4242'), ['ssn:123-45-6789', 'credit_card:4242 4242 4242 4242']);
});

test('SSNs follow SSA rules; unseparated or spaced only with social security context', () => {
  assert.deepEqual(found("It's 123-45-6789."), ['ssn:123-45-6789']);
  for (const invalid of ['000-12-3456', '666-12-3456', '900-12-3456', '999-12-3456', '123-00-4567', '123-45-0000']) {
    assert.deepEqual(found(`It's ${invalid}.`), [], invalid);
  }
  assert.deepEqual(found('899-12-3456'), ['ssn:899-12-3456']);
  assert.deepEqual(found('my social security number is 123 45 6789'), ['ssn:123 45 6789']);
  assert.deepEqual(found('SSN: 123456789'), ['ssn:123456789']);
  assert.deepEqual(found('ticket 123 45 6789 and 123456789'), [], 'no context, no SSN');
  assert.deepEqual(found('my SSN is 666 45 6789'), []);
});

test('phone numbers come from libphonenumber, defaulting to US', () => {
  assert.deepEqual(found('Call me at (415) 555-0134 or later'), ['phone_number:(415) 555-0134']);
  assert.deepEqual(found('call +1 415 555 0134.'), ['phone_number:+1 415 555 0134']);
  assert.deepEqual(found('call +44 20 7946 0958'), ['phone_number:+44 20 7946 0958']);
  assert.deepEqual(found('it costs 12 dollars'), []);
});

test('e-mail addresses exclude trailing punctuation', () => {
  assert.deepEqual(found('email sam@example.com.'), ['email_address:sam@example.com']);
  assert.deepEqual(found('(x.y+tag@mail.example.co.uk), not me@localhost'), ['email_address:x.y+tag@mail.example.co.uk']);
});

test('types filters what is reported, not what claims the digits', () => {
  const text = 'card 4242 4242 4242 4242, phone 415-555-0134, mail a@b.io';
  assert.deepEqual(found(text, ['phone_number']), ['phone_number:415-555-0134']);
  assert.deepEqual(found(text, []), []);
  assert.deepEqual(
    detectPii(text).map((m) => m.type),
    ['credit_card', 'phone_number', 'email_address'],
    'sorted by position',
  );
});

const line = (channel: 0 | 1, text: string, startAt: number) =>
  timeDialogue([{ channel, speaker: channel === 0 ? 'caller' : 'callee', text }], { startAt })[0]!;

test('redactSegments masks text and words and reports each value as one audio range', () => {
  const segment = line(0, "It's 4242 4242 4242 4242, or mail sam@example.com.", 2);
  const { segments, ranges } = redactSegments([segment]);

  assert.equal(segments[0]!.text, "It's [REDACTED CREDIT_CARD], or mail [REDACTED EMAIL_ADDRESS].");
  assert.deepEqual(
    segments[0]!.words.map((w) => w.text),
    ["It's", '[REDACTED]', '[REDACTED]', '[REDACTED]', '[REDACTED]', 'or', 'mail', '[REDACTED]'],
  );
  assert.deepEqual(
    segments[0]!.words.map((w) => [w.start, w.end]),
    segment.words.map((w) => [w.start, w.end]),
    'timings are unchanged',
  );
  const words = segment.words;
  assert.deepEqual(ranges, [
    { type: 'credit_card', channel: 0, start: words[1]!.start, end: words[4]!.end },
    { type: 'email_address', channel: 0, start: words[7]!.start, end: words[7]!.end },
  ]);
  assert.equal(segment.text, "It's 4242 4242 4242 4242, or mail sam@example.com.", 'input is not mutated');
});

test('the previous line provides SSN context, and types limit redaction', () => {
  const asked = line(1, 'What is your social security number?', 0);
  const answer = line(0, 'Sure, 123 45 6789 and my cell is (415) 555-0134', 3);
  const { segments, ranges } = redactSegments([asked, answer], ['ssn']);
  assert.equal(segments[1]!.text, 'Sure, [REDACTED SSN] and my cell is (415) 555-0134');
  assert.deepEqual(ranges, [{ type: 'ssn', channel: 0, start: answer.words[1]!.start, end: answer.words[3]!.end }]);
  assert.deepEqual(redactSegments([answer], ['ssn']).ranges, [], 'without the question it is just a number');
});

test('redacting twice is harmless; words missing from the text fail closed', () => {
  const once = redactSegments([line(0, 'mail sam@example.com now', 0)]);
  assert.deepEqual(redactSegments(once.segments), { segments: once.segments, ranges: [] });

  const mismatched: TranscriptSegment = { ...line(0, 'hello there', 0), text: 'hello' };
  assert.throws(() => redactSegments([mismatched]), /word "there" not found/);
});

test('silenceRanges zeroes floor(start*rate) to ceil(end*rate) on one or all channels', () => {
  const stereo = () => [new Int16Array(100).fill(7), new Int16Array(100).fill(7)];
  const zeros = (samples: Int16Array) => [...samples.keys()].filter((i) => samples[i] === 0);
  const range = { channel: 1, start: 0.0011, end: 0.0019 }; // samples 11-18 at 10 kHz

  const one = stereo();
  silenceRanges(one, 10_000, [range], { allChannels: false });
  assert.deepEqual(zeros(one[0]!), []);
  assert.deepEqual(zeros(one[1]!), [11, 12, 13, 14, 15, 16, 17, 18]);

  const all = stereo();
  silenceRanges(all, 10_000, [range], { allChannels: true });
  assert.deepEqual(zeros(all[0]!), zeros(all[1]!));
  assert.equal(zeros(all[0]!).length, 8);

  const mono = [new Int16Array(100).fill(7)];
  silenceRanges(mono, 10_000, [{ channel: 1, start: 0.009, end: 1 }], { allChannels: false });
  assert.deepEqual(zeros(mono[0]!), [...Array(10).keys()].map((i) => 90 + i), 'mono carries both parties; clamped to the end');

  assert.throws(() => silenceRanges(stereo(), 10_000, [{ channel: 2, start: 0, end: 1 }], { allChannels: false }), RangeError);
});

test('redaction round trip: the PII call audio is digital silence exactly where PII was said', () => {
  for (const [sampleRate, channels] of [[8000, 2], [16000, 1]] as const) {
    const transcript = timeDialogue(simulatedDialogue('pii', 'round-trip'), { startAt: 0.5 });
    const durationSeconds = Math.ceil(transcript.at(-1)!.end + 1);
    const audio = synthesizeAudio(transcript, { sampleRate, channels, durationSeconds, seed: 'round-trip' });

    const { segments, ranges } = redactSegments(transcript);
    assert.deepEqual(new Set(ranges.map((r) => r.type)), new Set(['credit_card', 'ssn', 'phone_number', 'email_address']));
    silenceRanges(audio, sampleRate, ranges, { allChannels: true });
    const decoded = decodeWav(encodeWav({ sampleRate, channels, samples: audio }));
    assert.equal(decoded.samples.length, channels);

    for (const range of ranges) {
      const from = Math.floor(range.start * sampleRate);
      const to = Math.ceil(range.end * sampleRate);
      for (const channel of decoded.samples) {
        assert.ok(channel.subarray(from, to).every((s) => s === 0), `${range.type} silent on every channel`);
      }
    }

    const kept = segments.flatMap((s) => s.words.filter((w) => w.text !== '[REDACTED]').map((w) => ({ ...w, channel: s.channel })));
    assert.ok(kept.length > 40);
    for (const word of kept) {
      const samples = decoded.samples[channels === 2 ? word.channel : 0]!;
      const audible = samples.subarray(Math.round(word.start * sampleRate), Math.round(word.end * sampleRate));
      assert.ok(audible.some((s) => Math.abs(s) > 1000), `"${word.text}" is still audible`);
    }
  }
});

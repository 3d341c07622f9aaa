import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkDocument, splitSentences, TARGET_CHUNK_CHARS } from '../../src/modules/ai/engine/chunking.ts';
import { KnowledgeIndex } from '../../src/modules/ai/engine/retrieval.ts';
import { detectIntent, extractInlineMessage } from '../../src/modules/ai/engine/intents.ts';
import { isOpen, validateBusinessHours } from '../../src/modules/ai/engine/business-hours.ts';
import { scoreConversation } from '../../src/modules/ai/engine/scoring.ts';
import { DefaultEngine } from '../../src/modules/ai/engine/default-engine.ts';
import { evaluateFixture } from '../../src/modules/ai/engine/evaluate.ts';
import { createEngine, GenerativeEngine } from '../../src/modules/ai/engine/index.ts';
import type { AgentProfile, BusinessHours, KnowledgeDocument, TranscriptTurn } from '../../src/modules/ai/engine/types.ts';

// ------------------------------------------------------------------ chunking

test('chunking: markdown sections carry their heading path and deterministic ids', () => {
  const doc: KnowledgeDocument = {
    documentId: 'doc1',
    title: 'Shop info',
    contentType: 'text/markdown',
    content: [
      'Intro line before any heading.',
      '# Spoke & Chain Bikes',
      '## Hours',
      'We are open **Tuesday to Saturday**, 10 a.m. to 6 p.m.',
      '- Sunday: closed',
      '- Monday: closed',
      '### Holidays',
      'Closed on [Christmas Day](https://example.com/holidays).',
      '## Prices',
      '| Service | Price |',
      '|---|---|',
      '| Basic tune-up | $79 |',
      '| Flat repair | $15 |',
    ].join('\n'),
  };
  const chunks = chunkDocument(doc);
  assert.deepEqual(
    chunks.map((c) => [c.id, c.heading]),
    [
      ['doc1#0', null],
      ['doc1#1', 'Spoke & Chain Bikes > Hours'],
      ['doc1#2', 'Spoke & Chain Bikes > Hours > Holidays'],
      ['doc1#3', 'Spoke & Chain Bikes > Prices'],
    ],
  );
  assert.equal(chunks[1]!.text, 'We are open Tuesday to Saturday, 10 a.m. to 6 p.m.\nSunday: closed\nMonday: closed');
  assert.equal(chunks[2]!.text, 'Closed on Christmas Day.');
  assert.equal(chunks[3]!.text, 'Basic tune-up: Price: $79\nFlat repair: Price: $15');
  assert.ok(chunks.every((c) => c.documentId === 'doc1' && c.title === 'Shop info'));
  assert.deepEqual(chunkDocument(doc), chunks, 'same input, same chunks');
});

test('chunking: html drops scripts, styles and comments, turns h1-h6 into headings and decodes entities', () => {
  const chunks = chunkDocument({
    documentId: 'web',
    title: 'Web page',
    contentType: 'text/html',
    content: `<html><head><title>Ignored</title><style>.x { color: red } h2 { }</style></head>
      <body><script>var secret = "<h2>not a heading</h2>";</script>
      <!-- <p>hidden comment</p> -->
      <h1>Repairs &amp; Service</h1>
      <p>We fix   all bikes.<br>Walk-ins welcome&nbsp;daily.</p>
      <h3 class="sub">Wheel &#8211; truing</h3>
      <ul><li>Truing: $25</li><li>Spoke replacement: $10 &hellip; each</li></ul>
      <table><tr><th>Item</th><th>Price</th></tr><tr><td>Chain</td><td>$30</td></tr></table>
      </body></html>`,
  });
  assert.deepEqual(
    chunks.map((c) => c.heading),
    ['Repairs & Service', 'Repairs & Service > Wheel – truing'],
  );
  assert.equal(chunks[0]!.text, 'We fix all bikes.\nWalk-ins welcome daily.');
  assert.equal(chunks[1]!.text, 'Truing: $25\nSpoke replacement: $10 … each\nChain: Price: $30');
  const all = chunks.map((c) => c.text + c.heading).join(' ');
  for (const leaked of ['secret', 'color', 'hidden', 'Ignored', 'not a heading', '<', '&amp;']) {
    assert.ok(!all.includes(leaked), `"${leaked}" leaked into chunks`);
  }
});

test('chunking: plain text headings and FAQ questions', () => {
  const chunks = chunkDocument({
    documentId: 'faq',
    title: 'FAQ',
    contentType: 'text/plain',
    content: 'SHOP HOURS\n\nMonday: 9 to 5\nTuesday: 9 to 5\n\nDo you rent bikes?\nYes, city bikes rent for $30 a day.\nHelmets are included.\n',
  });
  assert.deepEqual(
    chunks.map((c) => [c.heading, c.text]),
    [
      ['Shop Hours', 'Monday: 9 to 5\nTuesday: 9 to 5'],
      ['Shop Hours > Do you rent bikes?', 'Yes, city bikes rent for $30 a day. Helmets are included.'],
    ],
  );
});

test('chunking: long sections split on sentence boundaries near the target size', () => {
  const sentences = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} talks about bicycle maintenance in some detail.`);
  const chunks = chunkDocument({ documentId: 'long', title: 'Long', contentType: 'text/plain', content: sentences.join(' ') });
  assert.ok(chunks.length > 1);
  for (const chunk of chunks) {
    assert.ok(chunk.text.length <= TARGET_CHUNK_CHARS, `chunk of ${chunk.text.length} chars`);
    assert.match(chunk.text, /^Sentence number \d+ .*detail\.$/, 'chunks start and end on sentence boundaries');
  }
  assert.equal(chunks.map((c) => c.text).join(' '), sentences.join(' '), 'nothing lost or duplicated');

  const huge = `${'word '.repeat(400)}end.`;
  const hugeChunks = chunkDocument({ documentId: 'huge', title: 'Huge', contentType: 'text/plain', content: huge });
  assert.ok(hugeChunks.length > 1, 'a single huge sentence is still cut');
  assert.ok(hugeChunks.every((c) => c.text.length <= TARGET_CHUNK_CHARS));
});

test('splitSentences keeps abbreviations, initials and times together', () => {
  assert.deepEqual(splitSentences('Dr. Lee opens at 9 a.m. on weekdays. Ask for J. Smith! Is it free? Yes.'), [
    'Dr. Lee opens at 9 a.m. on weekdays.',
    'Ask for J. Smith!',
    'Is it free?',
    'Yes.',
  ]);
  assert.deepEqual(splitSentences('Price: $5\nHours: 9-5'), ['Price: $5', 'Hours: 9-5']);
});

// ------------------------------------------------------------------ retrieval

function bikeShopIndex(): KnowledgeIndex {
  const index = new KnowledgeIndex();
  index.add(
    chunkDocument({
      documentId: 'shop',
      title: 'Spoke & Chain Bikes',
      contentType: 'text/markdown',
      content: [
        '## Opening hours',
        'Tuesday to Saturday 10 a.m. to 6 p.m. Closed Sunday and Monday.',
        '## Prices',
        'A basic tune-up is $79. A full overhaul is $189. Flat tire repair is $15 plus the tube.',
        '## Location',
        'We are at 88 Elm Street, next to the library. Bike parking is right out front.',
        '## Appointments',
        'Repairs are first come, first served, but you can reserve a tune-up online.',
      ].join('\n'),
    }),
  );
  index.add(
    chunkDocument({
      documentId: 'rentals',
      title: 'Rentals',
      contentType: 'text/plain',
      content: 'City bikes rent for $30 a day. E-bikes rent for $60 a day. A credit card deposit is required.',
    }),
  );
  return index;
}

test('retrieval: synonyms connect how callers ask with how documents say it', () => {
  const index = bikeShopIndex();
  assert.equal(index.search('how much does a tune up cost')[0]?.chunk.heading, 'Prices');
  assert.equal(index.search('when are you open')[0]?.chunk.heading, 'Opening hours');
  assert.equal(index.search('where are you guys located?')[0]?.chunk.heading, 'Location');
  assert.equal(index.search('what is your address')[0]?.chunk.heading, 'Location');
});

test('retrieval: fuzzy and prefix matching, limits and document removal', () => {
  const index = bikeShopIndex();
  assert.equal(index.search('can I make an apointment')[0]?.chunk.heading, 'Appointments', 'one typo');
  assert.equal(index.search('overhaul')[0]?.chunk.heading, 'Prices');
  assert.equal(index.search('ebike rental')[0]?.chunk.documentId, 'rentals', 'hyphenated words match joined');
  assert.equal(index.search('bike', 2).length, 2);
  assert.deepEqual(index.search('the and of'), [], 'stopwords only');

  index.removeDocument('rentals');
  assert.ok(index.search('ebike rental').every((h) => h.chunk.documentId !== 'rentals'));
  assert.deepEqual(index.documentIds(), ['shop']);
  // Re-adding a chunk id replaces it instead of duplicating it.
  const before = index.size;
  index.add([{ id: 'shop#0', documentId: 'shop', title: 'Spoke & Chain Bikes', heading: 'Opening hours', text: 'Open every day 8 to 8.' }]);
  assert.equal(index.size, before);
  assert.match(index.search('open every day')[0]!.chunk.text, /every day/);
});

// ------------------------------------------------------------------ intents

// Requests for a person and goodbyes: see intents.test.ts (the rules' precision examples).

test('intents: messages and small talk', () => {
  assert.equal(detectIntent('Can I leave a message for Tom?'), 'message');
  assert.equal(detectIntent('could you have her call me back'), 'message');
  assert.equal(detectIntent('Take a message, please.'), 'message');
  assert.equal(detectIntent('Hello?'), 'greeting');
  assert.equal(detectIntent('thank you so much'), 'thanks');
  assert.equal(detectIntent('how are you doing'), 'how_are_you');
  assert.equal(detectIntent('are you a robot?'), 'identity');
  assert.equal(detectIntent('Yes please'), 'affirm');
  assert.equal(detectIntent('hey do you guys do tune-ups on weekends?'), 'question');
  assert.equal(extractInlineMessage('Can I leave a message for Tom saying the bike is ready for pickup'), 'the bike is ready for pickup');
  assert.equal(extractInlineMessage('can I leave a message'), null);
});

// ------------------------------------------------------------------ business hours

const NY_HOURS: BusinessHours = {
  timezone: 'America/New_York',
  schedule: { mon: ['09:00-17:00'], tue: ['09:00-12:00', '13:00-17:00'], fri: ['18:00-24:00'], sat: ['00:00-02:00'], sun: [] },
};

test('business hours: evaluated in the business timezone, across DST', () => {
  // Monday 2024-01-15 14:00 UTC = 09:00 EST: just opened.
  assert.equal(isOpen(NY_HOURS, new Date('2024-01-15T14:00:00Z')), true);
  assert.equal(isOpen(NY_HOURS, new Date('2024-01-15T13:59:00Z')), false);
  // Monday 2024-07-15 13:30 UTC = 09:30 EDT (summer time).
  assert.equal(isOpen(NY_HOURS, new Date('2024-07-15T13:30:00Z')), true);
  assert.equal(isOpen(NY_HOURS, new Date('2024-07-15T21:00:00Z')), false, '17:00 local: end is exclusive');
  // Tuesday lunch break.
  assert.equal(isOpen(NY_HOURS, new Date('2024-01-16T17:30:00Z')), false);
  assert.equal(isOpen(NY_HOURS, new Date('2024-01-16T18:30:00Z')), true);
  // Friday night into Saturday via the 24:00 and 00:00 ranges: 2024-01-20 04:30 UTC is Friday 23:30 EST.
  assert.equal(isOpen(NY_HOURS, new Date('2024-01-20T04:30:00Z')), true);
  assert.equal(isOpen(NY_HOURS, new Date('2024-01-20T06:30:00Z')), true, 'Saturday 01:30 local');
  assert.equal(isOpen(NY_HOURS, new Date('2024-01-20T07:30:00Z')), false, 'Saturday 02:30 local');
  // Missing day (wed) and empty day (sun) are closed.
  assert.equal(isOpen(NY_HOURS, new Date('2024-01-17T15:00:00Z')), false);
  assert.equal(isOpen(NY_HOURS, new Date('2024-01-21T15:00:00Z')), false);

  // The same instant is Monday 09:00 in Tokyo and still Sunday in New York.
  const tokyo: BusinessHours = { timezone: 'Asia/Tokyo', schedule: { mon: ['09:00-17:00'] } };
  const instant = new Date('2024-01-15T00:00:00Z');
  assert.equal(isOpen(tokyo, instant), true);
  assert.equal(isOpen({ ...tokyo, timezone: 'America/New_York' }, instant), false);
});

test('business hours: validator explains every problem', () => {
  assert.deepEqual(validateBusinessHours(NY_HOURS), []);
  assert.deepEqual(validateBusinessHours({ timezone: 'Europe/Paris', schedule: {} }), []);
  const problems = validateBusinessHours({
    timezone: 'Mars/Olympus',
    schedule: { mon: ['9:00-17:00'], tue: ['17:00-09:00'], wed: ['09:00-13:00', '12:00-18:00'], thu: '09:00-17:00', funday: [], fri: ['25:00-26:00'] },
  });
  assert.equal(problems.length, 7, problems.join('\n'));
  assert.ok(problems.some((p) => p.includes('Mars/Olympus')));
  assert.ok(problems.some((p) => p.includes('schedule.mon[0]') && p.includes('HH:MM-HH:MM')));
  assert.ok(problems.some((p) => p.includes('schedule.tue[0]') && p.includes('midnight')));
  assert.ok(problems.some((p) => p.includes('overlap')));
  assert.ok(problems.some((p) => p.includes('schedule.thu')));
  assert.ok(problems.some((p) => p.includes('funday')));
  assert.ok(problems.some((p) => p.includes('schedule.fri[0]') && p.includes('invalid time')));
  assert.deepEqual(validateBusinessHours(null).length, 1);
  assert.deepEqual(validateBusinessHours({ timezone: 'UTC' }).length, 1, 'schedule is required');
});

// ------------------------------------------------------------------ scoring

function turn(speaker: 'agent' | 'caller', text: string, action: TranscriptTurn['action'] = null, citations: string[] = []): TranscriptTurn {
  return { speaker, text, at: 0, citations, action };
}

test('scoring: a quick resolved call with answers from knowledge scores high', () => {
  const score = scoreConversation({
    outcome: 'resolved',
    transcript: [
      turn('agent', 'Thanks for calling, how can I help?', 'greet'),
      turn('caller', 'how much is a tune-up?'),
      turn('agent', 'A basic tune-up is $79.', 'answer', ['shop']),
      turn('caller', 'great, thanks, bye'),
      turn('agent', 'Goodbye!', 'end'),
    ],
  });
  assert.equal(score.engine, 'default');
  assert.equal(score.parts.answered_from_knowledge.score, 100);
  assert.equal(score.parts.resolution.score, 100);
  assert.ok(score.parts.caller_sentiment.score > 80);
  assert.equal(score.parts.turns_to_resolution.score, 100);
  assert.ok(score.overall >= 90, String(score.overall));
  for (const part of Object.values(score.parts)) {
    assert.ok(Number.isInteger(part.score) && part.score >= 0 && part.score <= 100);
    assert.ok(part.explanation.length > 0);
  }
});

test('scoring: an unanswered, annoyed, abandoned call scores low', () => {
  const score = scoreConversation({
    outcome: 'abandoned',
    transcript: [
      turn('caller', 'do you fix carbon frames?'),
      turn('agent', "Sorry, I didn't quite catch that. Could you say it another way?", 'clarify'),
      turn('caller', 'carbon frame repair'),
      turn('agent', 'Transferring you.', 'transfer'),
      turn('caller', 'this is useless and not helpful, ugh'),
    ],
  });
  assert.equal(score.parts.answered_from_knowledge.score, 0);
  assert.equal(score.parts.resolution.score, 0);
  assert.ok(score.parts.caller_sentiment.score < 20, String(score.parts.caller_sentiment.score));
  assert.ok(score.overall < 25, String(score.overall));
});

test('scoring: a part that does not apply has weight 0', () => {
  const score = scoreConversation({
    outcome: 'transferred',
    transcript: [turn('caller', 'representative please'), turn('agent', 'Transferring you now.', 'transfer')],
  });
  assert.equal(score.parts.answered_from_knowledge.weight, 0);
  assert.equal(score.parts.resolution.score, 85, 'transferred at the caller’s request');
  assert.ok(score.overall >= 70);
});

// ------------------------------------------------------------------ default engine

const AGENT: AgentProfile = {
  name: 'Spoke & Chain Bikes',
  greeting: 'Thanks for calling Spoke & Chain Bikes! How can I help?',
  instructions: '',
  language: 'en',
  transferNumber: '+15550100',
  businessHours: { timezone: 'America/Chicago', schedule: { tue: ['10:00-18:00'], wed: ['10:00-18:00'], sat: ['10:00-18:00'] } },
  afterHoursMessage: 'We are closed right now.',
};

test('default engine: greets, or after hours ends with an offer to take a message', () => {
  const engine = new DefaultEngine();
  // Tuesday 2024-01-16 17:00 UTC = 11:00 in Chicago.
  assert.deepEqual(engine.greet(AGENT, new Date('2024-01-16T17:00:00Z')), { text: AGENT.greeting, action: 'greet' });
  const closed = engine.greet(AGENT, new Date('2024-01-16T03:00:00Z'));
  assert.equal(closed.action, 'end');
  assert.match(closed.text, /^We are closed right now\..*message/);
  assert.equal(engine.greet({ ...AGENT, businessHours: null }, new Date('2024-01-16T03:00:00Z')).action, 'greet');
});

test('default engine: answers from knowledge with citations, hands off when unsure', async () => {
  const engine = new DefaultEngine();
  const index = bikeShopIndex();
  const answer = await engine.reply({ agent: AGENT, index, history: [], utterance: 'hey how much is a tune-up?' });
  assert.equal(answer.action, 'answer');
  assert.match(answer.text, /\$79/);
  assert.deepEqual(answer.citations, ['shop']);
  assert.equal(answer.engine, 'default');

  const rental = await engine.reply({ agent: AGENT, index, history: [], utterance: 'what does it cost to rent an e-bike for the day?' });
  assert.equal(rental.action, 'answer');
  assert.match(rental.text, /\$60/);
  assert.deepEqual(rental.citations, ['rentals']);

  const unknown = await engine.reply({ agent: AGENT, index, history: [], utterance: 'do you sell skateboards?' });
  assert.equal(unknown.action, 'transfer');
  assert.equal(unknown.rule, 'no_information');
  assert.match(unknown.text, /transferring/i);

  const mumble = await engine.reply({ agent: AGENT, index, history: [], utterance: 'uh, um...' });
  assert.equal(mumble.action, 'clarify');
});

test('default engine: message taking is worked out from history', async () => {
  const engine = new DefaultEngine();
  const index = bikeShopIndex();
  const history: TranscriptTurn[] = [];
  const say = async (utterance: string) => {
    const reply = await engine.reply({ agent: AGENT, index, history, utterance });
    history.push(turn('caller', utterance), turn('agent', reply.text, reply.action, reply.citations));
    return reply;
  };
  const ask = await say('Can I leave a message for the mechanic?');
  assert.equal(ask.action, 'clarify');
  assert.match(ask.text, /what message should I pass on\?$/);
  const taken = await say('My bike is the red one, please call me at 555-0101.');
  assert.equal(taken.action, 'message');
  assert.equal(taken.message, 'My bike is the red one, please call me at 555-0101.');
  const after = await say('how much is a flat repair?');
  assert.equal(after.action, 'answer', 'back to normal after the message');
  const bye = await say("thanks, that's all");
  assert.equal(bye.action, 'end');

  const inline = await engine.reply({ agent: AGENT, index, history: [], utterance: 'I want to leave a message for Sam saying my wheel is ready to pick up' });
  assert.equal(inline.action, 'message');
  assert.equal(inline.message, 'my wheel is ready to pick up');
});

test('default engine: transfer requests, without a transfer number or after hours, become message taking', async () => {
  const engine = new DefaultEngine();
  const index = bikeShopIndex();
  const direct = await engine.reply({ agent: AGENT, index, history: [], utterance: 'Let me talk to a human' });
  assert.equal(direct.action, 'transfer');
  assert.equal(direct.rule, 'transfer_requested');

  const noNumber = await engine.reply({ agent: { ...AGENT, transferNumber: null }, index, history: [], utterance: 'operator' });
  assert.equal(noNumber.action, 'clarify');
  assert.match(noNumber.text, /message/);
  const next = await engine.reply({
    agent: { ...AGENT, transferNumber: null },
    index,
    history: [turn('caller', 'operator'), turn('agent', noNumber.text, noNumber.action)],
    utterance: 'Tell them Alex called.',
  });
  assert.equal(next.action, 'message');

  const closed = await engine.reply({ agent: AGENT, index, history: [], utterance: 'talk to someone', at: new Date('2024-01-16T03:00:00Z') });
  assert.equal(closed.action, 'clarify');
  assert.equal(closed.rule, 'after_hours');
});

test('createEngine picks the engine from config', () => {
  assert.equal(createEngine({}).name, 'default');
  const generative = createEngine({ llm: { baseUrl: 'http://127.0.0.1:9', model: 'm' } });
  assert.ok(generative instanceof GenerativeEngine);
  assert.equal(generative.name, 'generative');
});

// ------------------------------------------------------------------ fixture evaluation

test('fixture evaluation: accuracy >= 0.90 and every transfer request transferred', async () => {
  const result = await evaluateFixture();
  const report = result.failures.map((f) => `${f.question} -> [${f.got.action}] ${f.got.text}`).join('\n');
  assert.ok(result.total >= 45, `only ${result.total} questions`);
  assert.ok(result.transfersExpected >= 6);
  assert.ok(result.accuracy >= 0.9, `accuracy ${result.accuracy}\n${report}`);
  assert.equal(result.transfersCorrect, result.transfersExpected, report);
  assert.equal(result.messagesCorrect, result.messagesExpected, report);
});

// The held-out evaluation as a regression gate: the businesses the engine was
// not written for (test/fixtures/ai/heldout). Figures are those of the dev half
// the engine was tuned on; requests for a person and goodbyes must be handled
// on both halves. Also the answer-type, "I don't have that" and clarification
// behaviour the evaluation relies on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DefaultEngine, NO_INFORMATION } from '../../src/modules/ai/engine/default-engine.ts';
import { buildIndex } from '../../src/modules/ai/engine/evaluate.ts';
import { evaluateBusiness, loadHeldout, tally, type HeldoutOutcome } from '../../src/modules/ai/engine/evaluate-heldout.ts';
import type { AgentProfile, TranscriptTurn } from '../../src/modules/ai/engine/types.ts';

async function run(split: 'dev' | 'test'): Promise<HeldoutOutcome[]> {
  const engine = new DefaultEngine();
  const all: HeldoutOutcome[] = [];
  for (const business of loadHeldout(split)) all.push(...(await evaluateBusiness(engine, business)));
  return all;
}

test('held-out dev half: right answers, few wrong ones, every unanswerable handed off', async () => {
  const t = tally(await run('dev'));
  assert.equal(t.answerable, 88);
  assert.ok(t.right >= 64, `right ${t.right}/88`);
  assert.ok(t.wrong <= 2, `wrong ${t.wrong}`);
  assert.equal(t.unanswerableHandedOff, t.unanswerable);
  assert.equal(t.wrongHangups, 0);
});

test('held-out, both halves: every request for a person is transferred and every goodbye ends the call', async () => {
  for (const split of ['dev', 'test'] as const) {
    const t = tally(await run(split));
    assert.equal(t.transferred, t.personRequests, `${split}: transfers`);
    assert.equal(t.ended, t.goodbyes, `${split}: goodbyes`);
    assert.equal(t.wrongHangups, 0, `${split}: hung up on a question`);
  }
});

const agent: AgentProfile = {
  name: 'Spoke & Chain Bikes', greeting: 'Hi!', instructions: '', language: 'en',
  transferNumber: '+15035550100', businessHours: null, afterHoursMessage: null,
};
const index = buildIndex([
  {
    documentId: 'shop', title: 'Spoke & Chain Bikes', contentType: 'text/markdown',
    content: [
      '## Prices', 'A basic tune-up is $79. A full overhaul is $189.',
      '## Store', 'We are at 88 Elm Street, next to the library. Bike parking is right out front.',
      '## Rentals', 'City bikes rent by the day. Helmets are included with every rental.',
      '## About us', 'Spoke & Chain Bikes Repair Shop has two mechanics. We hold a repair for 30 days.',
    ].join('\n'),
  },
]);

test('answer type: a "how much" question is answered with a price or not at all', async () => {
  const engine = new DefaultEngine();
  const price = await engine.reply({ agent, index, history: [], utterance: 'what would a tune-up set me back?' });
  assert.equal(price.action, 'answer');
  assert.match(price.text, /\$79/);
  const where = await engine.reply({ agent, index, history: [], utterance: "where's the store?" });
  assert.equal(where.action, 'answer');
  assert.match(where.text, /88 Elm Street/);
  // The rental passage says nothing about a price: no guess from a passage that merely shares words.
  const rental = await engine.reply({ agent, index, history: [], utterance: 'how much does it cost to rent a city bike?' });
  assert.equal(rental.action, 'transfer');
  assert.equal(rental.rule, 'no_information');
  assert.ok(rental.text.startsWith(NO_INFORMATION), rental.text);
});

test('answer type: a count, a way and a person are answered with one or not at all', async () => {
  const engine = new DefaultEngine();
  // "30 days" is a number, but not a count of mechanics; "two mechanics" is.
  const mechanics = await engine.reply({ agent, index, history: [], utterance: 'how many mechanics do you have?' });
  assert.equal(mechanics.action, 'answer');
  assert.match(mechanics.text, /two mechanics/);
  const days = await engine.reply({ agent, index, history: [], utterance: 'how many bikes do you have to rent?' });
  assert.equal(days.rule, 'no_information', days.text);
  // No sentence says how to reserve a repair (online, by phone...): holding one for 30 days is not a way.
  const reserve = await engine.reply({ agent, index, history: [], utterance: 'how do I reserve a repair?' });
  assert.equal(reserve.rule, 'no_information', reserve.text);
  // The shop's own name is not a person.
  const owner = await engine.reply({ agent, index, history: [], utterance: 'who is the owner of the repair shop?' });
  assert.equal(owner.rule, 'no_information', owner.text);
});

test('clarification: the reply to "do you mean A or B?" is read together with the question', async () => {
  const engine = new DefaultEngine();
  const history: TranscriptTurn[] = [
    { speaker: 'caller', text: 'what about the tune-up?', at: 1, citations: [], action: null },
    { speaker: 'agent', text: 'Just to be sure, do you mean our prices or our store?', at: 2, citations: [], action: 'clarify' },
  ];
  const reply = await engine.reply({ agent, index, history, utterance: 'the price please' });
  assert.equal(reply.action, 'answer');
  assert.match(reply.text, /\$79/);
});

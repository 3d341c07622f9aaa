// Issue 29: the word rule that decides whether a live caller has finished, and the sentence
// split that lets the agent start speaking after its first sentence. Live behaviour over SIP is
// in ai-turn-taking.test.ts; the rule's cut-off rate on spoken lines is `npm run eval:ai-turn`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeUtterance, quietToEnd } from '../../src/telephony/end-of-utterance.ts';
import { sentencesOf } from '../../src/carriers/speech/sentences.ts';

test('a line that trails off is incomplete; a finished question, statement or answer is complete; the rest unsure', () => {
  for (const text of ["I'd like to book an appointment for", 'My daughter needs a cleaning and', 'Um', 'Could you tell me', 'Do you take', 'How long', 'What is the address of the']) {
    assert.equal(judgeUtterance(text), 'incomplete', text);
  }
  for (const text of ['What are your hours on Wednesday?', 'Where are you located', 'Is Doctor Patel available?', 'I need to cancel my appointment.', 'Yes.', 'No, thank you.', 'Okay, thanks so much. Goodbye.']) {
    assert.equal(judgeUtterance(text), 'complete', text);
  }
  for (const text of ['', 'Are you open', 'Tuesday']) assert.equal(judgeUtterance(text), 'unsure', text);
});

test('an incomplete line waits longer than the usual quiet, a complete one less, punctuation aside', () => {
  assert.ok(quietToEnd('incomplete', 0.8) > 0.8);
  assert.ok(quietToEnd('complete', 0.8) < 0.8);
  assert.equal(quietToEnd('unsure', 0.8), 0.8);
  assert.equal(judgeUtterance('and.'), judgeUtterance('and'));
});

test('a reply splits at sentence ends, not inside a.m., Dr. or a number', () => {
  assert.deepEqual(sentencesOf('Wednesday: 10:00 a.m. to 7:00 p.m. Anything else?'), ['Wednesday: 10:00 a.m. to 7:00 p.m.', 'Anything else?']);
  assert.deepEqual(sentencesOf('Dr. Patel sees children. Call 555 0100!'), ['Dr. Patel sees children.', 'Call 555 0100!']);
  assert.deepEqual(sentencesOf('It costs 12.50 dollars'), ['It costs 12.50 dollars']);
});

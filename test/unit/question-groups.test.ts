// Grouping unanswered questions by wording (src/modules/analytics/question-groups.ts): alike
// wordings join the group of the most asked one, unrelated ones stay apart, and the groups come
// most asked first, bounded by the limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupQuestions, type AskedQuestion } from '../../src/modules/analytics/question-groups.ts';

let n = 0;
const asked = (text: string, conversationId = `conv_${++n}`, at = `2026-11-26T10:00:${String(n).padStart(2, '0')}.000Z`): AskedQuestion => ({ text, conversationId, at });

test('alike wordings join the most asked one; unrelated questions stay apart', () => {
  const groups = groupQuestions([
    asked('Do you take walk-ins on Sunday?'),
    asked('Do you offer dog grooming?'),
    asked('do you offer dog grooming'),
    asked('Do you do grooming for dogs?'),
    asked('Can I pay with bitcoin?'),
    asked('Do you take walk ins on sundays?'),
  ], 10);
  assert.deepEqual(groups.map((g) => [g.question, g.count, g.examples]), [
    ['Do you offer dog grooming?', 3, ['Do you do grooming for dogs?']],
    // Asked as often as each other: the group is named by the first in alphabetical order.
    ['Do you take walk ins on sundays?', 2, ['Do you take walk-ins on Sunday?']],
    ['Can I pay with bitcoin?', 1, []],
  ]);
});

test('conversations latest first and the last time asked; filler is not a question', () => {
  const [group, ...rest] = groupQuestions([
    asked('Do you sell gift cards?', 'conv_a', '2026-11-26T09:00:00.000Z'),
    asked('Gift cards for sale?', 'conv_b', '2026-11-26T11:00:00.000Z'),
    asked('Do you sell gift cards?', 'conv_a', '2026-11-26T09:00:00.000Z'),
    asked('uh, so, um'),
  ], 10);
  assert.equal(rest.length, 0);
  assert.equal(group!.count, 3);
  assert.deepEqual(group!.conversation_ids, ['conv_b', 'conv_a']);
  assert.equal(group!.last_asked_at, '2026-11-26T11:00:00.000Z');
});

test('the limit keeps the most asked groups', () => {
  const lines = [
    ...Array.from({ length: 3 }, () => asked('Is there parking nearby?')),
    ...Array.from({ length: 2 }, () => asked('Do you treat children?')),
    asked('Do you have wheelchair access?'),
  ];
  assert.deepEqual(groupQuestions(lines, 2).map((g) => [g.question, g.count]), [['Is there parking nearby?', 3], ['Do you treat children?', 2]]);
  assert.deepEqual(groupQuestions([], 5), []);
});

// Evaluates the default AI receptionist engine against the fixture knowledge
// base (test/fixtures/ai) and prints a report. Run: npx tsx bench/ai-eval.ts
// Pass --verbose to print every question and answer, not just the failures.
import { DefaultEngine } from '../src/modules/ai/engine/default-engine.ts';
import { evaluateFixture } from '../src/modules/ai/engine/evaluate.ts';

const verbose = process.argv.includes('--verbose');
const started = performance.now();
const result = await evaluateFixture(new DefaultEngine());
const elapsedMs = performance.now() - started;

console.log('AI receptionist evaluation (default engine, fixture: test/fixtures/ai)\n');
for (const r of verbose ? result.results : result.failures) {
  console.log(`${r.ok ? 'PASS' : 'FAIL'}  ${r.question}`);
  console.log(`      expected: ${r.expected}`);
  console.log(`      got:      [${r.got.action}, confidence ${r.got.confidence.toFixed(2)}${r.got.citations.length ? `, cites ${r.got.citations.join(', ')}` : ''}] ${r.got.text}`);
}
if (!verbose && result.failures.length === 0) console.log('No failures.');

const pct = (n: number, d: number) => (d === 0 ? 'n/a' : `${Math.round((100 * n) / d)}%`);
console.log('');
console.log(`questions:          ${result.total}`);
console.log(`answered correctly: ${result.correct} (${pct(result.correct, result.total)})`);
console.log(`transfers:          ${result.transfersCorrect}/${result.transfersExpected}`);
console.log(`messages taken:     ${result.messagesCorrect}/${result.messagesExpected}`);
console.log(`time:               ${elapsedMs.toFixed(0)} ms (${(elapsedMs / Math.max(1, result.total)).toFixed(1)} ms/question)`);
console.log('');
console.log(`accuracy: ${result.accuracy.toFixed(2)} (${result.correct}/${result.total}), transfers: ${result.transfersCorrect}/${result.transfersExpected}`);

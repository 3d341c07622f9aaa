// Evaluates the default AI receptionist engine and prints a report:
//  1. the held-out businesses (test/fixtures/ai/heldout), dev and test halves,
//     per business and overall;
//  2. the sealed held-out businesses (test/fixtures/ai/heldout-sealed), written blind
//     during tuning, dev and test halves, per business and overall;
//  3. the third held-out businesses (test/fixtures/ai/heldout-3), written blind, whose test
//     halves stayed outside the repository until tuning ended, dev and test halves;
//  4. the fourth held-out businesses (test/fixtures/ai/heldout-4), written blind and kept out
//     of the repository until the engine was frozen, both halves and together;
//  5. the fifth held-out businesses (test/fixtures/ai/heldout-5), written blind after the fourth
//     had been scored and tuned on, both halves and together;
//  6. per-turn latency on a 50-document knowledge base;
//  7. the original dental fixture (test/fixtures/ai).
// Run: npm run eval:ai. `--verbose` lists the first set's dev-half misses, one per line;
// `--dev` scores the first set's dev half only (tuning runs) and leaves the sealed set out;
// `--tune` scores all the development data together (both halves of the first four sets) and,
// with --verbose, lists their misses. The fifth set is never printed line by line and never
// scored under --dev or --tune.
import { DefaultEngine } from '../src/modules/ai/engine/default-engine.ts';
import { buildIndex, evaluateFixture, loadFixture } from '../src/modules/ai/engine/evaluate.ts';
import {
  evaluateBusiness,
  knowledgeLines,
  loadHeldout,
  percentile,
  FIFTH_DIR,
  FOURTH_DIR,
  SEALED_DIR,
  THIRD_DIR,
  tally,
  type HeldoutOutcome,
  type HeldoutSplit,
  type HeldoutTally,
} from '../src/modules/ai/engine/evaluate-heldout.ts';
import type { KnowledgeDocument } from '../src/modules/ai/engine/types.ts';

const verbose = process.argv.includes('--verbose');
// --dev: the development half only (for tuning runs: the test half's figures are not looked at).
const devOnly = process.argv.includes('--dev');
// --tune: every half that may be tuned on, scored together; the sealed test half is left out.
const tune = process.argv.includes('--tune');
const engine = new DefaultEngine();

const pct = (n: number, d: number) => (d === 0 ? '   n/a' : `${((100 * n) / d).toFixed(1).padStart(5)}%`);
const ms = (values: number[]) => `${percentile(values, 50).toFixed(2)} / ${percentile(values, 95).toFixed(2)} ms`;

function row(label: string, t: HeldoutTally): string {
  return [
    label.padEnd(12),
    `right ${String(t.right).padStart(3)}/${String(t.answerable).padEnd(3)} ${pct(t.right, t.answerable)}`,
    `wrong ${String(t.wrong).padStart(2)} ${pct(t.wrong, knowledgeLines(t))}`,
    `handed off ${t.unanswerableHandedOff}/${t.unanswerable}`,
    `transfers ${t.transferred}/${t.personRequests}`,
    `goodbyes ${t.ended}/${t.goodbyes}`,
    `clarified ${t.clarified}`,
    `bad hangups ${t.wrongHangups}`,
    `turn p50/p95 ${ms(t.turnMs)} (cpu ${ms(t.turnCpuMs)})`,
  ].join('  ');
}

async function heldout(split: HeldoutSplit, dir?: string, title = 'Held-out businesses'): Promise<HeldoutOutcome[]> {
  const all: HeldoutOutcome[] = [];
  console.log(`${title}, ${split} half`);
  for (const business of loadHeldout(split, dir)) {
    const outcomes = await evaluateBusiness(engine, business);
    all.push(...outcomes);
    console.log(row(business.slug, tally(outcomes)));
  }
  console.log(row('overall', tally(all)));
  console.log('');
  return all;
}

const dev = await heldout('dev');
const firstTest = devOnly ? [] : await heldout('test');
const tuning: HeldoutOutcome[] = [...dev, ...firstTest];
if (tune) {
  // Every set before the newest blind one has been scored as an honest figure at least once, so
  // both its halves are development data now; the fifth set is not.
  for (const split of ['dev', 'test'] as const) {
    tuning.push(...(await heldout(split, SEALED_DIR, 'Sealed held-out businesses (test/fixtures/ai/heldout-sealed)')));
    tuning.push(...(await heldout(split, THIRD_DIR, 'Third held-out set (test/fixtures/ai/heldout-3)')));
    tuning.push(...(await heldout(split, FOURTH_DIR, 'Fourth held-out set (test/fixtures/ai/heldout-4)')));
  }
  console.log(row('all dev data', tally(tuning)));
  console.log('');
}

// The sealed set: scores only, never its lines (its test half is the honest figure).
if (!devOnly && !tune) {
  const title = 'Sealed held-out businesses (test/fixtures/ai/heldout-sealed)';
  await heldout('dev', SEALED_DIR, title);
  await heldout('test', SEALED_DIR, title);
  const third = 'Third held-out set (test/fixtures/ai/heldout-3)';
  await heldout('dev', THIRD_DIR, third);
  await heldout('test', THIRD_DIR, third);
  const fourth = 'Fourth held-out set (test/fixtures/ai/heldout-4)';
  const fourthAll = [...(await heldout('dev', FOURTH_DIR, fourth)), ...(await heldout('test', FOURTH_DIR, fourth))];
  console.log(row('fourth set, both halves', tally(fourthAll)));
  console.log('');
  // Never tuned on, both halves: the honest figure (scores only).
  const fifth = 'Fifth held-out set (test/fixtures/ai/heldout-5)';
  const fifthAll = [...(await heldout('dev', FIFTH_DIR, fifth)), ...(await heldout('test', FIFTH_DIR, fifth))];
  console.log(row('fifth set, both halves', tally(fifthAll)));
  console.log('');
}

if (verbose) {
  console.log(tune ? 'Development data, every line not handled as expected:' : 'Dev half, every line not handled as expected:');
  for (const o of (tune ? tuning : dev).filter((x) => !x.ok)) {
    const expected = o.question.expect_action ?? JSON.stringify(o.question.expect_fact);
    console.log(`${o.business.padEnd(10)} ${o.verdict.padEnd(10)} ${o.question.q}\n${' '.repeat(22)}expected ${expected}; got [${o.reply.action}${o.reply.rule ? ` ${o.reply.rule}` : ''} ${o.reply.confidence.toFixed(2)}] ${o.reply.text}`);
  }
  console.log('');
}

// Latency on a 50-document knowledge base: every held-out and fixture document,
// repeated under new ids until there are 50, asked every held-out line.
const sources: KnowledgeDocument[] = [...loadHeldout('dev').flatMap((b) => b.documents.map((d) => ({ ...d, documentId: `${b.slug}-${d.documentId}` }))), ...loadFixture().documents];
const documents = Array.from({ length: 50 }, (_, i) => ({ ...sources[i % sources.length]!, documentId: `doc${i}` }));
const big = buildIndex(documents);
const bigTimes: number[] = [];
const bigCpu: number[] = [];
for (const split of devOnly ? (['dev'] as const) : (['dev', 'test'] as const)) {
  for (const business of loadHeldout(split)) {
    for (const o of await evaluateBusiness(engine, business, big)) {
      bigTimes.push(o.ms);
      bigCpu.push(o.cpuMs);
    }
  }
}
console.log(`Latency, 50 documents (${big.size} passages), ${bigTimes.length} turns: wall p50 / p95 ${ms(bigTimes)}, cpu p50 / p95 ${ms(bigCpu)}, mean cpu ${(bigCpu.reduce((a, b) => a + b, 0) / bigCpu.length).toFixed(2)} ms`);
console.log('');

const fixture = await evaluateFixture(engine, loadFixture());
console.log(`Dental fixture (test/fixtures/ai): ${fixture.correct}/${fixture.total} as expected, transfers ${fixture.transfersCorrect}/${fixture.transfersExpected}, messages ${fixture.messagesCorrect}/${fixture.messagesExpected}`);
for (const f of verbose ? fixture.failures : []) console.log(`  FAIL ${f.question}\n       expected ${f.expected}; got [${f.got.action}] ${f.got.text}`);

// The blind held-out sets (test/fixtures/ai/heldout-sealed, heldout-3, heldout-4, heldout-5) are data only:
// this checks that each loads and keeps the shape its README promises, without running the
// engine (their scores are a report of npm run eval:ai, not a gate, so nobody tunes against them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FIFTH_DIR, FOURTH_DIR, kindOf, loadHeldout, SEALED_DIR, THIRD_DIR, type HeldoutBusiness } from '../../src/modules/ai/engine/evaluate-heldout.ts';

const SETS = [
  { name: 'sealed set', dir: SEALED_DIR, slugs: ['auto-repair', 'inn', 'salon', 'tax-office'] },
  { name: 'third set', dir: THIRD_DIR, slugs: ['driving-school', 'movers', 'music-school', 'self-storage'] },
  { name: 'fourth set', dir: FOURTH_DIR, slugs: ['bike-shop', 'hvac', 'optometrist', 'preschool'] },
  { name: 'fifth set', dir: FIFTH_DIR, slugs: ['bakery', 'campground', 'dry-cleaner', 'pest-control'] },
];

/** The documents' words as a caller would hear them read: tags and entities gone, case and spacing ignored. */
function documentText(business: HeldoutBusiness): string {
  return business.documents
    .map((d) => (d.contentType === 'text/html' ? d.content.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/g, ' ').replace(/<[^>]+>/g, ' ').replace(/&amp;/g, '&') : d.content))
    .join('\n')
    .replace(/\*\*|\|/g, ' ')
    .toLowerCase()
    .replace(/\s+/g, ' ');
}

for (const set of SETS) {
  const halves = { dev: loadHeldout('dev', set.dir), test: loadHeldout('test', set.dir) };

  test(`${set.name}: four businesses, each with markdown, plain text and HTML documents`, () => {
    assert.deepEqual(halves.dev.map((b) => b.slug), set.slugs);
    assert.deepEqual(halves.test.map((b) => b.slug), halves.dev.map((b) => b.slug));
    for (const business of halves.dev) {
      assert.deepEqual(business.documents.map((d) => d.contentType).sort(), ['text/html', 'text/markdown', 'text/plain'], business.slug);
    }
  });

  test(`${set.name}: at least 60 lines a business, at least 15% unanswerable, every kind in both halves`, () => {
    for (const [i, dev] of halves.dev.entries()) {
      const lines = [...dev.questions, ...halves.test[i]!.questions];
      assert.ok(lines.length >= 60, `${dev.slug}: ${lines.length} lines`);
      const unanswerable = lines.filter((q) => kindOf(q) === 'unanswerable').length;
      assert.ok(unanswerable / lines.length >= 0.15, `${dev.slug}: ${unanswerable}/${lines.length} unanswerable`);
      for (const half of [dev, halves.test[i]!]) {
        const kinds = new Set(half.questions.map(kindOf));
        assert.deepEqual([...kinds].sort(), ['answerable', 'goodbye', 'person', 'unanswerable'], `${half.slug}`);
      }
    }
  });

  test(`${set.name}: every expected fact appears verbatim in its business documents`, () => {
    for (const half of [...halves.dev, ...halves.test]) {
      const text = documentText(half);
      for (const q of half.questions) {
        if (q.expect_fact === undefined) continue;
        for (const fact of Array.isArray(q.expect_fact) ? q.expect_fact : [q.expect_fact]) {
          assert.ok(text.includes(fact.toLowerCase()), `${half.slug}: "${fact}" (for "${q.q}") is not in the documents`);
        }
      }
    }
  });
}

// The differential test (ctest temporal_differential): engram's time normaliser against
// chrono-node over the generated expressions of differential.mjs. Every disagreement must be
// listed in ../known_differences.json as a deliberate, documented difference or a known bug, and
// every listed case must still disagree (a fixed bug or a changed rule is taken off the list), so
// the file is the reviewed list of where engram and chrono part.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { compareAll, generateCases } from './differential.mjs';

const binary = process.env.ENGRAM_TIME_BIN;
const known = JSON.parse(readFileSync(new URL('../known_differences.json', import.meta.url)));

test('the generator covers at least 1,000 expressions', () => {
  const cases = generateCases();
  assert.ok(cases.length >= 1000, `only ${cases.length} cases`);
  assert.equal(new Set(cases.map((c) => c.id)).size, cases.length, 'case ids are unique');
});

test('the list of known differences is well formed', () => {
  const seen = new Set();
  for (const group of known.groups) {
    assert.ok(['deliberate', 'bug'].includes(group.status), `status ${group.status}`);
    assert.ok(typeof group.reason === 'string' && group.reason.length > 20, 'a reason');
    for (const id of group.cases) {
      assert.ok(!seen.has(id), `${id} is listed twice`);
      seen.add(id);
    }
  }
});

test('engram and chrono-node agree except where the list says why', () => {
  assert.ok(binary, 'ENGRAM_TIME_BIN names the engram_time_expressions filter');
  const rows = compareAll(binary);
  const listed = new Map();
  for (const group of known.groups) for (const id of group.cases) listed.set(id, group);
  const unexplained = rows.filter((r) => !r.agree && !listed.has(r.id));
  const stale = rows.filter((r) => r.agree && listed.has(r.id));
  const format = (r) => `${r.id}: "${r.text}" said ${r.reference}: engram ${r.engram}, ` +
    `chrono ${r.chrono} (expected ${r.expected})`;
  const disagreements = rows.filter((r) => !r.agree).length;
  console.log(`${rows.length} expressions, ${disagreements} disagreements, all listed: ` +
    `${unexplained.length === 0}`);
  assert.deepEqual(unexplained.map(format), [],
    'disagreements not in known_differences.json (fix engram, or list them with a reason)');
  assert.deepEqual(stale.map(format), [],
    'listed in known_differences.json but engram and chrono now agree: take them off the list');
});

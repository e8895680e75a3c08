// list-differences.mjs: prints the current disagreements between engram and chrono-node, grouped
// by template, with the cases known_differences.json does not list marked "unlisted"; for
// reviewing the list. Usage: ENGRAM_TIME_BIN=build/tests/temporal/engram_time_expressions \
//   TZ=UTC node list-differences.mjs [--json]
import { readFileSync } from 'node:fs';
import { compareAll } from './differential.mjs';

const known = JSON.parse(readFileSync(new URL('../known_differences.json', import.meta.url)));
const listed = new Map();
for (const group of known.groups) for (const id of group.cases) listed.set(id, group.status);
const rows = compareAll(process.env.ENGRAM_TIME_BIN).filter((r) => !r.agree);
if (process.argv.includes('--json')) {
  for (const r of rows) console.log(JSON.stringify({ ...r, listed: listed.get(r.id) ?? 'unlisted' }));
} else {
  for (const r of rows) {
    console.log(`${(listed.get(r.id) ?? 'UNLISTED').padEnd(10)} ${r.id.padEnd(36)} ` +
      `"${r.expression}"  engram ${r.engram}  chrono ${r.chrono} -> ${r.expected}`);
  }
  console.log(`${rows.length} disagreements`);
}

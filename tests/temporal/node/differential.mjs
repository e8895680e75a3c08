// The differential test's generator and comparison: engram's time normaliser (the
// engram_time_expressions filter over text/temporal.h) against chrono-node on the same sentences
// and utterance times. Used by differential.test.mjs (the ctest) and list-differences.mjs (to
// review what disagrees). Deterministic: no randomness, no clock.
import { spawnSync } from 'node:child_process';
import * as chrono from 'chrono-node';

const DAY_MS = 86400000;
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August',
  'September', 'October', 'November', 'December'];
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

// Utterance times: year ends, leap days and their neighbours, month ends, and ordinary days of
// every weekday.
export const REFERENCES = [
  '2023-12-31T10:00:00Z', '2024-01-01T10:00:00Z', '2024-02-28T10:00:00Z', '2024-02-29T10:00:00Z',
  '2024-03-01T10:00:00Z', '2024-03-02T10:00:00Z', '2020-02-29T10:00:00Z', '2021-01-01T10:00:00Z',
  '2022-12-30T10:00:00Z', '2024-12-31T10:00:00Z', '2025-01-01T10:00:00Z', '2023-03-01T10:00:00Z',
  '2024-06-15T10:00:00Z', '2024-07-31T10:00:00Z', '2024-10-13T10:00:00Z', '2025-02-28T10:00:00Z',
  '2028-02-29T10:00:00Z', '2024-05-10T10:00:00Z', '2023-06-30T10:00:00Z', '2024-09-30T10:00:00Z',
];

const dayOf = (ms) => Math.floor(ms / DAY_MS);
const dateOf = (day) => new Date(day * DAY_MS);
const iso = (day) => dateOf(day).toISOString().slice(0, 10);
const weekdayOf = (day) => (dateOf(day).getUTCDay() + 6) % 7;  // Monday = 0
const ordinal = (n) => n + ((n % 100 >= 11 && n % 100 <= 13) ? 'th'
  : ({ 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] || 'th'));
const parts = (day) => {
  const d = dateOf(day);
  return { y: d.getUTCFullYear(), m: d.getUTCMonth(), d: d.getUTCDate() };
};
const pad = (n) => String(n).padStart(2, '0');

// Each template: id, the sentence around the expression, the expression for an utterance day,
// the granularity both parsers should agree on, and whether the sentence is about the future
// (chrono's forwardDate; engram reads the tense from the sentence itself).
function templates() {
  const list = [];
  const add = (id, sentence, expr, kind, future = false) =>
    list.push({ id, sentence, expr, kind, future });
  // Absolute dates, derived from the utterance day so they cross month and year ends with it.
  add('abs-dmy', 'The meeting was moved to {X}.', (r) => {
    const p = parts(r + 17); return `${p.d} ${MONTHS[p.m]} ${p.y}`;
  }, 'day');
  add('abs-mdy', 'We signed the lease on {X}.', (r) => {
    const p = parts(r - 40); return `${MONTHS[p.m]} ${p.d}, ${p.y}`;
  }, 'day');
  add('abs-iso', 'The invoice is dated {X}.', (r) => {
    const p = parts(r - 3); return `${p.y}-${pad(p.m + 1)}-${pad(p.d)}`;
  }, 'day');
  add('abs-us', 'Payment was received on {X}.', (r) => {
    const p = parts(r - 9); return `${pad(p.m + 1)}/${pad(p.d)}/${p.y}`;
  }, 'day');
  add('abs-ordinal', 'It happened on {X}.', (r) => {
    const p = parts(r - 100); return `the ${ordinal(p.d)} of ${MONTHS[p.m]} ${p.y}`;
  }, 'day');
  add('abs-month-year', 'I moved here in {X}.', (r) => {
    const p = parts(r - 400); return `${MONTHS[p.m]} ${p.y}`;
  }, 'month');
  add('abs-year', 'I graduated in {X}.', (r) => `${parts(r).y - 5}`, 'year');
  // Relative days.
  add('yesterday', 'I saw her {X}.', () => 'yesterday', 'day');
  add('today', 'I am seeing her {X}.', () => 'today', 'day');
  add('tomorrow', 'I will see her {X}.', () => 'tomorrow', 'day', true);
  add('day-before-yesterday', 'We arrived {X}.', () => 'the day before yesterday', 'day');
  add('day-after-tomorrow', 'We will leave {X}.', () => 'the day after tomorrow', 'day', true);
  for (const n of [2, 3, 10]) add(`days-ago-${n}`, 'I called him {X}.', () => `${n} days ago`, 'day');
  for (const n of [2, 5]) add(`in-days-${n}`, 'I will call him {X}.', () => `in ${n} days`, 'day', true);
  add('yesterday-3pm', 'The parcel came {X}.', () => 'yesterday at 3pm', 'day');
  add('tomorrow-10am', 'The plumber is coming {X}.', () => 'tomorrow at 10am', 'day', true);
  // Weeks.
  for (const n of [1, 2, 3]) {
    add(`weeks-ago-${n}`, 'We met {X}.', () => `${n === 1 ? 'a' : n} week${n === 1 ? '' : 's'} ago`, 'week');
  }
  add('in-weeks-2', 'We will meet {X}.', () => 'in 2 weeks', 'week', true);
  add('last-week', 'It rained {X}.', () => 'last week', 'week');
  add('this-week', 'I am busy {X}.', () => 'this week', 'week');
  add('next-week', 'I will be busy {X}.', () => 'next week', 'week', true);
  // Months and years.
  add('last-month', 'I changed jobs {X}.', () => 'last month', 'month');
  add('this-month', 'Sales are up {X}.', () => 'this month', 'month');
  add('next-month', 'I will change jobs {X}.', () => 'next month', 'month', true);
  for (const n of [2, 6]) add(`months-ago-${n}`, 'We moved {X}.', () => `${n} months ago`, 'month');
  add('in-months-3', 'We will move {X}.', () => 'in 3 months', 'month', true);
  add('last-year', 'I was in Peru {X}.', () => 'last year', 'year');
  add('this-year', 'I have been to Peru twice {X}.', () => 'this year', 'year');
  add('next-year', 'I will go to Peru {X}.', () => 'next year', 'year', true);
  add('years-ago-2', 'I lived in Peru {X}.', () => '2 years ago', 'year');
  // Weekdays.
  for (const [index, name] of WEEKDAYS.entries()) {
    add(`last-${index}`, 'I went swimming {X}.', () => `last ${name}`, 'day');
    add(`next-${index}`, 'I will go swimming {X}.', () => `next ${name}`, 'day', true);
  }
  add('this-friday', 'The report is due {X}.', () => 'this Friday', 'day', true);
  add('this-monday', 'The report was due {X}.', () => 'this Monday', 'day');
  for (const name of ['Tuesday', 'Saturday']) {
    add(`bare-past-${name}`, 'I saw him on {X}.', () => name, 'day');
    add(`bare-future-${name}`, 'I will see him on {X}.', () => name, 'day', true);
  }
  // Months without a year.
  for (const m of [2, 9]) {
    add(`last-month-${m}`, 'I was in Rome {X}.', () => `last ${MONTHS[m]}`, 'month');
    add(`next-month-${m}`, 'I will be in Rome {X}.', () => `next ${MONTHS[m]}`, 'month', true);
  }
  add('this-june', 'We are getting married {X}.', () => 'this June', 'month', true);
  add('in-june-past', 'We went to Rome in {X}.', () => 'June', 'month');
  add('in-june-future', 'We are going to Rome in {X}.', () => 'June', 'month', true);
  // A day and month without a year.
  add('dm-future', 'The concert is on {X}.', (r) => {
    const p = parts(r + 20); return `${p.d} ${MONTHS[p.m]}`;
  }, 'day', true);
  add('dm-past', 'We met on {X}.', (r) => {
    const p = parts(r - 20); return `${p.d} ${MONTHS[p.m]}`;
  }, 'day');
  add('dm-13-october', "It's on {X}.", () => '13 October', 'day', true);
  // Ranges.
  add('range-year', 'I am away from {X}.', (r) => {
    const a = parts(r + 10); return `${a.d} to ${a.d + 4} ${MONTHS[a.m]} ${a.y}`;
  }, 'range', true);
  add('range-no-year', 'The festival runs {X}.', (r) => {
    const a = parts(r + 30); return `${a.d} to ${a.d + 3} ${MONTHS[a.m]}`;
  }, 'range', true);
  // Weekends.
  add('last-weekend', 'We went hiking {X}.', () => 'last weekend', 'weekend');
  add('this-weekend', 'We are going hiking {X}.', () => 'this weekend', 'weekend', true);
  add('next-weekend', 'We will go hiking {X}.', () => 'next weekend', 'weekend', true);
  return list;
}

// Every case: id "<template>@<utterance day>", the sentence, the expression's span.
export function generateCases() {
  const cases = [];
  for (const reference of REFERENCES) {
    const refDay = dayOf(Date.parse(reference));
    for (const template of templates()) {
      let expression = template.expr(refDay);
      // A range must stay inside its month: 28 to 32 is no date.
      if (template.kind === 'range') {
        const m = expression.match(/^(\d+) to (\d+)/);
        const p = parts(refDay + (template.id === 'range-year' ? 10 : 30));
        const last = new Date(Date.UTC(p.y, p.m + 1, 0)).getUTCDate();
        if (Number(m[2]) > last) expression = expression.replace(/^\d+ to \d+/, `1 to 5`);
      }
      const at = template.sentence.indexOf('{X}');
      const text = template.sentence.replace('{X}', expression);
      cases.push({
        id: `${template.id}@${reference.slice(0, 10)}`, text, reference, expression,
        begin: Buffer.byteLength(text.slice(0, at)), end: Buffer.byteLength(text.slice(0, at)) +
          Buffer.byteLength(expression),
        kind: template.kind, future: template.future,
      });
    }
  }
  return cases;
}

// engram's mentions for every case, through the engram_time_expressions filter.
export function runEngram(binary, cases) {
  const input = cases.map((c) => JSON.stringify({ id: c.id, text: c.text, reference: c.reference }))
    .join('\n') + '\n';
  const run = spawnSync(binary, [], { input, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (run.status !== 0) {
    throw new Error(`${binary} failed (${run.status}): ${run.error ?? run.stderr}`);
  }
  const out = new Map();
  for (const line of run.stdout.split('\n')) {
    if (!line) continue;
    const row = JSON.parse(line);
    out.set(row.id, row.mentions);
  }
  return out;
}

// The interval (whole days) both parsers should give, from chrono's reading of the expression.
function expectedFromChrono(kind, startDay, endDay) {
  switch (kind) {
    case 'day': return [startDay, startDay + 1];
    case 'week': { const monday = startDay - weekdayOf(startDay); return [monday, monday + 7]; }
    case 'weekend': {
      const wd = weekdayOf(startDay);
      const saturday = wd >= 5 ? startDay - (wd - 5) : startDay + (5 - wd);
      return [saturday, saturday + 2];
    }
    case 'month': {
      const p = parts(startDay);
      return [dayOf(Date.UTC(p.y, p.m, 1)), dayOf(Date.UTC(p.y, p.m + 1, 1))];
    }
    case 'year': {
      const p = parts(startDay);
      return [dayOf(Date.UTC(p.y, 0, 1)), dayOf(Date.UTC(p.y + 1, 0, 1))];
    }
    case 'range': return [startDay, (endDay ?? startDay) + 1];
    default: throw new Error(`unknown kind ${kind}`);
  }
}

const overlaps = (a0, a1, b0, b1) => a0 < b1 && b0 < a1;
const show = (interval) => (interval ? `${iso(interval[0])}/${iso(interval[1])}` : null);

// One case: engram's interval (the union of its mentions overlapping the expression, widened to
// whole days) against the interval chrono's reading implies for the template's granularity.
export function compareCase(c, mentions) {
  const hits = (mentions || []).filter((m) => overlaps(m.begin, m.end, c.begin, c.end));
  let engram = null;
  if (hits.length > 0) {
    const from = Math.min(...hits.map((m) => Date.parse(m.from)));
    const to = Math.max(...hits.map((m) => Date.parse(m.to)));
    engram = [dayOf(from), Math.ceil(to / DAY_MS)];
    if (engram[1] === engram[0]) engram[1] += 1;
  }
  // chrono indexes UTF-16 code units; the sentences are ASCII, so they equal byte offsets.
  const results = chrono.parse(c.text, { instant: new Date(c.reference), timezone: 0 },
    { forwardDate: c.future })
    .filter((r) => overlaps(r.index, r.index + r.text.length, c.begin, c.end));
  let chronoReading = null;
  let expected = null;
  if (results.length > 0) {
    const r = results[0];
    const startDay = dayOf(r.start.date().getTime());
    const endDay = r.end ? dayOf(r.end.date().getTime()) : null;
    chronoReading = endDay === null ? iso(startDay) : `${iso(startDay)}..${iso(endDay)}`;
    expected = expectedFromChrono(c.kind, startDay, endDay);
  }
  const agree = (engram === null && expected === null) ||
    (engram !== null && expected !== null && engram[0] === expected[0] && engram[1] === expected[1]);
  return {
    id: c.id, agree, text: c.text, reference: c.reference, expression: c.expression, kind: c.kind,
    engram: show(engram), chrono: chronoReading, expected: show(expected),
  };
}

export function compareAll(binary) {
  const cases = generateCases();
  const mentions = runEngram(binary, cases);
  return cases.map((c) => compareCase(c, mentions.get(c.id)));
}

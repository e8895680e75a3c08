// The web inspector (/ui) in headless Chromium, against the real `engram serve` on a loopback
// port over a store seeded with `engram ingest`. Each test loads a page the way a person would
// (links, forms, the keyboard) and asserts on what is shown; screenshots go to
// ENGRAM_SCREENSHOTS. Every wait is bounded (WAIT_MS).
import assert from 'node:assert/strict';
import {spawn, spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {after, before, test} from 'node:test';
import puppeteer from 'puppeteer-core';

const ENGRAM = process.env.ENGRAM_BIN;
const SHOTS = process.env.ENGRAM_SCREENSHOTS;
const CHROMIUM = process.env.ENGRAM_CHROMIUM;
const WAIT_MS = 15000;

// The LoCoMo dev file (ENGRAM_LOCOMO, set by run-ui-test.sh from the benchmark data folder): the
// walk on it is skipped without the file unless ENGRAM_REQUIRE_BENCH_DATA=1.
const LOCOMO = process.env.ENGRAM_LOCOMO || '';
const LOCOMO_REQUIRED = process.env.ENGRAM_REQUIRE_BENCH_DATA === '1';

const HOSTILE = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> & "quotes"';
const SUPPORT_GROUP = 'I went to a LGBTQ support group yesterday and it was so powerful.';

// Two conversations under app:demo (nesting), one with hostile text, and a scratch scope to erase.
// Each inner list is one `engram ingest` (the second session of Caroline's moves her: the
// residence fact of the first is superseded).
const SCOPES = {
  'app:demo/user:caroline': [[
    {speaker: 'Caroline', session_id: 's1', event_time: '2023-05-08T13:56:00Z', text: 'Hey Mel! ' + SUPPORT_GROUP},
    {speaker: 'Melanie', session_id: 's1', event_time: '2023-05-08T13:57:00Z', text: 'That is wonderful, Caroline! What was it like?'},
    {speaker: 'Caroline', session_id: 's1', event_time: '2023-05-08T13:58:00Z', text: 'The transgender stories were so inspiring. I felt accepted.'},
    {speaker: 'Melanie', session_id: 's1', event_time: '2023-05-08T14:00:00Z', text: 'I painted a lake sunrise last year. It is my favourite painting.'},
    {speaker: 'Caroline', session_id: 's1', event_time: '2023-05-08T14:02:00Z', text: 'I moved to Boston last March.'},
  ], [
    {speaker: 'Caroline', session_id: 's2', event_time: '2023-07-12T09:30:00Z', text: 'I actually live in Denver now, I moved in June.'},
    {speaker: 'Melanie', session_id: 's2', event_time: '2023-07-12T09:31:00Z', text: 'Denver! My kids would love the mountains there.'},
  ]],
  'app:demo/user:mallory': [[
    {speaker: 'Mallory', session_id: 'x', event_time: '2023-01-01T00:00:00Z', text: HOSTILE},
  ]],
  'user:scratch': [[
    {speaker: 'Sam', text: 'A note that will be erased.'},
    {speaker: 'Sam', text: 'Another note that will be erased.'},
  ]],
};

let dir, store, config, server, base, browser, page;
const consoleErrors = [];

function engram(...args) {
  const run = spawnSync(ENGRAM, ['--store', store, '--config', config, ...args], {encoding: 'utf8', timeout: WAIT_MS});
  assert.equal(run.status, 0, `engram ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

// Starts `engram serve` on a free loopback port and resolves with its base URL once it listens.
function startServer(extra = [], storePath = store) {
  const child = spawn(ENGRAM, ['--store', storePath, '--config', config, 'serve', '--listen', '127.0.0.1:0', ...extra],
                      {stdio: ['ignore', 'ignore', 'pipe']});
  return new Promise((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => reject(new Error('engram serve did not start: ' + log)), WAIT_MS);
    child.stderr.on('data', (chunk) => {
      log += chunk;
      const match = /web inspector at (http:\/\/127\.0\.0\.1:[0-9]+)\/ui\//.exec(log);
      if (match) {
        clearTimeout(timer);
        resolve({child, url: match[1]});
      }
    });
    child.on('exit', (code) => reject(new Error(`engram serve exited ${code}: ${log}`)));
  });
}

async function api(method, route, body, key) {
  const headers = {'Content-Type': 'application/json'};
  if (key) headers.Authorization = 'Bearer ' + key;
  const response = await fetch(base + route, {method, headers, body: body ? JSON.stringify(body) : undefined});
  return {status: response.status, body: await response.json()};
}

async function shot(name) {
  await page.screenshot({path: path.join(SHOTS, name + '.png'), fullPage: true});
}

// Loads the page afresh (not a same-document hash change), so `selector` is the new page's.
async function visit(hash, selector) {
  await page.goto('about:blank');
  await page.goto(base + '/ui/' + hash, {waitUntil: 'domcontentloaded', timeout: WAIT_MS});
  await page.waitForSelector(selector, {timeout: WAIT_MS});
}

// Clicks `selector` and waits until the page it leads to has rendered (app.js marks each render
// on <body data-ready>), so the next query does not read the previous page.
async function follow(selector) {
  const before = await page.$eval('body', (body) => body.getAttribute('data-ready'));
  await page.click(selector);
  await page.waitForFunction((mark) => document.body.getAttribute('data-ready') !== mark, {}, before);
}

async function text(selector) {
  return page.$eval(selector, (node) => node.textContent);
}

// Every input and select on the page has a label a screen reader announces.
async function assertEveryControlLabelled() {
  const unlabelled = await page.$$eval('input, select, textarea', (controls) =>
    controls.filter((control) => control.labels.length === 0 && !control.getAttribute('aria-label'))
      .map((control) => control.outerHTML));
  assert.deepEqual(unlabelled, []);
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-ui-'));
  store = path.join(dir, 'engram.db');
  config = path.join(dir, 'config.toml');
  fs.writeFileSync(config, '[embedder]\nkind = "hashing"\n');
  fs.mkdirSync(SHOTS, {recursive: true});
  for (const [scope, batches] of Object.entries(SCOPES)) {
    batches.forEach((turns, index) => {
      const file = path.join(dir, scope.replace(/[^a-z]/g, '_') + index + '.jsonl');
      fs.writeFileSync(file, turns.map((turn) => JSON.stringify(turn)).join('\n') + '\n');
      engram('ingest', '--scope', scope, file);
    });
  }
  const started = await startServer();
  server = started.child;
  base = started.url;
  browser = await puppeteer.launch({
    executablePath: CHROMIUM, headless: true, timeout: WAIT_MS,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run']});
  page = await browser.newPage();
  await page.setViewport({width: 1280, height: 900});
  page.setDefaultTimeout(WAIT_MS);
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(String(error)));
});

after(async () => {
  if (browser) await browser.close();
  if (server) server.kill('SIGTERM');
  if (dir) fs.rmSync(dir, {recursive: true, force: true});
});

test('the pages carry a strict Content-Security-Policy and need no key to load', async () => {
  const response = await fetch(base + '/ui/');
  assert.equal(response.status, 200);
  const policy = response.headers.get('content-security-policy');
  assert.match(policy, /script-src 'self'/);
  assert.doesNotMatch(policy, /unsafe-inline/);
  assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
  const script = await fetch(base + '/ui/app.js');
  assert.match(script.headers.get('content-type'), /^text\/javascript/);
  assert.equal((await fetch(base + '/ui/missing.js')).status, 404);
});

test('the scope tree shows nesting and counts', async () => {
  await visit('#/scopes', '#scope-count');
  // app:demo exists as the parent of the two nested scopes (a scope of its own, holding nothing).
  assert.equal(await text('#scope-count'), '4 scopes');
  // Counts as the API gives them; app:demo holds nothing itself and sums its two nested scopes.
  const scopes = (await api('GET', '/v1/scopes')).body.scopes;
  const memories = (name) => scopes.find((info) => info.scope === name).memories;
  const caroline = await text('li[data-scope="app:demo/user:caroline"] > .count');
  assert.equal(caroline, `7 turns written · ${memories('app:demo/user:caroline')} memories`);
  const demo = await text('li[data-scope="app:demo"] > .count');
  assert.equal(demo, `0 turns written · 0 memories · ${memories('app:demo/user:caroline') + memories('app:demo/user:mallory')} memories in all`);
  assert.equal(await page.$$eval('li[data-scope="app:demo"] li', (items) => items.length), 2);
  await shot('scopes');
});

test('a timeline lists the turns in order and filters by speaker', async () => {
  await follow('li[data-scope="app:demo/user:caroline"] > a');
  const rows = await page.$$eval('#timeline tbody tr', (trs) => trs.map((tr) => tr.children[2].textContent));
  assert.deepEqual(rows, ['Caroline', 'Melanie', 'Caroline', 'Melanie', 'Caroline', 'Caroline', 'Melanie']);
  await page.type('#filter-speaker', 'melanie');
  await Promise.all([page.waitForFunction(() => location.hash.includes('speaker=melanie')),
                     page.click('form.filters button[type="submit"]')]);
  await page.waitForFunction(() => document.querySelector('#timeline-count')?.textContent.startsWith('3 shown'));
  const speakers = await page.$$eval('#timeline tbody tr', (trs) => trs.map((tr) => tr.children[2].textContent));
  assert.deepEqual(speakers, ['Melanie', 'Melanie', 'Melanie']);
  await page.$eval('#filter-since', (input) => { input.value = '2023-07-01'; });
  await page.click('form.filters button[type="submit"]');
  await page.waitForFunction(() => document.querySelector('#timeline-count')?.textContent.startsWith('1 shown'));
  assert.match(await text('#timeline tbody'), /mountains/);
  await assertEveryControlLabelled();
  await shot('timeline');
});

test('hostile memory text is shown as text, never run', async () => {
  await visit('#/scope/app:demo/user:mallory', '#timeline');
  assert.equal(await text('#timeline tbody td.text'), HOSTILE);
  await follow('#timeline tbody td.text a');
  assert.equal(await text('#memory-text'), HOSTILE);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.equal(await page.$$eval('main img, main script', (nodes) => nodes.length), 0);
  await shot('hostile');
});

test('recall from the keyboard, explained, and an item followed to its memory page', async () => {
  await visit('#/recall/app:demo/user:caroline', '#recall-form');
  await assertEveryControlLabelled();
  // The question field has focus on arrival; Shift+Tab goes back to the scope, Tab returns.
  assert.equal(await page.evaluate(() => document.activeElement.id), 'recall-question');
  await page.keyboard.down('Shift');
  await page.keyboard.press('Tab');
  await page.keyboard.up('Shift');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'recall-scope');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'recall-question');
  await page.keyboard.type('When did Caroline go to the LGBTQ support group?');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#recall-items tbody tr');
  // The server has everything scripts/setup installs: nothing to warn about.
  assert.equal(await page.$('#recall-warnings'), null);
  const first = await text('#recall-items tbody tr:first-child td.text a');
  assert.match(first, /LGBTQ support group/);
  // Each item says how its routes ranked and scored it; the context and stage timings are shown.
  const routes = await page.$$eval('#recall-items tbody tr:first-child ul.routes li', (lis) => lis.length);
  assert.ok(routes >= 1, 'the first item lists its routes');
  assert.match(await text('#recall-context'), /LGBTQ support group/);
  assert.ok((await text('#recall-instructions')).length > 0);
  assert.ok(await page.$$eval('#recall-timings meter', (meters) => meters.length) >= 1);
  await shot('recall');
  // The README's picture: the first screen of the playground (docs/images/inspector-recall.png).
  await page.screenshot({path: path.join(SHOTS, 'inspector-recall.png')});

  await follow('#recall-items tbody tr:first-child td.text a');
  assert.equal(await text('#memory-text'), 'Hey Mel! ' + SUPPORT_GROUP);
  assert.match(await text('#memory-fields'), /2023-05-08T13:56:00Z/);
  assert.match(await text('#memory-fields'), /Caroline/);
  await shot('memory');
});

test('a fact shows its evidence turn and its supersession on a time axis', async () => {
  const facts = await api('GET', '/v1/scopes/app:demo/user:caroline/facts?all=true');
  assert.equal(facts.status, 200);
  const replaced = facts.body.facts.find((fact) => fact.superseded_by && fact.superseded_by.length);
  assert.ok(replaced, 'the Boston fact is superseded by the Denver one: ' + JSON.stringify(facts.body.facts));
  await visit('#/memory/' + replaced.id, '#memory-text');
  assert.match(await text('#evidence'), /Boston/);
  assert.match(await text('#memory-fields'), /superseded/);
  await page.waitForSelector('#chain rect');
  assert.equal(await page.$$eval('#chain rect', (bars) => bars.length), 2);
  assert.match(await text('#chain-relations li:first-child'), /Caroline lives in Boston.*superseded by #2/);
  assert.match(await text('#chain-relations li:last-child'), /Caroline lives in Denver.*still valid.*supersedes #1/);
  assert.match(await text('#history'), /supersede/);
  await shot('fact-chain');

  // The evidence turn lists the fact among what was derived from it.
  await follow('#evidence a.memory-link');
  assert.match(await text('#memory-text'), /Boston/);
  assert.match(await text('#derived'), /fact/);
});

test('a merge proposal is accepted from the scope page', async () => {
  const list = await api('GET', '/v1/scopes/app:demo/user:caroline/memories');
  const [a, b] = list.body.memories.map((memory) => memory.id);
  const proposed = await api('POST', '/v1/proposals', {a, b, reason: 'same person, test'});
  assert.equal(proposed.status, 201);
  await visit('#/scope/app:demo/user:caroline', '#proposals');
  assert.match(await text('#proposals'), /same person, test/);
  await page.click(`#proposals button[data-proposal="${proposed.body.id}"]`);
  await page.waitForFunction(() => document.querySelector('#notice').textContent === 'Proposal accepted.');
  await page.waitForFunction(() => /accepted/.test(document.querySelector('#proposals')?.textContent || ''));
  const after = await api('GET', '/v1/scopes/app:demo/user:caroline/proposals');
  assert.equal(after.body.proposals.find((p) => p.id === proposed.body.id).status, 'accepted');
});

test('a memory is retired with a reason', async () => {
  const list = await api('GET', '/v1/scopes/app:demo/user:caroline/memories');
  const target = list.body.memories.find((memory) => memory.text.includes('painted'));
  await visit('#/memory/' + target.id, '#retire-reason');
  await assertEveryControlLabelled();
  await page.type('#retire-reason', 'painting was a draft');
  await page.click('form.inline button.danger');
  await page.waitForFunction(() => document.querySelector('#notice').textContent === 'Retired.');
  await page.waitForFunction(() => /retired/.test(document.querySelector('#memory-fields')?.textContent || ''));
  assert.match(await text('#history'), /painting was a draft/);
});

test('a scope is erased only after its name is typed', async () => {
  await visit('#/scope/user:scratch', '#erase-confirm');
  const disabled = () => page.$eval('section.danger-zone button', (button) => button.disabled);
  assert.equal(await disabled(), true);
  await page.type('#erase-confirm', 'user:scratc');
  assert.equal(await disabled(), true);
  await page.type('#erase-confirm', 'h');
  assert.equal(await disabled(), false);
  await shot('erase');
  await page.click('section.danger-zone button');
  await page.waitForSelector('#scope-count');
  assert.match(await text('#notice'), /^Erased user:scratch: [0-9]+ nodes in 1 scope\.$/);
  assert.equal(await text('#scope-count'), '3 scopes');
  const scopes = await api('GET', '/v1/scopes');
  assert.deepEqual(scopes.body.scopes.map((info) => info.scope).sort(),
                   ['app:demo', 'app:demo/user:caroline', 'app:demo/user:mallory']);
});

test('on the LoCoMo dev file: a conversation, the question, its evidence turn and the fact from it',
     {skip: !LOCOMO_REQUIRED && !fs.existsSync(LOCOMO) && `no LoCoMo dev file at "${LOCOMO}" (ENGRAM_BENCH_DATA)`},
     async () => {
  assert.ok(fs.existsSync(LOCOMO), `the LoCoMo dev file is required: "${LOCOMO}"`);
  const locomoStore = path.join(dir, 'locomo.db');
  const ingest = spawnSync(ENGRAM, ['--store', locomoStore, '--config', config, 'ingest', '--format', 'locomo', LOCOMO],
                           {encoding: 'utf8', timeout: 120000});
  assert.equal(ingest.status, 0, ingest.stderr);
  const started = await startServer([], locomoStore);
  const mainBase = base;
  base = started.url;
  try {
    // Pick the conversation in the scope tree, then its recall playground.
    await visit('#/scopes', '#scope-count');
    await follow('li[data-scope="world:locomo-conv-26"] > a');
    await follow('a[href="#/recall/world%3Alocomo-conv-26"]');
    await page.waitForSelector('#recall-question');
    await page.type('#recall-question', 'When did Caroline go to the LGBTQ support group?');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#recall-items tbody tr');
    // The evidence turn (D1:3) ranks first, with how each route found it.
    assert.match(await text('#recall-items tbody tr:first-child td.text a'),
                 /I went to a LGBTQ support group yesterday/);
    const explanations = await page.$$eval('#recall-items tbody tr:first-child ul.routes li',
                                           (lis) => lis.map((li) => li.textContent));
    assert.ok(explanations.length >= 1 && explanations.every((line) => line.trim().length > 0),
              'the evidence turn says how its routes ranked it: ' + JSON.stringify(explanations));
    await shot('locomo-recall');
    // Its memory page lists the fact derived from it.
    await follow('#recall-items tbody tr:first-child td.text a');
    assert.match(await text('#memory-text'), /LGBTQ support group/);
    assert.match(await text('#derived'), /fact/);
    assert.match(await text('#derived'), /LGBTQ support group/);
    await shot('locomo-memory');
  } finally {
    base = mainBase;
    started.child.kill('SIGTERM');
    await new Promise((resolve) => started.child.once('exit', resolve));
  }
});

test('no page logged an error to the console', () => {
  assert.deepEqual(consoleErrors, []);
});

test('with keys the page asks for one and uses it', async () => {
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  const keys = path.join(dir, 'keys.json');
  const created = engram('keys', 'create', '--keys', keys, '--scope', 'app:demo/user:caroline', '--rights', 'read');
  const secret = /(egk_[0-9a-f]+)/.exec(created)?.[1];
  assert.ok(secret, 'a key secret in: ' + created);
  const started = await startServer(['--keys', keys]);
  server = started.child;
  base = started.url;
  await visit('#/scopes', '#api-key');
  await assertEveryControlLabelled();
  await shot('key');
  await page.type('#api-key', secret);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#scope-count');
  // The key reads one scope only: the tenant rules of the API apply to the pages.
  assert.equal(await text('#scope-count'), '1 scope');
  assert.equal(await page.evaluate(() => sessionStorage.getItem('engram.key')), secret);
});

// A web page cannot drive a keyless `engram serve`. The built server runs on a loopback port
// without keys; a small Node server serves an attacker's page, which headless Chromium loads from
// http://evil.test:PORT2/ (the browser is told evil.test resolves to 127.0.0.1: a cross-site
// origin on this machine, as after DNS rebinding). From that page every request a browser lets a
// script send without CORS permission is tried (an erase through POST /reset, form and text
// bodies written to a scope, a read through the rebound name, a JSON write); what the page could
// observe, what the browser's network layer received and what the server answered (its own
// request log) are recorded: each attack must be answered 403, and afterwards Node checks that the
// store holds exactly what was seeded. A page rebound onto the server's own port (same origin)
// is refused by its Host; even a loopback page may not send a form or text body, nor erase
// everything through POST /reset (no --allow-admin). A control proves the refusals are the
// server's: a page from http://localhost:PORT2/, a loopback origin allowed by default, writes a
// memory with a JSON CORS request and reads it back.
// Every wait is bounded (WAIT_MS); every process is stopped at the end.
import assert from 'node:assert/strict';
import {spawn} from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import {after, before, test} from 'node:test';
import puppeteer from 'puppeteer-core';

const ENGRAM = process.env.ENGRAM_BIN;
const CHROMIUM = process.env.ENGRAM_CHROMIUM;
const WAIT_MS = 15000;
// How long the page waits for a form's answer to load into its iframe.
const FORM_WAIT_MS = 5000;

const SCOPE = 'user:alice';
const MEMORIES = `/v1/scopes/${SCOPE}/memories`;
const SECRET = 'Alice keeps the spare key under the blue flowerpot.';
const CONTROL = 'Alice asked for a reminder about the dentist on Friday.';
// Every attack writes text containing this word, so a write that got through is easy to spot.
const MARK = 'ATTACKER';

// The attacker's page: nothing on it; the attacks run from page.evaluate.
const ATTACKER_HTML = '<!doctype html><meta charset="utf-8"><title>attacker</title><p>attacker page</p>';

let dir, engram, engramLog = '', engramBase, rebound, attacker, attackerPort, browser, page, before_attacks;
// What the browser's network layer received from the engram port during the current attack.
let network = [];
// The server's answers, from its request log (--log-requests): {method, path, status}.
const answered = [];
const ANSWER_LINE = /^engram: \S+ (\S+) (\S+) ([0-9]{3})\b/;

// Starts `engram serve` without keys on a free loopback port, logging every request it answers;
// resolves once it listens.
function startEngram(store, config) {
  const child = spawn(ENGRAM, ['--store', store, '--config', config, 'serve', '--listen', '127.0.0.1:0',
                               '--log-requests'],
                      {stdio: ['ignore', 'ignore', 'pipe']});
  let partial = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('engram serve did not start: ' + engramLog)), WAIT_MS);
    child.stderr.on('data', (chunk) => {
      engramLog += chunk;
      const lines = (partial + chunk).split('\n');
      partial = lines.pop();
      for (const line of lines) {
        const answer = ANSWER_LINE.exec(line);
        if (answer) answered.push({method: answer[1], path: answer[2], status: Number(answer[3])});
      }
      const match = /engram: serving .* on (http:\/\/127\.0\.0\.1:([0-9]+))/.exec(engramLog);
      if (match) {
        clearTimeout(timer);
        resolve({child, url: match[1], port: Number(match[2])});
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`engram serve exited ${code}: ${engramLog}`));
    });
  });
}

// A request from Node (which sends no Origin), as a trusted local program would make it.
async function api(method, route, body) {
  const response = await fetch(engramBase + route, {
    method, headers: {'Content-Type': 'application/json'}, body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(WAIT_MS)});
  return {status: response.status, body: await response.json()};
}

// Everything the store shows for the scope: every kind of memory, and the scope list.
async function snapshot() {
  const memories = await api('GET', `${MEMORIES}?kind=all&limit=1000`);
  const scopes = await api('GET', '/v1/scopes');
  assert.equal(memories.status, 200, JSON.stringify(memories.body));
  assert.equal(scopes.status, 200, JSON.stringify(scopes.body));
  return {memories: memories.body.memories.map(({id, kind, text, status}) => ({id, kind, text, status})),
          scopes: scopes.body.scopes};
}

async function turnTexts() {
  const turns = await api('GET', MEMORIES);
  assert.equal(turns.status, 200, JSON.stringify(turns.body));
  assert.equal(turns.body.count, turns.body.memories.length);
  return turns.body.memories.map((memory) => memory.text);
}

// Stops a child process: SIGTERM, then SIGKILL if it has not exited within WAIT_MS.
async function stop(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), WAIT_MS);
  await exited;
  clearTimeout(timer);
}

// `promise`, or a rejection once `ms` have passed.
function withTimeout(promise, ms, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(what + ' timed out')), ms);
  });
  return Promise.race([promise.finally(() => clearTimeout(timer)), late]);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Records every answer (and every failure) the browser got from the engram port on `target`.
function watchNetwork(target) {
  const port = `:${new URL(engramBase).port}/`;
  const ours = (url) => url.includes(port);
  target.on('response', (response) => {
    if (!ours(response.url())) return;
    network.push({method: response.request().method(), url: response.url(), status: response.status()});
  });
  target.on('requestfailed', (request) => {
    if (!ours(request.url())) return;
    network.push({method: request.method(), url: request.url(), failed: request.failure()?.errorText || 'failed'});
  });
}

// Runs `attack` in `target` (page.evaluate) and returns what the page observed, what the browser's
// network layer received and what the server answered meanwhile. The page's promise settles once
// the answers arrived; the server logs each answer before sending it, and its log is read until
// it has been quiet for a moment (at most two seconds).
async function attempt(target, attack, ...args) {
  network = [];
  const mark = answered.length;
  const observed = await target.evaluate(attack, ...args);
  let count = -1;
  for (let waited = 0; waited < 2000 && (answered.length === mark || answered.length !== count); waited += 100) {
    count = answered.length;
    await sleep(100);
  }
  return {page: observed, browser_network: [...network], server_answered: answered.slice(mark)};
}

// What the browser and the server saw, for assertion messages.
const seen = (outcome) => 'the browser and the server saw ' + JSON.stringify(outcome);

// The page learned nothing from a no-cors answer: it is opaque (status 0, no body), or the fetch
// failed outright.
function assertOpaque(outcome) {
  const {type, status, body, error} = outcome.page;
  assert.ok((type === 'opaque' && status === 0 && body === '') || /^TypeError/.test(error || ''),
            'the page learns nothing: ' + seen(outcome));
}

// The server answered the attack's request(s) to `route`, and every answer it gave meanwhile,
// with 403.
function assertRefused(outcome, method, route) {
  assert.ok(outcome.server_answered.some((answer) => answer.method === method && answer.path === route),
            `the server answered the ${method} ${route}: ` + seen(outcome));
  for (const answer of outcome.server_answered) assert.equal(answer.status, 403, seen(outcome));
}

// In the page: fetch() and what a script can see of the answer (an opaque no-cors answer shows
// status 0 and no body; a CORS failure is a TypeError).
async function pageFetch(url, init) {
  try {
    const response = await fetch(url, init);
    let body = '';
    try { body = await response.text(); } catch (error) { body = 'unreadable: ' + error.name; }
    return {type: response.type, status: response.status, body};
  } catch (error) {
    return {error: `${error.name}: ${error.message}`};
  }
}

// In the page: an HTML form posted into an iframe; returns whether the answer loaded and what
// the page could read of it (nothing: the iframe is cross-origin).
async function pageForm(action, enctype, name, value, frameName, waitMs) {
  const frame = document.createElement('iframe');
  frame.name = frameName;
  document.body.append(frame);
  const form = document.createElement('form');
  Object.assign(form, {method: 'POST', action, enctype, target: frameName});
  const input = document.createElement('input');
  Object.assign(input, {type: 'hidden', name, value});
  form.append(input);
  document.body.append(form);
  const loaded = new Promise((resolve) => {
    frame.addEventListener('load', () => resolve(true), {once: true});
    setTimeout(() => resolve(false), waitMs);
  });
  form.submit();
  const didLoad = await loaded;
  let readable;
  try {
    readable = frame.contentDocument ? frame.contentDocument.body.innerText : null;
  } catch (error) {
    readable = 'unreadable: ' + error.name;
  }
  return {loaded: didLoad, readable};
}

// Form fields whose text/plain encoding ("name=value\r\n") is the JSON of a remember request:
// the classic way a form smuggles JSON past a server that does not look at the Content-Type.
function jsonForm(text) {
  return {name: `{"turns":[{"text":"${text} `, value: '"}]}'};
}

// Posts a form into an iframe and adds what the iframe shows (read through the browser, which
// the page itself cannot do) to the outcome.
async function formAttack(target, action, enctype, frameName, text) {
  const {name, value} = jsonForm(text);
  const outcome = await attempt(target, pageForm, action, enctype, name, value, frameName, FORM_WAIT_MS);
  const frame = target.frames().find((candidate) => candidate.name() === frameName);
  try {
    outcome.iframe_shows = frame
        ? await withTimeout(frame.evaluate(() => document.body?.innerText ?? ''), WAIT_MS, 'reading the iframe')
        : 'no iframe';
  } catch (error) {
    outcome.iframe_shows = 'unreadable: ' + error.message;
  }
  return outcome;
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-cross-site-'));
  const config = path.join(dir, 'config.toml');
  fs.writeFileSync(config, '[embedder]\nkind = "hashing"\n');
  const started = await startEngram(path.join(dir, 'x.db'), config);
  engram = started.child;
  engramBase = started.url;
  rebound = `http://evil.test:${started.port}`;
  // Seeded from Node; derived memories are waited for, so the store is still from here on.
  const seeded = await api('POST', `${MEMORIES}?wait=derived`, {turns: [{text: SECRET}]});
  assert.equal(seeded.status, 201, JSON.stringify(seeded.body));
  before_attacks = await snapshot();

  attacker = http.createServer((request, response) => {
    response.writeHead(200, {'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store'});
    response.end(ATTACKER_HTML);
  });
  await new Promise((resolve, reject) => {
    attacker.once('error', reject);
    attacker.listen(0, '127.0.0.1', resolve);
  });
  attackerPort = attacker.address().port;

  // The browser's own Local Network Access checks are off: they stop a page that was not served
  // from this machine (as the rebound page below is not) from calling loopback addresses, which
  // would hide whether the server refuses. Other browsers have no such checks; the server must.
  browser = await puppeteer.launch({
    executablePath: CHROMIUM, headless: true, timeout: WAIT_MS,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
           '--host-resolver-rules=MAP evil.test 127.0.0.1', '--disable-features=LocalNetworkAccessChecks']});
  page = await browser.newPage();
  page.setDefaultTimeout(WAIT_MS);
  watchNetwork(page);
  await page.goto(`http://evil.test:${attackerPort}/`, {waitUntil: 'domcontentloaded'});
  assert.equal(await page.evaluate(() => location.origin), `http://evil.test:${attackerPort}`);
});

after(async () => {
  if (browser) {
    const chromium = browser.process();
    try {
      await withTimeout(browser.close(), WAIT_MS, 'closing Chromium');
    } catch {
      chromium?.kill('SIGKILL');
    }
  }
  if (attacker) {
    attacker.closeAllConnections();
    await withTimeout(new Promise((resolve) => attacker.close(resolve)), WAIT_MS, 'closing the attacker server')
      .catch(() => {});
  }
  await stop(engram);
  if (dir) fs.rmSync(dir, {recursive: true, force: true});
});

// Opens a page at `url` whose network answers are recorded; `setup` may prepare it first.
async function openPage(url, setup = async () => {}) {
  const opened = await browser.newPage();
  opened.setDefaultTimeout(WAIT_MS);
  await setup(opened);
  watchNetwork(opened);
  await opened.goto(url, {waitUntil: 'domcontentloaded'});
  assert.equal(await opened.evaluate(() => location.origin), new URL(url).origin);
  return opened;
}

async function closePage(opened) {
  await withTimeout(opened.close(), WAIT_MS, 'closing a page').catch(() => {});
}

test('POST /reset in no-cors mode from a cross-site page is refused', async () => {
  const outcome = await attempt(page, pageFetch, engramBase + '/reset', {method: 'POST', mode: 'no-cors'});
  assertOpaque(outcome);
  assertRefused(outcome, 'POST', '/reset');
});

for (const enctype of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data']) {
  test(`an HTML form (${enctype}) posted into an iframe cannot write a memory`, async () => {
    const frameName = 'sink-' + enctype.replace(/[^a-z]/g, '-');
    const outcome = await formAttack(page, engramBase + MEMORIES, enctype, frameName, `${MARK} form ${enctype}`);
    assert.equal(outcome.page.readable, null, 'the page cannot read the answer: ' + seen(outcome));
    assertRefused(outcome, 'POST', MEMORIES);
  });
}

test('a no-cors fetch with a text/plain JSON body cannot write a memory', async () => {
  const outcome = await attempt(page, pageFetch, engramBase + MEMORIES, {
    method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'},
    body: JSON.stringify({turns: [{text: `${MARK} no-cors text/plain fetch`}]})});
  assertOpaque(outcome);
  assertRefused(outcome, 'POST', MEMORIES);
});

test('a read through the rebound name from the attacker page gets 403 and no text', async () => {
  const outcome = await attempt(page, pageFetch, rebound + MEMORIES, {});
  assert.match(outcome.page.error || '', /^TypeError/, 'the page reads nothing: ' + seen(outcome));
  assertRefused(outcome, 'GET', MEMORIES);
});

test('a JSON write with CORS from a cross-site page gets no permission', async () => {
  const outcome = await attempt(page, pageFetch, engramBase + MEMORIES, {
    method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({turns: [{text: `${MARK} CORS JSON fetch`}]})});
  assert.match(outcome.page.error || '', /^TypeError/, seen(outcome));
  // The browser sends the POST only after a preflight that grants it: the preflight is refused
  // and the POST never reaches the server.
  assertRefused(outcome, 'OPTIONS', MEMORIES);
  assert.ok(!outcome.server_answered.some((answer) => answer.method === 'POST'), seen(outcome));
});

// DNS rebinding proper: the attacker's page was served from http://evil.test:PORT (the request
// for the page itself is answered here by the browser's interception, as the attacker's server
// would have answered it before the name was pointed at 127.0.0.1); its requests to its own
// origin then reach engram, same-origin, with nothing for CORS to stop. Only the Host stops them.
test('a page rebound onto the server\'s own origin is refused: read, write and reset get 403', async () => {
  const same = await openPage(rebound + '/', async (opened) => {
    await opened.setRequestInterception(true);
    opened.on('request', (request) => {
      if (request.isNavigationRequest() && request.url() === rebound + '/') {
        request.respond({status: 200, contentType: 'text/html; charset=utf-8', body: ATTACKER_HTML});
      } else {
        request.continue();
      }
    });
  });
  try {
    const read = await attempt(same, pageFetch, MEMORIES, {});
    assert.equal(read.page.type, 'basic', 'a same-origin answer the page can read: ' + seen(read));
    assert.equal(read.page.status, 403, seen(read));
    assert.ok(!read.page.body.includes('flowerpot'), 'no memory text: ' + seen(read));
    assertRefused(read, 'GET', MEMORIES);

    const write = await attempt(same, pageFetch, MEMORIES, {
      method: 'POST', headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({turns: [{text: `${MARK} rebound same-origin JSON write`}]})});
    assert.equal(write.page.status, 403, seen(write));
    assertRefused(write, 'POST', MEMORIES);

    const reset = await attempt(same, pageFetch, '/reset', {method: 'POST'});
    assert.equal(reset.page.status, 403, seen(reset));
    assertRefused(reset, 'POST', '/reset');
  } finally {
    await closePage(same);
  }
});

// A loopback origin may call the server with JSON, but never with a body a form could send, and
// without keys it may not erase everything (the server runs without --allow-admin).
test('even a loopback page cannot send a form or text body, nor erase everything', async () => {
  const local = await openPage(`http://localhost:${attackerPort}/`);
  try {
    const text = await attempt(local, pageFetch, engramBase + MEMORIES, {
      method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'},
      body: JSON.stringify({turns: [{text: `${MARK} loopback text/plain fetch`}]})});
    assertOpaque(text);
    assertRefused(text, 'POST', MEMORIES);
    const form = await formAttack(local, engramBase + MEMORIES, 'text/plain', 'sink-loopback', `${MARK} loopback form`);
    assertRefused(form, 'POST', MEMORIES);
    // A JSON request from an allowed origin: its preflight is granted, the reset itself refused.
    const reset = await attempt(local, pageFetch, engramBase + '/reset', {
      method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{}'});
    assert.deepEqual(reset.server_answered.map(({method, status}) => `${method} ${status}`),
                     ['OPTIONS 204', 'POST 403'], seen(reset));
    assert.equal(reset.page.status, 403, seen(reset));
  } finally {
    await closePage(local);
  }
});

test('after every attack the store holds exactly what was seeded', async () => {
  assert.deepEqual(await turnTexts(), [SECRET]);
  assert.deepEqual(await snapshot(), before_attacks);
});

// The control: the same browser, the same server, a loopback origin: the write goes through. So
// the refusals above are the server's doing, not a browser that could not reach it.
test('control: a page from http://localhost writes with JSON and CORS (201) and reads it back', async () => {
  const local = await openPage(`http://localhost:${attackerPort}/`);
  try {
    const outcome = await attempt(local, async (base, route, text) => {
      const written = await fetch(base + route, {
        method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({turns: [{text}]})});
      const listed = await fetch(base + route);
      const list = await listed.json();
      return {written: written.status, listed: listed.status, count: list.count,
              texts: list.memories.map((memory) => memory.text)};
    }, engramBase, MEMORIES, CONTROL);
    assert.deepEqual(outcome.page, {written: 201, listed: 200, count: 2, texts: [SECRET, CONTROL]}, seen(outcome));
  } finally {
    await closePage(local);
  }
  assert.deepEqual(await turnTexts(), [SECRET, CONTROL]);
});

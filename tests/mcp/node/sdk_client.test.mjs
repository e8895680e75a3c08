// Drives `engram mcp` with the official MCP TypeScript SDK client, over stdio and over
// streamable HTTP: the handshake, tools/list, and a write / recall / amend / retire / purge
// round trip. The SDK checks every structuredContent against the tool's outputSchema. Also: a
// recall's whole result against the size of its context, a default scope (`--scope`, and an API
// key's scope over `engram serve --keys`), and a missing right.
//
//   ENGRAM_BIN=build/engram node --test tests/mcp/node/sdk_client.test.mjs
import { spawn, spawnSync } from "node:child_process";
import { request as httpRequest } from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";

const engram = process.env.ENGRAM_BIN;
if (!engram) throw new Error("ENGRAM_BIN must name the engram binary");

const workDir = mkdtempSync(join(tmpdir(), "engram-mcp-sdk-"));
const configPath = join(workDir, "engram.toml");
// The hashing embedder needs no model files.
writeFileSync(configPath, '[embedder]\nkind = "hashing"\n');

function engramArgs(store) {
  return ["--store", join(workDir, store), "--config", configPath, "mcp"];
}

const expectedTools = [
  "memory_write",
  "memory_recall",
  "memory_list",
  "memory_read",
  "memory_amend",
  "memory_retire",
  "memory_retire_all",
  "memory_purge_scope",
  "memory_list_scopes",
  "memory_consolidate",
  "memory_structure",
  "memory_graph",
  "memory_link",
  "memory_unlink",
];

// The whole round trip, the same over either transport.
async function roundTrip(client) {
  assert.equal(client.getServerVersion().name, "engram");
  assert.deepEqual(Object.keys(client.getServerCapabilities()), ["tools"]);

  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((tool) => tool.name),
    expectedTools,
  );
  const recallTool = tools.find((tool) => tool.name === "memory_recall");
  assert.equal(recallTool.annotations.readOnlyHint, true);
  assert.equal(recallTool.inputSchema.additionalProperties, false);
  assert.deepEqual(recallTool.inputSchema.required, ["scope", "query"]);
  // A recall answers one text item sized to its token budget, not structuredContent.
  assert.equal(recallTool.outputSchema, undefined);

  const written = await client.callTool({
    name: "memory_write",
    arguments: {
      scope: "user:alice",
      turns: [
        { text: "My sister Maya lives in Porto.", speaker: "Alice" },
        { text: "I adopted a cat called Miso.", speaker: "Alice" },
      ],
    },
  });
  assert.equal(written.isError, false);
  assert.equal(written.structuredContent.ids.length, 2);
  const [mayaId, misoId] = written.structuredContent.ids;
  assert.deepEqual(JSON.parse(written.content[0].text), written.structuredContent);

  const recalled = await client.callTool({
    name: "memory_recall",
    arguments: { scope: "user:alice", query: "Where does Maya live?", k: 5 },
  });
  assert.equal(recalled.isError, false);
  assert.equal(recalled.structuredContent, undefined);
  const recall = recallOf(recalled);
  assert.match(recall.context, /Porto/);
  // Items are references: [id, score], the text being the context's.
  assert.equal(recall.items[0][0], mayaId);
  assert.equal(recall.items[0].length, 2);

  const amended = await client.callTool({
    name: "memory_amend",
    arguments: { id: mayaId, text: "My sister Maya lives in Lisbon.", reason: "she moved" },
  });
  assert.equal(amended.isError, false, amended.content[0].text);
  assert.equal(amended.structuredContent.superseded_id, mayaId);
  const afterAmend = await client.callTool({
    name: "memory_recall",
    arguments: { scope: "user:alice", query: "Where does Maya live?" },
  });
  assert.match(recallOf(afterAmend).context, /Lisbon/);
  const old = await client.callTool({ name: "memory_read", arguments: { id: mayaId, history: true } });
  assert.equal(old.structuredContent.memory.status, "superseded");

  const retired = await client.callTool({
    name: "memory_retire",
    arguments: { id: misoId, reason: "test" },
  });
  assert.equal(retired.isError, false);
  assert.equal(retired.structuredContent.memory.status, "retired");

  const missing = await client.callTool({
    name: "memory_read",
    arguments: { id: "0".repeat(32) },
  });
  assert.equal(missing.isError, true);
  assert.match(missing.content[0].text, /^NOT_FOUND/);

  // A scope nothing was stored in yet is an empty recall, not an error.
  const nothing = await client.callTool({
    name: "memory_recall",
    arguments: { scope: "user:nobody", query: "Where does Maya live?" },
  });
  assert.equal(nothing.isError, false, nothing.content[0].text);
  assert.deepEqual(recallOf(nothing).items, []);
  assert.equal(recallOf(nothing).note, "nothing stored yet in scope user:nobody");

  const badArgs = await client.callTool({
    name: "memory_recall",
    arguments: { scope: "user:alice", query: "x", k: "ten" },
  });
  assert.equal(badArgs.isError, true);
  assert.match(badArgs.content[0].text, /argument "k"/);

  await assert.rejects(
    client.callTool({ name: "no_such_tool", arguments: {} }),
    (error) => error instanceof McpError && error.code === -32602,
  );

  const purged = await client.callTool({
    name: "memory_purge_scope",
    arguments: { scope: "user:alice", confirm: true },
  });
  assert.equal(purged.isError, false);
  assert.ok(purged.structuredContent.nodes >= 2);

  const scopes = await client.callTool({ name: "memory_list_scopes", arguments: {} });
  assert.deepEqual(scopes.structuredContent.scopes, []);

  await client.ping();
}

// The JSON a memory_recall answers in its one text item.
function recallOf(result) {
  assert.equal(result.content.length, 1);
  return JSON.parse(result.content[0].text);
}

// A few dozen conversation turns of a few hundred characters, over five sessions.
function conversation() {
  const subjects = [
    "the garden", "my sister Maya", "the Lisbon apartment", "the cello lessons", "our dog Biscuit",
    "the migration at work", "the trip to Japan", "Sam's restaurant", "the marathon", "the book club",
  ];
  const sentences = [
    "We talked it through over dinner and decided to wait a few weeks before changing anything.",
    "It took longer than expected, mostly because the paperwork kept coming back with questions.",
    "Honestly it was the highlight of the month, and I keep thinking about doing it again.",
    "The neighbours helped a lot, especially with carrying the heavy boxes up the stairs.",
    "I wrote down the details so I would not forget them when we plan the next step.",
    "There were a few surprises along the way but nothing we could not handle together.",
  ];
  const turns = [];
  for (let turn = 0; turn < 40; turn++) {
    let text = `About ${subjects[turn % subjects.length]}:`;
    for (let sentence = 0; sentence < 2 + (turn % 4); sentence++) {
      text += ` ${sentences[(turn * 5 + sentence) % sentences.length]}`;
    }
    turns.push({
      text,
      role: turn % 2 === 0 ? "user" : "assistant",
      speaker: turn % 2 === 0 ? "Alice" : "Assistant",
      session_id: `session-${Math.floor(turn / 8)}`,
      event_time: `2024-05-0${1 + Math.floor(turn / 8)}T10:00:00Z`,
    });
  }
  return turns;
}

// Issue 41: a recall for a 2,000-token budget answered ~25,000 characters, its items repeating
// the context. The whole result, as the SDK hands it over, is now at most 1.3 times the context.
async function recallFitsTheBudget(client, scope) {
  const written = await client.callTool({
    name: "memory_write",
    arguments: { scope, turns: conversation() },
  });
  assert.equal(written.isError, false, written.content[0].text);
  const result = await client.callTool({
    name: "memory_recall",
    arguments: { scope, query: "What happened with the Lisbon apartment?", token_budget: 2000 },
  });
  assert.equal(result.isError, false, result.content[0].text);
  const recall = recallOf(result);
  const whole = JSON.stringify(result).length;
  assert.ok(
    whole <= 1.3 * recall.context.length,
    `the result is ${whole} characters for a context of ${recall.context.length}`,
  );
  // The budget bounds the context, not a shortage of memories.
  assert.ok(recall.context_tokens > 1500 && recall.context_tokens <= 2000, `${recall.context_tokens} tokens`);
  assert.ok(recall.items.length >= 10, `${recall.items.length} items`);
  // Each item is a reference the model can follow.
  const [firstId] = recall.items[0];
  const read = await client.callTool({ name: "memory_read", arguments: { id: firstId } });
  assert.equal(read.structuredContent.memory.scope, scope);
}

function newClient() {
  return new Client({ name: "engram-sdk-test", version: "1.0.0" });
}

// Starts `engram <args>` (mcp --http or serve on 127.0.0.1:0) and resolves with the
// MCP url its stderr announces (`announced` matches it, group 1 the url up to the port or /mcp)
// and a stop() that sends SIGTERM and asserts a clean exit.
async function startServer(name, args, announced) {
  const server = spawn(engram, args, { stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  const url = await new Promise((resolve, reject) => {
    server.stderr.on("data", (chunk) => {
      log += chunk;
      const found = log.match(announced);
      if (found) resolve(found[1].endsWith("/mcp") ? found[1] : `${found[1]}/mcp`);
    });
    server.on("exit", (code) => reject(new Error(`${name} exited (${code}): ${log}`)));
  });
  const stop = async () => {
    const exited = new Promise((resolve) =>
      server.exitCode !== null || server.signalCode !== null
        ? resolve([server.exitCode, server.signalCode])
        : server.on("exit", (code, signal) => resolve([code, signal])),
    );
    server.kill("SIGTERM");
    assert.deepEqual(await exited, [0, null], `${name}: ${log}`);
  };
  return { url, stop };
}

after(() => rmSync(workDir, { recursive: true, force: true }));

describe("engram mcp over stdio", () => {
  test("round trip with the SDK client", async () => {
    const transport = new StdioClientTransport({
      command: engram,
      args: engramArgs("stdio.db"),
      stderr: "pipe",
    });
    const client = newClient();
    await client.connect(transport);
    try {
      await roundTrip(client);
    } finally {
      await client.close();
    }
  });

  test("a recall's result is sized to its token budget", async () => {
    const transport = new StdioClientTransport({ command: engram, args: engramArgs("size.db"), stderr: "pipe" });
    const client = newClient();
    await client.connect(transport);
    try {
      await recallFitsTheBudget(client, "user:alice");
    } finally {
      await client.close();
    }
  });

  test("--scope pins the scope: the model names none", async () => {
    const transport = new StdioClientTransport({
      command: engram,
      args: [...engramArgs("pinned.db"), "--scope", "user:alice"],
      stderr: "pipe",
    });
    const client = newClient();
    await client.connect(transport);
    try {
      assert.match(client.getInstructions(), /the tools work in scope user:alice/);
      const { tools } = await client.listTools();
      const recallTool = tools.find((tool) => tool.name === "memory_recall");
      assert.deepEqual(recallTool.inputSchema.required, ["query"]);
      assert.match(recallTool.description, /Works in scope user:alice unless `scope` names another/);
      const purgeTool = tools.find((tool) => tool.name === "memory_purge_scope");
      assert.deepEqual(purgeTool.inputSchema.required, ["scope", "confirm"]);

      const written = await client.callTool({
        name: "memory_write",
        arguments: { turns: [{ text: "My sister Maya lives in Porto.", speaker: "Alice" }] },
      });
      assert.equal(written.isError, false, written.content[0].text);
      assert.equal(written.structuredContent.scope, "user:alice");
      const recalled = await client.callTool({
        name: "memory_recall",
        arguments: { query: "Where does Maya live?" },
      });
      assert.equal(recalled.isError, false, recalled.content[0].text);
      assert.equal(recallOf(recalled).scope, "user:alice");
      assert.match(recallOf(recalled).context, /Porto/);
    } finally {
      await client.close();
    }
  });

  test("exits cleanly at end of input with one reply per request, long lines included", async () => {
    const child = spawn(engram, ["--quiet", ...engramArgs("eof.db")], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    child.stdin.write("not json\n");
    // A line over the 4 MiB message limit is skipped whole and answered with an error.
    child.stdin.write(`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"${"a".repeat(5 << 20)}"}}\n`);
    child.stdin.write('{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    child.stdin.end();
    const code = await new Promise((resolve) => child.on("exit", resolve));
    assert.equal(code, 0);
    const lines = stdout.trimEnd().split("\n").map((line) => JSON.parse(line));
    assert.equal(lines.length, 4);
    assert.deepEqual(lines[0], { jsonrpc: "2.0", id: 1, result: {} });
    assert.equal(lines[1].error.code, -32700);
    assert.equal(lines[2].error.code, -32600);
    assert.match(lines[2].error.message, /longer than/);
    assert.deepEqual(lines[3], { jsonrpc: "2.0", id: 3, result: {} });
  });
});

describe("engram mcp over streamable HTTP", () => {
  let url;
  let stop;

  before(async () => {
    ({ url, stop } = await startServer(
      "engram mcp --http",
      [...engramArgs("http.db"), "--http", "127.0.0.1:0"],
      /listening on (http:\/\/\S+\/mcp)\n/,
    ));
  });

  after(() => stop());

  test("round trip with the SDK client, then the session ends", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(url));
    const client = newClient();
    await client.connect(transport);
    assert.match(transport.sessionId, /^[0-9a-f]{32}$/);
    await roundTrip(client);
    const sessionId = transport.sessionId;
    await transport.terminateSession();
    // The ended session is gone: the server answers 404.
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "Mcp-Session-Id": sessionId,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }),
    });
    assert.equal(response.status, 404);
    await client.close();
  });

  test("a foreign Origin is refused", async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        Origin: "http://evil.example.com",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
      }),
    });
    assert.equal(response.status, 403);
  });

  test("a DNS-rebound Host is refused before the body is read", async () => {
    // fetch() cannot set Host; node:http can, as a rebound page's browser would send it.
    const target = new URL(url);
    const initialize = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    });
    const answer = await new Promise((resolve, reject) => {
      const sent = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: "/mcp",
          method: "POST",
          headers: {
            Host: `evil.example:${target.port}`,
            "Content-Type": "application/json",
            Accept: "application/json, text/event-stream",
          },
        },
        (response) => {
          let body = "";
          response.on("data", (chunk) => (body += chunk));
          response.on("end", () => resolve({ status: response.statusCode, body }));
        },
      );
      sent.on("error", reject);
      sent.end(initialize);
    });
    assert.equal(answer.status, 403, answer.body);
    assert.match(answer.body, /Host/);
  });

  test("GET opens no stream: 405 naming the methods allowed", async () => {
    const response = await fetch(url, { headers: { Accept: "text/event-stream" } });
    assert.equal(response.status, 405);
    assert.equal(response.headers.get("allow"), "POST, DELETE");
  });
});

describe("engram serve's /mcp endpoint", () => {
  let url;
  let stop;

  before(async () => {
    ({ url, stop } = await startServer(
      "engram serve",
      ["--store", join(workDir, "serve.db"), "--config", configPath, "serve", "--listen", "127.0.0.1:0"],
      / on (http:\/\/127\.0\.0\.1:\d+)\n/,
    ));
  });

  after(() => stop());

  test("round trip with the SDK client", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(url));
    const client = newClient();
    await client.connect(transport);
    assert.match(transport.sessionId, /^[0-9a-f]{32}$/);
    await roundTrip(client);
    await transport.terminateSession();
    await client.close();
  });
});

describe("engram serve's /mcp endpoint with API keys", () => {
  let url;
  let key;
  let stop;

  before(async () => {
    const keysPath = join(workDir, "keys.json");
    const created = spawnSync(
      engram,
      ["keys", "create", "--keys", keysPath, "--scope", "user:carol", "--rights", "read,write"],
      { encoding: "utf8" },
    );
    assert.equal(created.status, 0, created.stderr);
    key = created.stdout.trim();
    ({ url, stop } = await startServer(
      "engram serve --keys",
      [
        "--store", join(workDir, "keyed.db"), "--config", configPath,
        "serve", "--listen", "127.0.0.1:0", "--keys", keysPath,
      ],
      / on (http:\/\/127\.0\.0\.1:\d+)\n/,
    ));
  });

  after(() => stop());

  test("the key's scope is the default, and a missing right is PERMISSION_DENIED", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    });
    const client = newClient();
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      const recallTool = tools.find((tool) => tool.name === "memory_recall");
      assert.deepEqual(recallTool.inputSchema.required, ["query"]);
      assert.match(recallTool.description, /Works in scope user:carol/);

      const written = await client.callTool({
        name: "memory_write",
        arguments: { turns: [{ text: "I moved to Oslo last spring.", speaker: "Carol" }] },
      });
      assert.equal(written.isError, false, written.content[0].text);
      assert.equal(written.structuredContent.scope, "user:carol");
      const recalled = await client.callTool({
        name: "memory_recall",
        arguments: { query: "Where does Carol live?" },
      });
      assert.match(recallOf(recalled).context, /Oslo/);

      // Outside the key's grant: a tool execution error naming the right, not a protocol error.
      const denied = await client.callTool({
        name: "memory_recall",
        arguments: { scope: "user:dave", query: "Where does Dave live?" },
      });
      assert.equal(denied.isError, true);
      assert.equal(denied.content[0].text, "PERMISSION_DENIED: this caller has no read right on scope user:dave");
      const erase = await client.callTool({
        name: "memory_purge_scope",
        arguments: { scope: "user:carol", confirm: true },
      });
      assert.equal(erase.isError, true);
      assert.equal(erase.content[0].text, "PERMISSION_DENIED: this caller has no erase right on scope user:carol");

      await recallFitsTheBudget(client, "user:carol/run:1");
      await transport.terminateSession();
    } finally {
      await client.close();
    }
  });
});

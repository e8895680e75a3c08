// mem0's quick-start with mem0's own platform client, unchanged: MemoryClient of the pinned npm
// mem0ai package, its `host` pointed at a real `engram serve` on loopback. add, search (filters,
// topK), getAll, get, update, history, delete, deleteAll, ping, users / deleteUsers, batch update
// and delete; the same memories from the self-hosted /search route; and with API keys, the key
// as the client's Token (another user's scope is refused, a wrong key fails ping). Every request
// the client makes must go to the test's server: anything else fails the test.
//
//   ENGRAM_BIN=build/engram MEM0_TELEMETRY=false node --test tests/mem0/node/memory_client.test.mjs
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";

const engram = process.env.ENGRAM_BIN;
if (!engram) throw new Error("ENGRAM_BIN must name the engram binary");

const workDir = mkdtempSync(join(tmpdir(), "engram-mem0-client-"));
const configPath = join(workDir, "engram.toml");
// The hashing embedder needs no model files.
writeFileSync(configPath, '[embedder]\nkind = "hashing"\n');

// The client reports usage to mem0 and keeps a config under ~/.mem0 unless told otherwise;
// both are read when the package loads, so it is imported after this.
process.env.MEM0_TELEMETRY = "false";
process.env.MEM0_DIR = join(workDir, "mem0-home");

// Every request must go to a loopback server this test started.
const requests = [];
const realFetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
  requests.push(`${init?.method ?? "GET"} ${url.pathname}`);
  if (url.hostname !== "127.0.0.1") {
    return Promise.reject(new Error(`the client tried to reach ${url.origin}`));
  }
  return realFetch(input, init);
};
const { MemoryClient } = await import("mem0ai");

async function startServer(name, args) {
  const server = spawn(engram, args, { stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  const url = await new Promise((resolve, reject) => {
    server.stderr.on("data", (chunk) => {
      log += chunk;
      const found = log.match(/ on (http:\/\/127\.0\.0\.1:\d+)\n/);
      if (found) resolve(found[1]);
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

function serveArgs(store, ...extra) {
  return ["--store", join(workDir, store), "--config", configPath, "serve",
    "--listen", "127.0.0.1:0", ...extra];
}

after(() => rmSync(workDir, { recursive: true, force: true }));

describe("MemoryClient against engram serve without keys", () => {
  let url;
  let stop;
  let client;

  before(async () => {
    ({ url, stop } = await startServer("engram serve", serveArgs("open.db")));
    // Without --keys any token is accepted on loopback; the client insists on one.
    client = new MemoryClient({ apiKey: "any-token", host: url });
  });

  after(async () => {
    await stop();
    assert.deepEqual(
      requests.filter((request) => !/^(GET|POST|PUT|DELETE) \/(v1|v2|v3|search)\b/.test(request)),
      [],
    );
  });

  test("mem0's quick-start: add, search, get, update, history, delete", async () => {
    await client.ping();

    const added = await client.add(
      [
        { role: "user", content: "I'm a vegetarian and allergic to nuts." },
        { role: "assistant", content: "Got it! I'll remember your dietary preferences." },
      ],
      { userId: "alex", metadata: { source: "onboarding" } },
    );
    assert.equal(added.results.length, 2);
    assert.deepEqual(added.results.map((result) => result.event), ["ADD", "ADD"]);
    const [dietId] = added.results.map((result) => result.id);

    // The same message again is mem0's NONE: not stored twice.
    const again = await client.add([{ role: "user", content: "I'm a vegetarian and allergic to nuts." }],
      { userId: "alex", metadata: { source: "onboarding" } });
    assert.equal(again.results[0].event, "NONE");
    assert.equal(again.results[0].id, dietId);

    await client.add([{ role: "user", content: "I play tennis on Sundays." }],
      { userId: "alex", metadata: { source: "chat", priority: 3 } });
    await client.add([{ role: "user", content: "I am allergic to nuts as well." }], { userId: "bob" });

    const found = await client.search("What are my dietary restrictions?", {
      filters: { user_id: "alex" },
      topK: 2,
    });
    assert.ok(found.results.length >= 1 && found.results.length <= 2, JSON.stringify(found));
    assert.equal(found.results[0].id, dietId);
    assert.equal(found.results[0].memory, "I'm a vegetarian and allergic to nuts.");
    assert.equal(found.results[0].userId, "alex");
    assert.equal(typeof found.results[0].score, "number");
    assert.ok(found.results.every((result) => result.userId === "alex"));

    // Filters: operators and metadata conditions, identifiers inside AND.
    const tennis = await client.search("Sundays", {
      filters: { AND: [{ user_id: "alex" }, { metadata: { source: "chat" } }, { priority: { gte: 2 } }] },
    });
    assert.deepEqual(tennis.results.map((result) => result.memory), ["I play tennis on Sundays."]);

    // The self-hosted route gives the same memories for the same question.
    const selfHosted = await (await fetch(`${url}/search`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ query: "What are my dietary restrictions?", user_id: "alex", top_k: 2 }),
    })).json();
    assert.deepEqual(selfHosted.results.map((result) => result.id), found.results.map((result) => result.id));

    const all = await client.getAll({ filters: { user_id: "alex" }, page: 1, pageSize: 10 });
    assert.equal(all.count, 3);
    assert.deepEqual(all.results.map((memory) => memory.memory), [
      "I'm a vegetarian and allergic to nuts.",
      "Got it! I'll remember your dietary preferences.",
      "I play tennis on Sundays.",
    ]);

    const memory = await client.get(dietId);
    assert.equal(memory.memory, "I'm a vegetarian and allergic to nuts.");
    assert.deepEqual(memory.metadata, { source: "onboarding" });
    // The same path without mem0's trailing '/' is engram's native route, in its own shape.
    const native = await (await fetch(`${url}/v1/memories/${dietId}`)).json();
    assert.equal(native.id, dietId);
    assert.equal(native.kind, "turn");
    assert.equal(native.memory, undefined);

    const updated = await client.update(dietId, { text: "I'm vegan and allergic to nuts." });
    assert.equal(updated.memory, "I'm vegan and allergic to nuts.");
    // The old id names the memory as it now is.
    assert.equal((await client.get(dietId)).memory, "I'm vegan and allergic to nuts.");
    const history = await client.history(dietId);
    assert.deepEqual(history.map((entry) => entry.event), ["ADD", "UPDATE"]);
    assert.equal(history[1].oldMemory, "I'm a vegetarian and allergic to nuts.");
    assert.equal(history[1].newMemory, "I'm vegan and allergic to nuts.");

    const deleted = await client.delete(dietId);
    assert.match(deleted.message, /deleted/i);
    await assert.rejects(client.get(dietId), { name: "MemoryNotFoundError" });
  });

  test("users, batch update and delete, deleteAll and deleteUsers", async () => {
    const users = await client.users();
    const byName = Object.fromEntries(users.results.map((user) => [`${user.type}:${user.name}`, user]));
    assert.equal(byName["user:alex"].totalMemories, 2);
    assert.equal(byName["user:bob"].totalMemories, 1);

    const alex = await client.getAll({ filters: { user_id: "alex" } });
    const ids = alex.results.map((memory) => memory.id);
    const batch = await client.batchUpdate(
      ids.map((memoryId, index) => ({ memoryId, text: `Alex's memory number ${index + 1}.` })),
    );
    assert.equal(batch.message, `Successfully updated ${ids.length} memories`);
    assert.deepEqual((await client.getAll({ filters: { user_id: "alex" } })).results.map((m) => m.memory),
      ids.map((_, index) => `Alex's memory number ${index + 1}.`));
    // A batch naming a memory that does not exist changes nothing.
    await assert.rejects(client.batchDelete([ids[0], "0".repeat(32)]), { name: "MemoryNotFoundError" });
    assert.equal((await client.getAll({ filters: { user_id: "alex" } })).count, ids.length);
    await client.batchDelete([ids[0]]);
    assert.equal((await client.getAll({ filters: { user_id: "alex" } })).count, ids.length - 1);

    const cleared = await client.deleteAll({ userId: "alex" });
    assert.match(cleared.message, /deleted/i);
    assert.equal((await client.getAll({ filters: { user_id: "alex" } })).count, 0);

    await client.deleteUsers({ userId: "bob" });
    assert.deepEqual((await client.users()).results, []);
  });

  test("what engram cannot honour is refused, naming the field", async () => {
    await assert.rejects(
      client.add([{ role: "user", content: "Hello." }], { userId: "alex", appId: "crm" }),
      (error) => error.name === "ValidationError" && /app_id/.test(error.message),
    );
    await assert.rejects(client.search("anything", { filters: { topic: "food" } }),
      (error) => error.name === "ValidationError" && /user_id/.test(error.message));
  });
});

describe("MemoryClient against engram serve with API keys", () => {
  let url;
  let stop;
  let key;

  before(async () => {
    const keysPath = join(workDir, "keys.json");
    const created = spawnSync(
      engram,
      ["keys", "create", "--keys", keysPath, "--scope", "user:carol", "--rights", "read,write"],
      { encoding: "utf8" },
    );
    assert.equal(created.status, 0, created.stderr);
    key = created.stdout.trim();
    ({ url, stop } = await startServer("engram serve --keys", serveArgs("keyed.db", "--keys", keysPath)));
  });

  after(() => stop());

  test("an engram key is the client's Token; its scope bounds what it reaches", async () => {
    const client = new MemoryClient({ apiKey: key, host: url });
    await client.ping();
    const added = await client.add([{ role: "user", content: "I moved to Oslo." }], { userId: "carol" });
    assert.equal(added.results[0].event, "ADD");
    const found = await client.search("Where did I move?", { filters: { user_id: "carol" } });
    assert.equal(found.results[0].memory, "I moved to Oslo.");
    await assert.rejects(
      client.add([{ role: "user", content: "Hello." }], { userId: "dave" }),
      { name: "AuthenticationError" },
    );
    const users = await client.users();
    assert.deepEqual(users.results.map((user) => user.id), ["user:carol"]);

    const stranger = new MemoryClient({ apiKey: "not-a-key", host: url });
    await assert.rejects(stranger.ping(), { name: "AuthenticationError" });
  });
});

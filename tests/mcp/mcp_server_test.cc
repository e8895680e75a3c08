// The MCP server's protocol core and streamable HTTP handler, driven in process: every method,
// every tool's success and isError paths, access rules, hostile input, sessions and headers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "auth/access.h"
#include "engram/engine.h"
#include "mcp/http_transport.h"
#include "mcp/server.h"
#include "test_util.h"

namespace engram::mcp {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr std::size_t kMaxTurnBytes = 2048;

class McpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions options = engram::testing::TestOptions(dir_);
    Config config;
    config.embedder.kind = "hashing";
    config.limits.max_turn_bytes = kMaxTurnBytes;
    config.graph.edge_types = "owns:single_valued, knows";  // memory_link's types
    options.config = config;
    engine_ = engram::testing::OpenOrDie(options);
    server_ = std::make_unique<McpServer>(*engine_);
  }

  // Sends one message and returns the parsed reply (null when there is none).
  json Send(const std::string& text, const auth::Access& access = auth::Access::Unrestricted()) {
    std::optional<std::string> reply = server_->HandleMessage(text, session_, access);
    if (!reply) return nullptr;
    EXPECT_EQ(reply->find('\n'), std::string::npos) << "a reply is one line";
    return json::parse(*reply);
  }

  json Request(const std::string& method, const json& params = json::object(),
               const auth::Access& access = auth::Access::Unrestricted()) {
    json message = {{"jsonrpc", "2.0"}, {"id", ++next_id_}, {"method", method}, {"params", params}};
    json reply = Send(message.dump(), access);
    EXPECT_EQ(reply.value("id", json()), next_id_) << reply.dump();
    return reply;
  }

  // tools/call; returns the CallToolResult.
  json Tool(const std::string& name, const json& arguments,
            const auth::Access& access = auth::Access::Unrestricted()) {
    json reply = Request("tools/call", {{"name", name}, {"arguments", arguments}}, access);
    EXPECT_TRUE(reply.contains("result")) << reply.dump();
    return reply.value("result", json::object());
  }

  // A successful tool call's structuredContent (and a check that the text item carries it).
  json ToolOk(const std::string& name, const json& arguments,
              const auth::Access& access = auth::Access::Unrestricted()) {
    json result = Tool(name, arguments, access);
    EXPECT_EQ(result.value("isError", true), false) << result.dump();
    EXPECT_EQ(result["content"][0]["type"], "text");
    EXPECT_EQ(json::parse(result["content"][0]["text"].get<std::string>()),
              result["structuredContent"]);
    return result["structuredContent"];
  }

  // A failed tool call's message.
  std::string ToolError(const std::string& name, const json& arguments,
                        const auth::Access& access = auth::Access::Unrestricted()) {
    json result = Tool(name, arguments, access);
    EXPECT_EQ(result.value("isError", false), true) << result.dump();
    EXPECT_FALSE(result.contains("structuredContent"));
    return result["content"][0].value("text", "");
  }

  // A successful memory_recall's result: the JSON of its one text item (it has no
  // structuredContent, so no host shows the model the context twice).
  json RecallOk(const json& arguments, const auth::Access& access = auth::Access::Unrestricted()) {
    json result = Tool("memory_recall", arguments, access);
    EXPECT_EQ(result.value("isError", true), false) << result.dump();
    EXPECT_FALSE(result.contains("structuredContent"));
    EXPECT_EQ(result["content"].size(), 1u);
    return json::parse(result["content"][0].value("text", "null"));
  }

  std::vector<std::string> WriteAlice() {
    json written = ToolOk("memory_write",
                          {{"scope", "user:alice"},
                           {"turns",
                            {{{"text", "My sister Maya lives in Porto."}, {"speaker", "Alice"}},
                             {{"text", "I adopted a cat called Miso."},
                              {"speaker", "Alice"},
                              {"event_time", "2024-05-01T10:00:00Z"},
                              {"metadata", {{"source", "chat"}}}}}}});
    return written["ids"].get<std::vector<std::string>>();
  }

  engram::testing::TempDir dir_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<McpServer> server_;
  Session session_;
  int next_id_ = 0;
};

// ---- lifecycle -------------------------------------------------------------------------------

TEST_F(McpServerTest, InitializeEchoesASupportedSessionVersion) {
  for (const std::string version : {"2025-06-18", "2025-11-25"}) {
    json reply = Request("initialize", {{"protocolVersion", version},
                                        {"capabilities", json::object()},
                                        {"clientInfo", {{"name", "test"}, {"version", "1"}}}});
    EXPECT_EQ(reply["result"]["protocolVersion"], version);
    EXPECT_EQ(session_.protocol_version, version);
    EXPECT_EQ(session_.client_name, "test");
  }
}

TEST_F(McpServerTest, InitializeAnswersAnUnknownVersionWithTheLatest) {
  json reply = Request("initialize", {{"protocolVersion", "1999-01-01"}});
  EXPECT_EQ(reply["result"]["protocolVersion"], "2025-11-25");
  // The stateless revision has no handshake: an initialize asking for it gets a session version.
  reply = Request("initialize", {{"protocolVersion", "2026-07-28"}});
  EXPECT_EQ(reply["result"]["protocolVersion"], "2025-11-25");
}

TEST_F(McpServerTest, InitializeDeclaresOnlyTools) {
  json result = Request("initialize", {{"protocolVersion", "2025-11-25"}})["result"];
  EXPECT_EQ(result["capabilities"], json({{"tools", {{"listChanged", false}}}}));
  EXPECT_EQ(result["serverInfo"]["name"], "engram");
  EXPECT_THAT(result["instructions"].get<std::string>(), HasSubstr("memory_recall"));
  EXPECT_FALSE(result.contains("resultType"));
}

TEST_F(McpServerTest, InitializeWithoutVersionIsInvalidParams) {
  json reply = Request("initialize", json::object());
  EXPECT_EQ(reply["error"]["code"], error_code::kInvalidParams);
}

TEST_F(McpServerTest, InitializedNotificationGetsNoReply) {
  EXPECT_TRUE(Send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})").is_null());
  EXPECT_TRUE(session_.initialized);
  EXPECT_TRUE(Send(R"({"jsonrpc":"2.0","method":"notifications/whatever"})").is_null());
}

TEST_F(McpServerTest, PingAnswersEmptyResult) {
  EXPECT_EQ(Request("ping")["result"], json::object());
}

TEST_F(McpServerTest, ClientResponsesAreDropped) {
  EXPECT_TRUE(Send(R"({"jsonrpc":"2.0","id":7,"result":{}})").is_null());
}

TEST_F(McpServerTest, ToolsListNamesTheElevenToolsWithStrictSchemas) {
  json tools = Request("tools/list")["result"]["tools"];
  std::vector<std::string> names;
  for (const json& tool : tools) {
    names.push_back(tool["name"]);
    EXPECT_EQ(tool["inputSchema"]["type"], "object");
    EXPECT_EQ(tool["inputSchema"]["additionalProperties"], false) << tool["name"];
    if (tool["name"] == "memory_recall") {
      // Its result is one text item sized to the token budget, not structuredContent.
      EXPECT_FALSE(tool.contains("outputSchema"));
    } else {
      EXPECT_EQ(tool["outputSchema"]["type"], "object") << tool["name"];
    }
    EXPECT_EQ(tool["annotations"]["openWorldHint"], false);
  }
  EXPECT_THAT(
      names, ElementsAre("memory_write", "memory_recall", "memory_list", "memory_read",
                         "memory_amend", "memory_retire", "memory_retire_all", "memory_purge_scope",
                         "memory_list_scopes", "memory_consolidate", "memory_structure",
                         "memory_graph", "memory_link", "memory_unlink"));
  EXPECT_EQ(tools[11]["annotations"]["readOnlyHint"], true);
  EXPECT_EQ(tools[11]["inputSchema"]["required"], json({"id", "what"}));
  EXPECT_EQ(tools[12]["annotations"]["readOnlyHint"], false);
  EXPECT_EQ(tools[12]["inputSchema"]["required"], json({"scope", "type", "src", "dst"}));
  EXPECT_EQ(tools[13]["annotations"]["readOnlyHint"], false);
  EXPECT_EQ(tools[9]["annotations"]["readOnlyHint"], false);
  EXPECT_EQ(tools[9]["annotations"]["idempotentHint"], true);
  EXPECT_EQ(tools[10]["annotations"]["readOnlyHint"], true);
  EXPECT_EQ(tools[10]["inputSchema"]["required"], json({"scope", "what"}));
  EXPECT_EQ(tools[1]["annotations"]["readOnlyHint"], true);
  EXPECT_EQ(tools[7]["annotations"]["destructiveHint"], true);
  EXPECT_EQ(tools[0]["annotations"]["readOnlyHint"], false);
  EXPECT_EQ(tools[0]["annotations"]["destructiveHint"], false);
  EXPECT_EQ(tools[7]["inputSchema"]["properties"]["confirm"]["const"], true);
  EXPECT_EQ(tools[1]["inputSchema"]["required"], json({"scope", "query"}));
}

TEST_F(McpServerTest, ToolsListRefusesACursorItNeverIssued) {
  EXPECT_EQ(Request("tools/list", {{"cursor", "abc"}})["error"]["code"],
            error_code::kInvalidParams);
}

// ---- JSON-RPC errors and hostile input ------------------------------------------------------

TEST_F(McpServerTest, MalformedJsonIsParseError) {
  json reply = Send("{\"jsonrpc\":\"2.0\",");
  EXPECT_EQ(reply["error"]["code"], error_code::kParseError);
  EXPECT_TRUE(reply["id"].is_null());
}

TEST_F(McpServerTest, InvalidUtf8IsParseError) {
  json reply = Send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"\xff\xfe\"}");
  EXPECT_EQ(reply["error"]["code"], error_code::kParseError);
  EXPECT_THAT(reply["error"]["message"].get<std::string>(), HasSubstr("UTF-8"));
}

TEST_F(McpServerTest, DuplicateKeysAreParseError) {
  json reply = Send(R"({"jsonrpc":"2.0","id":1,"id":2,"method":"ping"})");
  EXPECT_EQ(reply["error"]["code"], error_code::kParseError);
  EXPECT_THAT(reply["error"]["message"].get<std::string>(), HasSubstr("\"id\""));
}

TEST_F(McpServerTest, DeepNestingIsRefusedBeforeParsing) {
  std::string deep = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":)";
  deep += std::string(100000, '[') + std::string(100000, ']') + "}}";
  json reply = Send(deep);
  EXPECT_EQ(reply["error"]["code"], error_code::kInvalidRequest);
  EXPECT_THAT(reply["error"]["message"].get<std::string>(), HasSubstr("nested deeper than 64"));
}

TEST_F(McpServerTest, OversizedMessageIsRefused) {
  const std::string big = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":")" +
                          std::string(server_->options().max_message_bytes, 'a') + "\"}}";
  json reply = Send(big);
  EXPECT_EQ(reply["error"]["code"], error_code::kInvalidRequest);
  EXPECT_THAT(reply["error"]["message"].get<std::string>(), HasSubstr("the limit is"));
}

TEST_F(McpServerTest, WrongJsonRpcVersionIsInvalidRequestWithTheId) {
  json reply = Send(R"({"jsonrpc":"1.0","id":"abc","method":"ping"})");
  EXPECT_EQ(reply["error"]["code"], error_code::kInvalidRequest);
  EXPECT_EQ(reply["id"], "abc");
  EXPECT_EQ(Send(R"({"id":1,"method":"ping"})")["error"]["code"], error_code::kInvalidRequest);
}

TEST_F(McpServerTest, BatchesAreInvalidRequests) {
  json reply = Send(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])");
  EXPECT_EQ(reply["error"]["code"], error_code::kInvalidRequest);
  EXPECT_THAT(reply["error"]["message"].get<std::string>(), HasSubstr("batches"));
  EXPECT_EQ(Send("42")["error"]["code"], error_code::kInvalidRequest);
}

TEST_F(McpServerTest, IdsMustBeStringsOrIntegers) {
  EXPECT_EQ(Send(R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})")["error"]["code"],
            error_code::kInvalidRequest);
  EXPECT_EQ(Send(R"({"jsonrpc":"2.0","id":null,"method":"ping"})")["error"]["code"],
            error_code::kInvalidRequest);
  EXPECT_EQ(Send(R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})")["error"]["code"],
            error_code::kInvalidRequest);
  const std::string long_id(300, 'x');
  EXPECT_EQ(Send(R"({"jsonrpc":"2.0","id":")" + long_id + R"(","method":"ping"})")["error"]["code"],
            error_code::kInvalidRequest);
  // The largest unsigned and the smallest signed 64-bit ids are echoed exactly.
  json reply = Send(R"({"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"})");
  EXPECT_EQ(reply["id"].get<std::uint64_t>(), 18446744073709551615ULL);
  reply = Send(R"({"jsonrpc":"2.0","id":-9223372036854775808,"method":"ping"})");
  EXPECT_EQ(reply["id"].get<std::int64_t>(), INT64_MIN);
  // Beyond 64 bits an id is a float to the parser, and so not an integer.
  EXPECT_EQ(
      Send(R"({"jsonrpc":"2.0","id":99999999999999999999999,"method":"ping"})")["error"]["code"],
      error_code::kInvalidRequest);
}

TEST_F(McpServerTest, UnknownMethodIsMethodNotFound) {
  json reply = Request("resources/list");
  EXPECT_EQ(reply["error"]["code"], error_code::kMethodNotFound);
  EXPECT_EQ(Request("logging/setLevel", {{"level", "info"}})["error"]["code"],
            error_code::kMethodNotFound);
}

TEST_F(McpServerTest, NonObjectParamsAreInvalidParams) {
  EXPECT_EQ(Send(R"({"jsonrpc":"2.0","id":1,"method":"ping","params":[1]})")["error"]["code"],
            error_code::kInvalidParams);
}

TEST_F(McpServerTest, UnknownToolIsInvalidParams) {
  json reply = Request("tools/call", {{"name", "memory_forget_everything"}});
  EXPECT_EQ(reply["error"]["code"], error_code::kInvalidParams);
  EXPECT_THAT(reply["error"]["message"].get<std::string>(), HasSubstr("unknown tool"));
  EXPECT_EQ(Request("tools/call", {{"name", 7}})["error"]["code"], error_code::kInvalidParams);
}

// ---- tools: success ----------------------------------------------------------------------------

TEST_F(McpServerTest, RecallWarnsInItsTextWhenTheWordVectorsAreMissing) {
  // Reopened on a data directory without the word vectors the config asks for (nor the
  // lexicons the write path's analysis needs: it is off).
  const engram::testing::TempDir no_data;
  server_.reset();
  engine_.reset();
  EngineOptions options = engram::testing::TestOptions(dir_, "no-vectors.db");
  Config config;
  config.embedder.kind = "hashing";
  config.write.facts = false;
  config.write.signals = false;
  config.write.entities = false;
  options.config = config;
  options.data_dir = no_data.path();
  engine_ = engram::testing::OpenOrDie(options);
  server_ = std::make_unique<McpServer>(*engine_);
  WriteAlice();
  // The agent reads the text content: the warning is there.
  const json result = RecallOk({{"scope", "user:alice"}, {"query", "Where does Maya live?"}});
  const json& warnings = result["warnings"];
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0].get<std::string>(),
              HasSubstr("word-vector matches off: word vectors file "));
  EXPECT_THAT(warnings[0].get<std::string>(), HasSubstr("scripts/fetch-models"));
  EXPECT_THAT(result["context"].get<std::string>(), HasSubstr("Porto"));
}

TEST_F(McpServerTest, WriteReturnsOneIdPerTurn) {
  const std::vector<std::string> ids = WriteAlice();
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_EQ(ids[0].size(), 32u);
  StatusOr<Memory> stored = engine_->Get(ids[1]);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->text, "I adopted a cat called Miso.");
  EXPECT_EQ(stored->scope, "user:alice");
  EXPECT_EQ(stored->speaker, "Alice");
}

TEST_F(McpServerTest, RecallReturnsTheContextAndItemsAsReferences) {
  const std::vector<std::string> ids = WriteAlice();
  json result = RecallOk({{"scope", "user:alice"}, {"query", "Where does Maya live?"}});
  EXPECT_EQ(result["scope"], "user:alice");
  EXPECT_EQ(result["policy"], "balanced");
  EXPECT_THAT(result["context"].get<std::string>(), HasSubstr("Porto"));
  EXPECT_THAT(result["answer_instructions"].get<std::string>(), HasSubstr("Answer from"));
  EXPECT_GT(result["context_tokens"].get<int>(), 0);
  ASSERT_FALSE(result["items"].empty());
  // The best item is the turn about Maya, as [id, score]: a turn of the recalled scope that is
  // its own evidence needs no more, and its text is the context's.
  const json& best = result["items"][0];
  ASSERT_EQ(best.size(), 2u) << best.dump();
  EXPECT_EQ(best[0], ids[0]);
  EXPECT_GT(best[1].get<double>(), 0.0);
  EXPECT_THAT(result.dump(), Not(HasSubstr("\"text\"")));
  // Without explain there are no diagnostics, and no warnings when nothing was degraded.
  EXPECT_FALSE(result.contains("diagnostics"));
  EXPECT_FALSE(result.contains("warnings"));
  EXPECT_FALSE(result.contains("note"));
  // Whether the context holds what was asked: here it does; about Oslo it does not.
  EXPECT_EQ(result["sufficiency"], "sufficient");
  EXPECT_FALSE(result.contains("sufficiency_reasons"));
  json oslo = RecallOk({{"scope", "user:alice"}, {"query", "Did Maya ever live in Oslo?"}});
  EXPECT_EQ(oslo["sufficiency"], "insufficient");
  EXPECT_THAT(oslo["sufficiency_reasons"].dump(), HasSubstr("no packed item mentions Oslo"));

  json explained = RecallOk({{"scope", "user:alice"},
                             {"query", "Where does Maya live?"},
                             {"explain", true},
                             {"k", 1},
                             {"policy", "strict"}});
  EXPECT_TRUE(explained["diagnostics"].contains("plan"));
  EXPECT_TRUE(explained["diagnostics"]["warnings"].is_array());
  ASSERT_EQ(explained["items"].size(), 1u);
  EXPECT_TRUE(explained["items"][0][2].contains("routes")) << explained["items"].dump();
  EXPECT_EQ(explained["policy"], "strict");

  // As of a time before anything was ingested: nothing was known, and the explanation says so.
  json before = RecallOk({{"scope", "user:alice"},
                          {"query", "Where does Maya live?"},
                          {"explain", true},
                          {"known_at", "2001-01-01T00:00:00Z"},
                          {"valid_at", "2001-01-01T00:00:00Z"}});
  EXPECT_TRUE(before["items"].empty());
  EXPECT_EQ(before["note"], "nothing stored in scope user:alice matched the query");
  EXPECT_GE(before["diagnostics"]["filtered_by"]["known_at"].get<int>(), 1);
}

// Issue 41: a recall answered ~25,000 characters for a 2,000-token budget, its items repeating
// the context's text (twice over: structuredContent and the text item). The whole tool result
// is now at most 1.3 times the packed context.
TEST_F(McpServerTest, RecallIsSizedToTheTokenBudget) {
  const std::vector<std::string> sentences = {
      "We talked it through over dinner and decided to wait a few weeks before changing anything.",
      "It took longer than expected, mostly because the paperwork kept coming back with questions.",
      "Honestly it was the highlight of the month, and I keep thinking about doing it again.",
      "The neighbours helped a lot, especially with carrying the heavy boxes up the stairs.",
      "I wrote down the details so I would not forget them when we plan the next step.",
      "There were a few surprises along the way but nothing we could not handle together."};
  const std::vector<std::string> subjects = {
      "the garden",      "my sister Maya", "the Lisbon apartment", "the cello lessons",
      "our dog Biscuit", "the migration",  "the trip to Japan",    "Sam's restaurant",
      "the marathon",    "the book club"};
  json turns = json::array();
  for (std::size_t turn_idx = 0; turn_idx < 40; ++turn_idx) {
    std::string text = "About " + subjects[turn_idx % subjects.size()] + ":";
    // Two to five sentences, so turns run from about 200 to 450 characters.
    for (std::size_t sentence_idx = 0; sentence_idx < 2 + turn_idx % 4; ++sentence_idx) {
      text += " " + sentences[(turn_idx + sentence_idx) % sentences.size()];
    }
    turns.push_back(
        {{"text", text},
         {"speaker", turn_idx % 2 == 0 ? "Alice" : "Assistant"},
         {"role", turn_idx % 2 == 0 ? "user" : "assistant"},
         {"session_id", "session-" + std::to_string(turn_idx / 8)},
         {"event_time", "2024-05-0" + std::to_string(1 + turn_idx / 8) + "T10:00:00Z"}});
  }
  ToolOk("memory_write", {{"scope", "user:alice"}, {"turns", turns}});

  const json result = Tool("memory_recall", {{"scope", "user:alice"},
                                             {"query", "What happened with the Lisbon apartment?"},
                                             {"token_budget", 2000}});
  ASSERT_EQ(result.value("isError", true), false) << result.dump();
  const json recall = json::parse(result["content"][0]["text"].get<std::string>());
  const std::string& context = recall["context"].get_ref<const std::string&>();
  const std::size_t whole = result.dump().size();
  EXPECT_LE(static_cast<double>(whole), 1.3 * static_cast<double>(context.size()))
      << whole << " bytes for a context of " << context.size();
  // The budget is what bounds the context here, not a shortage of memories.
  EXPECT_GT(recall.value("context_tokens", 0), 1500);
  EXPECT_LE(recall.value("context_tokens", 0), 2000);
  ASSERT_GE(recall["items"].size(), 10u);
  // Every item is a reference a later call can follow.
  for (const json& item : recall["items"]) {
    ASSERT_TRUE(item[0].is_string());
    EXPECT_EQ(ToolOk("memory_read", {{"id", item[0]}})["memory"]["scope"], "user:alice");
  }
}

TEST_F(McpServerTest, ListPagesBySequence) {
  const std::vector<std::string> ids = WriteAlice();
  json page = ToolOk("memory_list", {{"scope", "user:alice"}, {"limit", 1}});
  ASSERT_EQ(page["memories"].size(), 1u);
  EXPECT_EQ(page["memories"][0]["id"], ids[0]);
  EXPECT_EQ(page["next_after"], 1);
  json next = ToolOk("memory_list", {{"scope", "user:alice"}, {"limit", 1}, {"after", 1}});
  EXPECT_EQ(next["memories"][0]["id"], ids[1]);
  json rest = ToolOk("memory_list", {{"scope", "user:alice"}, {"after", 2}});
  EXPECT_TRUE(rest["memories"].empty());
  EXPECT_TRUE(rest["next_after"].is_null());
}

TEST_F(McpServerTest, ReadReturnsTheMemoryWithLinksAndHistory) {
  const std::vector<std::string> ids = WriteAlice();
  json read = ToolOk("memory_read", {{"id", ids[1]}, {"links", true}, {"history", true}});
  EXPECT_EQ(read["memory"]["text"], "I adopted a cat called Miso.");
  EXPECT_EQ(read["memory"]["metadata"], json({{"source", "chat"}}));
  EXPECT_EQ(read["memory"]["event_time"], "2024-05-01T10:00:00Z");
  EXPECT_TRUE(read["links"].is_array());
  ASSERT_FALSE(read["history"].empty());
  EXPECT_EQ(read["history"][0]["action"], "created");
  json plain = ToolOk("memory_read", {{"id", ids[0]}});
  EXPECT_FALSE(plain.contains("links"));
  EXPECT_FALSE(plain.contains("history"));
}

TEST_F(McpServerTest, RetireHidesFromRecallAndIsReportedOnce) {
  const std::vector<std::string> ids = WriteAlice();
  json retired = ToolOk("memory_retire", {{"id", ids[0]}, {"reason", "moved"}});
  EXPECT_EQ(retired["memory"]["status"], "retired");
  json recall = RecallOk({{"scope", "user:alice"}, {"query", "Where does Maya live?"}});
  for (const json& item : recall["items"]) EXPECT_NE(item[0], ids[0]);
  EXPECT_THAT(ToolError("memory_retire", {{"id", ids[0]}}), StartsWith("FAILED_PRECONDITION"));
}

TEST_F(McpServerTest, RetireAllCountsTheScopesMemories) {
  WriteAlice();
  json result = ToolOk("memory_retire_all", {{"scope", "user:alice"}});
  EXPECT_EQ(result["scope"], "user:alice");
  EXPECT_GE(result["retired"].get<int>(), 2);
}

TEST_F(McpServerTest, PurgeNeedsConfirmationThenErases) {
  WriteAlice();
  EXPECT_THAT(ToolError("memory_purge_scope", {{"scope", "user:alice"}, {"confirm", false}}),
              HasSubstr("must be true"));
  EXPECT_THAT(ToolError("memory_purge_scope", {{"scope", "user:alice"}}), HasSubstr("required"));
  EXPECT_EQ(ToolOk("memory_list_scopes", json::object())["scopes"].size(), 1u);
  json erased = ToolOk("memory_purge_scope", {{"scope", "user:alice"}, {"confirm", true}});
  EXPECT_GE(erased["nodes"].get<int>(), 2);
  EXPECT_TRUE(ToolOk("memory_list_scopes", json::object())["scopes"].empty());
}

TEST_F(McpServerTest, ListScopesCountsMemories) {
  WriteAlice();
  json scopes = ToolOk("memory_list_scopes", json::object())["scopes"];
  ASSERT_EQ(scopes.size(), 1u);
  EXPECT_EQ(scopes[0]["scope"], "user:alice");
  EXPECT_GE(scopes[0]["memories"].get<int>(), 2);
}

TEST_F(McpServerTest, ConsolidateThenReadTheStructure) {
  const std::vector<std::string> ids = WriteAlice();
  json result = ToolOk("memory_consolidate", {{"scope", "user:alice"}});
  EXPECT_EQ(result["scope"], "user:alice");
  EXPECT_EQ(result["turns"], ids.size());
  EXPECT_GE(result["episodes"].get<int>(), 1);
  EXPECT_EQ(ToolOk("memory_consolidate", {{"scope", "user:alice"}})["written"], 0);
  json episodes = ToolOk("memory_structure", {{"scope", "user:alice"}, {"what", "episodes"}});
  EXPECT_EQ(episodes["what"], "episodes");
  ASSERT_EQ(episodes["count"], result["episodes"]);
  EXPECT_EQ(episodes["episodes"][0]["turns"][0], ids[0]);
  EXPECT_EQ(ToolOk("memory_structure", {{"scope", "user:alice"}, {"what", "scenes"}})["count"],
            result["scenes"]);
  EXPECT_EQ(ToolOk("memory_structure", {{"scope", "user:alice"}, {"what", "profile"}})["count"],
            result["profiles"]);
  json foresight = ToolOk("memory_structure", {{"scope", "user:alice"},
                                               {"what", "foresight"},
                                               {"at", "2024-01-01T00:00:00Z"},
                                               {"all", true}});
  EXPECT_EQ(foresight["at"], "2024-01-01T00:00:00Z");

  // A chat-mode recall puts the consolidated profile before the evidence, with evidence ids.
  json chat =
      RecallOk({{"scope", "user:alice"}, {"query", "Where does Maya live?"}, {"mode", "chat"}});
  EXPECT_EQ(chat["mode"], "chat");
  ASSERT_FALSE(chat["chat"].empty()) << chat.dump(2);
  for (const json& line : chat["chat"]) {
    ASSERT_FALSE(line["evidence"].empty()) << line.dump();
    for (const json& id : line["evidence"]) {
      EXPECT_NE(std::find(ids.begin(), ids.end(), id.get<std::string>()), ids.end());
    }
  }
  EXPECT_THAT(chat["context"].get<std::string>(), HasSubstr("Porto"));

  // Rank packing on request: at most k items.
  json by_rank = RecallOk(
      {{"scope", "user:alice"}, {"query", "Where does Maya live?"}, {"packing", "rank"}, {"k", 1}});
  EXPECT_EQ(by_rank["items"].size(), 1u) << by_rank.dump(2);
}

TEST_F(McpServerTest, ConsolidationToolsRejectBadArguments) {
  WriteAlice();
  EXPECT_THAT(ToolError("memory_consolidate", {{"scope", "user:nobody"}}), StartsWith("NOT_FOUND"));
  EXPECT_THAT(ToolError("memory_structure", {{"scope", "user:nobody"}, {"what", "episodes"}}),
              StartsWith("NOT_FOUND"));
  EXPECT_THAT(ToolError("memory_consolidate", {{"scope", "planet:x"}}), HasSubstr("\"scope\""));
  EXPECT_THAT(ToolError("memory_consolidate", {{"scope", "user:alice"}, {"extra", 1}}),
              HasSubstr("extra"));
  EXPECT_THAT(ToolError("memory_structure", {{"scope", "user:alice"}, {"what", "dreams"}}),
              HasSubstr("\"what\""));
  EXPECT_THAT(ToolError("memory_structure", {{"scope", "user:alice"}}), HasSubstr("required"));
  EXPECT_THAT(ToolError("memory_structure",
                        {{"scope", "user:alice"}, {"what", "foresight"}, {"at", "tomorrow"}}),
              HasSubstr("\"at\""));
  EXPECT_THAT(
      ToolError("memory_structure",
                {{"scope", "user:alice"}, {"what", "foresight"}, {"at", std::string(100, '2')}}),
      HasSubstr("\"at\""));
}

TEST_F(McpServerTest, AmendSupersedesTheTurn) {
  const std::vector<std::string> ids = WriteAlice();
  json amended = ToolOk(
      "memory_amend",
      {{"id", ids[0]}, {"text", "My sister Maya lives in Lisbon."}, {"reason", "she moved"}});
  EXPECT_EQ(amended["superseded_id"], ids[0]);
  EXPECT_NE(amended["id"], ids[0]);
  json old = ToolOk("memory_read", {{"id", ids[0]}});
  EXPECT_EQ(old["memory"]["status"], "superseded");
  json recall = RecallOk({{"scope", "user:alice"}, {"query", "Where does Maya live?"}});
  EXPECT_THAT(recall["context"].get<std::string>(), HasSubstr("Lisbon"));
  EXPECT_THAT(ToolError("memory_amend", {{"id", ids[0]}, {"text", "again"}}),
              StartsWith("FAILED_PRECONDITION"));
}

// ---- tools: isError -------------------------------------------------------------------------

TEST_F(McpServerTest, BadArgumentsAreToolErrorsAModelCanActOn) {
  EXPECT_THAT(ToolError("memory_write", {{"scope", "user:alice"}, {"turns", "hello"}}),
              HasSubstr("argument \"turns\" must be an array (got string)"));
  EXPECT_THAT(ToolError("memory_write", {{"turns", {{{"text", "x"}}}}}),
              HasSubstr("argument \"scope\" is required"));
  EXPECT_THAT(ToolError("memory_write", {{"scope", "alice"}, {"turns", {{{"text", "x"}}}}}),
              HasSubstr("not a valid scope"));
  EXPECT_THAT(
      ToolError("memory_write", {{"scope", "user:a"}, {"turns", {{{"text", "x"}}}}, {"x", 1}}),
      HasSubstr("unknown argument \"x\""));
  EXPECT_THAT(ToolError("memory_write", {{"scope", "user:a"}, {"turns", json::array()}}),
              HasSubstr("at least 1 item"));
  EXPECT_THAT(ToolError("memory_write", {{"scope", "user:a"}, {"turns", {{{"txt", "x"}}}}}),
              HasSubstr("unknown field turns[0].txt"));
  EXPECT_THAT(ToolError("memory_write",
                        {{"scope", "user:a"}, {"turns", {{{"text", "x"}, {"role", "robot"}}}}}),
              HasSubstr("turns[0].role must be one of"));
  EXPECT_THAT(ToolError("memory_write", {{"scope", "user:a"},
                                         {"turns", {{{"text", "x"}, {"event_time", "soon"}}}}}),
              HasSubstr("turns[0].event_time is not an ISO-8601 time"));
  EXPECT_THAT(ToolError("memory_recall", {{"scope", "user:a"}, {"query", "q"}, {"k", 0}}),
              HasSubstr("argument \"k\" must be a whole number between 1 and 200"));
  EXPECT_THAT(ToolError("memory_recall", {{"scope", "user:a"}, {"query", "q"}, {"k", "5"}}),
              HasSubstr("(got string)"));
  EXPECT_THAT(ToolError("memory_recall", {{"scope", "user:a"}, {"query", "q"}, {"policy", "x"}}),
              HasSubstr("must be one of strict, balanced, advanced"));
  EXPECT_THAT(ToolError("memory_recall", {{"scope", "user:a"}, {"query", "q"}, {"mode", "x"}}),
              HasSubstr("must be one of evidence, chat"));
  EXPECT_THAT(ToolError("memory_recall", {{"scope", "user:a"}, {"query", "q"}, {"packing", "x"}}),
              HasSubstr("must be one of value, rank"));
  EXPECT_THAT(ToolError("memory_recall", {{"scope", "user:a"}, {"query", "q"}, {"valid_at", "x"}}),
              HasSubstr("argument \"valid_at\" is not an ISO-8601 time"));
  EXPECT_THAT(
      ToolError("memory_recall", {{"scope", "user:a"}, {"query", "q"}, {"known_at", "2024-02-30"}}),
      HasSubstr("argument \"known_at\" is not an ISO-8601 time"));
  EXPECT_THAT(ToolError("memory_read", {{"id", "not-an-id"}}), HasSubstr("32 lowercase hex"));
  EXPECT_THAT(ToolError("memory_list", {{"scope", "user:a"}, {"kind", "planet"}}),
              HasSubstr("must be one of"));
  EXPECT_THAT(ToolError("memory_list_scopes", {{"scope", "user:a"}}),
              HasSubstr("takes no arguments"));
  // Arguments that are not an object make the request itself malformed: a protocol error.
  json not_object = Request("tools/call", {{"name", "memory_list_scopes"}, {"arguments", 5}});
  EXPECT_EQ(not_object["error"]["code"], error_code::kInvalidParams) << not_object.dump();
}

TEST_F(McpServerTest, OversizedTurnTextIsAToolError) {
  const std::string text(kMaxTurnBytes + 1, 'a');
  EXPECT_THAT(ToolError("memory_write", {{"scope", "user:a"}, {"turns", {{{"text", text}}}}}),
              StartsWith("INVALID_ARGUMENT"));
  EXPECT_TRUE(ToolOk("memory_list_scopes", json::object())["scopes"].empty());
}

TEST_F(McpServerTest, EngineErrorsBecomeToolErrors) {
  EXPECT_THAT(ToolError("memory_read", {{"id", std::string(32, '0')}}), StartsWith("NOT_FOUND"));
}

TEST_F(McpServerTest, RecallingAScopeWithNothingStoredYetIsAnEmptyResult) {
  json nothing = RecallOk({{"scope", "user:nobody"}, {"query", "anything"}});
  EXPECT_EQ(nothing["scope"], "user:nobody");
  EXPECT_EQ(nothing["items"], json::array());
  EXPECT_EQ(nothing["context"], "");
  EXPECT_EQ(nothing["note"], "nothing stored yet in scope user:nobody");
  // Listing it is no error either.
  json listed = ToolOk("memory_list", {{"scope", "user:nobody"}});
  EXPECT_EQ(listed["memories"], json::array());
  EXPECT_TRUE(listed["next_after"].is_null());
  EXPECT_EQ(listed["note"], "nothing stored yet in scope user:nobody");
  // Once something is stored there, the same recall finds it.
  ToolOk("memory_write", {{"scope", "user:nobody"}, {"turns", {{{"text", "I live in Oslo."}}}}});
  json found = RecallOk({{"scope", "user:nobody"}, {"query", "Where do I live?"}});
  EXPECT_THAT(found["context"].get<std::string>(), HasSubstr("Oslo"));
  EXPECT_FALSE(found.contains("note"));
}

// ---- access ----------------------------------------------------------------------------------

TEST_F(McpServerTest, AccessLimitsEveryTool) {
  const std::vector<std::string> alice = WriteAlice();
  json bob =
      ToolOk("memory_write", {{"scope", "user:bob"}, {"turns", {{{"text", "I like tea."}}}}});
  const std::string bob_id = bob["ids"][0];
  const auth::Access reader = auth::Access::Granted(
      {{.prefix = Scope::Parse("user:alice").value(), .rights = {auth::Right::kRead}}});

  // Reads inside the grant work; a memory outside it does not exist for this caller.
  EXPECT_EQ(ToolOk("memory_read", {{"id", alice[0]}}, reader)["memory"]["id"], alice[0]);
  EXPECT_THAT(ToolError("memory_read", {{"id", bob_id}}, reader),
              "NOT_FOUND: no memory with id " + bob_id);
  EXPECT_THAT(ToolError("memory_retire", {{"id", bob_id}}, reader), StartsWith("NOT_FOUND"));
  json scopes = ToolOk("memory_list_scopes", json::object(), reader)["scopes"];
  ASSERT_EQ(scopes.size(), 1u);
  EXPECT_EQ(scopes[0]["scope"], "user:alice");
  // A missing right is a tool error coded PERMISSION_DENIED (as REST's 403) naming the right,
  // not INVALID_ARGUMENT: the arguments were fine.
  EXPECT_EQ(ToolError("memory_recall", {{"scope", "user:bob"}, {"query", "tea"}}, reader),
            "PERMISSION_DENIED: this caller has no read right on scope user:bob");

  // Writes, retirements and erasure need their own rights.
  EXPECT_EQ(
      ToolError("memory_write", {{"scope", "user:alice"}, {"turns", {{{"text", "x"}}}}}, reader),
      "PERMISSION_DENIED: this caller has no write right on scope user:alice");
  EXPECT_EQ(ToolError("memory_retire", {{"id", alice[0]}}, reader),
            "PERMISSION_DENIED: this caller has no write right on scope user:alice");
  EXPECT_EQ(ToolError("memory_retire_all", {{"scope", "user:alice"}}, reader),
            "PERMISSION_DENIED: this caller has no write right on scope user:alice");
  EXPECT_EQ(ToolError("memory_purge_scope", {{"scope", "user:alice"}, {"confirm", true}}, reader),
            "PERMISSION_DENIED: this caller has no erase right on scope user:alice");
  EXPECT_EQ(ToolOk("memory_read", {{"id", alice[0]}})["memory"]["status"], "active");
}

// ---- the world graph -------------------------------------------------------------------------

TEST_F(McpServerTest, GraphToolsQueryLinkAndUnlinkAsOfATime) {
  const std::vector<std::string> ids =
      ToolOk("memory_write",
             {{"scope", "user:alice"},
              {"turns",
               {{{"text", "My sister Lena lives in Porto."}, {"speaker", "Alice"}},
                {{"text", "Lena and Tom went hiking in the Alps."}, {"speaker", "Alice"}},
                {{"text", "The blue car needs new tyres."}, {"speaker", "Alice"}}}},
              {"wait", "derived"}})["ids"]
          .get<std::vector<std::string>>();
  std::string lena;
  const json entities = ToolOk("memory_list", {{"scope", "user:alice"}, {"kind", "entity"}});
  for (const json& memory : entities["memories"]) {
    if (memory["text"] == "Lena") lena = memory["id"];
  }
  ASSERT_FALSE(lena.empty()) << entities.dump();
  json mentions =
      ToolOk("memory_graph",
             {{"id", lena}, {"what", "neighbours"}, {"types", {"mentions"}}, {"direction", "in"}});
  EXPECT_EQ(mentions["count"], 2);
  EXPECT_EQ(mentions["neighbours"][0]["node"]["id"], ids[0]);
  json paths = ToolOk("memory_graph", {{"id", ids[0]},
                                       {"what", "paths"},
                                       {"to", ids[1]},
                                       {"types", {"mentions"}},
                                       {"max_depth", 2}});
  ASSERT_GE(paths["count"].get<int>(), 1);
  EXPECT_EQ(paths["paths"][0]["nodes"], json({ids[0], lena, ids[1]}));
  EXPECT_EQ(ToolOk("memory_graph", {{"id", lena}, {"what", "identity"}})["members"][0]["id"], lena);

  json linked = ToolOk("memory_link", {{"scope", "user:alice"},
                                       {"type", "owns"},
                                       {"src", lena},
                                       {"dst", ids[2]},
                                       {"attrs", {{"note", "hers"}}}});
  EXPECT_EQ(linked["status"], "active");
  const std::string edge = linked["id"];
  const std::string added = linked["ingested_at"];
  const json owned = {{"id", lena}, {"what", "neighbours"}, {"types", {"owns"}}};
  EXPECT_EQ(ToolOk("memory_graph", owned)["count"], 1);
  EXPECT_EQ(ToolOk("memory_unlink", {{"id", edge}})["status"], "retired");
  EXPECT_EQ(ToolOk("memory_graph", owned)["count"], 0);
  json then = owned;
  then["valid_at"] = added;
  EXPECT_EQ(ToolOk("memory_graph", then)["count"], 1);
  EXPECT_THAT(ToolError("memory_unlink", {{"id", edge}}), StartsWith("FAILED_PRECONDITION"));

  // Bad input names the argument or the problem.
  EXPECT_THAT(ToolError("memory_graph", {{"id", lena}, {"what", "paths"}}), HasSubstr("to"));
  EXPECT_THAT(ToolError("memory_graph",
                        {{"id", ids[0]}, {"what", "paths"}, {"to", ids[1]}, {"max_depth", 9}}),
              HasSubstr("max_depth"));
  EXPECT_THAT(ToolError("memory_graph",
                        {{"id", lena}, {"what", "neighbours"}, {"types", {"no_such_type"}}}),
              HasSubstr("no_such_type"));
  EXPECT_THAT(ToolError("memory_graph", {{"id", "xyz"}, {"what", "neighbours"}}),
              StartsWith("INVALID_ARGUMENT"));
  EXPECT_THAT(ToolError("memory_graph", {{"id", ids[0]}, {"what", "identity"}}),
              HasSubstr("not an entity"));
  EXPECT_THAT(
      ToolError("memory_link",
                {{"scope", "user:alice"}, {"type", "mentions"}, {"src", ids[2]}, {"dst", lena}}),
      HasSubstr("engram's own"));
  EXPECT_THAT(ToolError("memory_link", {{"scope", "user:alice"},
                                        {"type", "knows"},
                                        {"src", lena},
                                        {"dst", ids[2]},
                                        {"attrs", {{"x", std::string(20000, 'x')}}}}),
              HasSubstr("attrs"));
  EXPECT_EQ(
      ToolOk("memory_graph", {{"id", lena}, {"what", "neighbours"}, {"types", {"knows"}}})["count"],
      0);
}

TEST_F(McpServerTest, GraphToolsTreatAnotherTenantsIdsAsUnknown) {
  const std::vector<std::string> alice = WriteAlice();
  const std::string bob_id = ToolOk(
      "memory_write", {{"scope", "user:bob"}, {"turns", {{{"text", "I like tea."}}}}})["ids"][0];
  const std::string edge = ToolOk(
      "memory_link",
      {{"scope", "user:alice"}, {"type", "knows"}, {"src", alice[0]}, {"dst", alice[1]}})["id"];
  const auth::Access bob =
      auth::Access::Granted({{.prefix = Scope::Parse("user:bob").value(),
                              .rights = {auth::Right::kRead, auth::Right::kWrite}}});
  const std::string unknown(32, 'd');
  for (const char* what : {"neighbours", "identity"}) {
    EXPECT_EQ(ToolError("memory_graph", {{"id", alice[0]}, {"what", what}}, bob),
              "NOT_FOUND: no memory with id " + alice[0]);
    EXPECT_EQ(ToolError("memory_graph", {{"id", unknown}, {"what", what}}, bob),
              "NOT_FOUND: no memory with id " + unknown);
  }
  EXPECT_EQ(ToolError("memory_graph", {{"id", bob_id}, {"what", "paths"}, {"to", alice[0]}}, bob),
            "NOT_FOUND: no memory with id " + alice[0]);
  EXPECT_EQ(
      ToolError("memory_link",
                {{"scope", "user:bob"}, {"type", "knows"}, {"src", bob_id}, {"dst", alice[0]}},
                bob),
      "NOT_FOUND: no memory with id " + alice[0]);
  EXPECT_EQ(ToolError("memory_unlink", {{"id", edge}}, bob), "NOT_FOUND: no edge with id " + edge);
  EXPECT_EQ(ToolError("memory_unlink", {{"id", unknown}}, bob),
            "NOT_FOUND: no edge with id " + unknown);
  // A reader of Alice's scope may query but not unlink.
  const auth::Access reader = auth::Access::Granted(
      {{.prefix = Scope::Parse("user:alice").value(), .rights = {auth::Right::kRead}}});
  EXPECT_EQ(ToolOk("memory_graph", {{"id", alice[0]}, {"what", "neighbours"}, {"types", {"knows"}}},
                   reader)["count"],
            1);
  EXPECT_EQ(ToolError("memory_unlink", {{"id", edge}}, reader),
            "PERMISSION_DENIED: this caller has no write right on scope user:alice");
}

TEST_F(McpServerTest, ReadHistoryNamesNoMemoryOutsideTheCallersScopes) {
  ToolOk("memory_write", {{"scope", "user:alice"},
                          {"turns", {{{"text", "My sister Maya lives in Porto."}}}},
                          {"wait", "derived"}});
  const std::string run_turn =
      ToolOk("memory_write", {{"scope", "user:alice/run:1"},
                              {"turns", {{{"text", "Maya called me from Porto today."}}}},
                              {"wait", "derived"}})["ids"][0];
  // The entity named Porto of exactly `scope`.
  auto porto = [&](const std::string& scope) {
    json listed = ToolOk("memory_list", {{"scope", scope}, {"kind", "entity"}});
    for (const json& memory : listed["memories"]) {
      if (memory["text"] == "Porto") return memory["id"].get<std::string>();
    }
    ADD_FAILURE() << "no entity Porto in " << scope << ": " << listed.dump();
    return std::string();
  };
  const std::string alice_porto = porto("user:alice");
  const std::string run_porto = porto("user:alice/run:1");
  ASSERT_FALSE(alice_porto.empty());
  ASSERT_FALSE(run_porto.empty());
  ASSERT_TRUE(engine_->ProposeSameAs(run_porto, alice_porto, "the same city").ok());

  // The memories the history of run:1's Porto names, by action, as `access` reads it.
  auto related = [&](const auth::Access& access) {
    std::map<std::string, std::string> ids;
    json read = ToolOk("memory_read", {{"id", run_porto}, {"history", true}}, access);
    for (const json& event : read["history"]) {
      if (!event["related_id"].get<std::string>().empty()) {
        ids[event["action"].get<std::string>()] = event["related_id"];
      }
    }
    return ids;
  };
  const auth::Access alice = auth::Access::Granted(
      {{.prefix = Scope::Parse("user:alice").value(), .rights = {auth::Right::kRead}}});
  const auth::Access run = auth::Access::Granted(
      {{.prefix = Scope::Parse("user:alice/run:1").value(), .rights = {auth::Right::kRead}}});
  const std::map<std::string, std::string> everything = related(auth::Access::Unrestricted());
  ASSERT_EQ(everything.size(), 3u) << json(everything).dump();
  const std::string run_scope_node = everything.at("has_entity (incoming)");
  EXPECT_EQ(everything,
            (std::map<std::string, std::string>{{"has_entity (incoming)", run_scope_node},
                                                {"mentions (incoming)", run_turn},
                                                {"same_as", alice_porto}}));
  EXPECT_EQ(related(alice), everything);
  // The key of run:1 reads its entity's history without the enclosing scope's entity.
  EXPECT_EQ(related(run),
            (std::map<std::string, std::string>{{"has_entity (incoming)", run_scope_node},
                                                {"mentions (incoming)", run_turn}}));
}

// ---- default scope -------------------------------------------------------------------------

// A server started with a default scope, as `engram mcp --scope user:alice` is.
class DefaultScopeTest : public McpServerTest {
 protected:
  void SetUp() override {
    McpServerTest::SetUp();
    server_ = std::make_unique<McpServer>(
        *engine_, ServerOptions{.default_scope = Scope::Parse("user:alice").value()});
  }
};

TEST_F(DefaultScopeTest, ToolsListMakesScopeOptionalButWhereAScopeIsWiped) {
  std::vector<std::string> with_scope;
  const json tools = Request("tools/list")["result"]["tools"];
  for (const json& tool : tools) {
    const json& schema = tool["inputSchema"];
    if (!schema["properties"].contains("scope")) continue;
    const std::string name = tool["name"];
    with_scope.push_back(name);
    const std::vector<std::string> required = schema["required"];
    const bool required_scope =
        std::find(required.begin(), required.end(), "scope") != required.end();
    const std::string scope_help = schema["properties"]["scope"]["description"];
    if (name == "memory_retire_all" || name == "memory_purge_scope") {
      EXPECT_TRUE(required_scope) << name;
      EXPECT_THAT(scope_help, HasSubstr("Required even though the other tools default to "
                                        "user:alice: name the scope this wipes."));
    } else {
      EXPECT_FALSE(required_scope) << name;
      EXPECT_THAT(scope_help, HasSubstr("Default: user:alice."));
      EXPECT_THAT(tool["description"].get<std::string>(),
                  HasSubstr("Works in scope user:alice unless `scope` names another."));
    }
  }
  EXPECT_THAT(with_scope,
              ElementsAre("memory_write", "memory_recall", "memory_list", "memory_retire_all",
                          "memory_purge_scope", "memory_consolidate", "memory_structure",
                          "memory_link"));
}

TEST_F(DefaultScopeTest, CallsThatNameNoScopeWorkInTheDefault) {
  json written =
      ToolOk("memory_write", {{"turns", {{{"text", "My sister Maya lives in Porto."}}}}});
  EXPECT_EQ(written["scope"], "user:alice");
  EXPECT_THAT(RecallOk({{"query", "Where does Maya live?"}})["context"].get<std::string>(),
              HasSubstr("Porto"));
  EXPECT_EQ(ToolOk("memory_list", json::object())["memories"].size(), 1u);
  // A scope named in the call wins; the default is only for calls that name none.
  EXPECT_EQ(
      ToolOk("memory_write", {{"scope", "user:bob"}, {"turns", {{{"text", "Tea."}}}}})["scope"],
      "user:bob");
  EXPECT_EQ(ToolOk("memory_list", {{"scope", "user:bob"}})["memories"].size(), 1u);
  // Wiping a whole scope still needs it named.
  EXPECT_THAT(ToolError("memory_purge_scope", {{"confirm", true}}),
              HasSubstr("argument \"scope\" is required"));
  EXPECT_EQ(ToolOk("memory_list_scopes", json::object())["scopes"].size(), 2u);
}

TEST_F(DefaultScopeTest, InitializeAndDiscoverNameTheDefault) {
  EXPECT_THAT(Request("initialize", {{"protocolVersion", "2025-11-25"}})["result"]["instructions"]
                  .get<std::string>(),
              HasSubstr("the tools work in scope user:alice unless a call names another"));
  EXPECT_THAT(Request("server/discover")["result"]["instructions"].get<std::string>(),
              HasSubstr("the tools work in scope user:alice"));
}

// Over `engram serve`, an API key's grants on one scope prefix make it the caller's default.
TEST_F(McpServerTest, AKeyOnOneScopeDefaultsToIt) {
  const auth::Access carol =
      auth::Access::Granted({{.prefix = Scope::Parse("user:carol").value(),
                              .rights = {auth::Right::kRead, auth::Right::kWrite}}},
                            "k_carol");
  json tools = Request("tools/list", json::object(), carol)["result"]["tools"];
  EXPECT_EQ(tools[1]["name"], "memory_recall");
  EXPECT_EQ(tools[1]["inputSchema"]["required"], json({"query"}));
  EXPECT_EQ(ToolOk("memory_write", {{"turns", {{{"text", "I live in Oslo."}}}}}, carol)["scope"],
            "user:carol");
  EXPECT_THAT(RecallOk({{"query", "Where do I live?"}}, carol)["context"].get<std::string>(),
              HasSubstr("Oslo"));
  EXPECT_THAT(
      Request("initialize", {{"protocolVersion", "2025-11-25"}}, carol)["result"]["instructions"]
          .get<std::string>(),
      HasSubstr("scope user:carol"));
  // server/discover may be cached for every caller: it names no key's scope.
  EXPECT_THAT(Request("server/discover", json::object(), carol)["result"]["instructions"]
                  .get<std::string>(),
              Not(HasSubstr("user:carol")));
  // Nothing is inferred for other callers: several prefixes, every scope, or no keys at all.
  const auth::Access two = auth::Access::Granted(
      {{.prefix = Scope::Parse("user:carol").value(), .rights = {auth::Right::kRead}},
       {.prefix = Scope::Parse("user:dave").value(), .rights = {auth::Right::kRead}}});
  const auth::Access root =
      auth::Access::Granted({{.prefix = Scope(), .rights = {auth::Right::kRead}}});
  for (const auth::Access& access : {two, root, auth::Access::Unrestricted()}) {
    EXPECT_EQ(Request("tools/list", json::object(),
                      access)["result"]["tools"][1]["inputSchema"]["required"],
              json({"scope", "query"}));
    EXPECT_THAT(ToolError("memory_recall", {{"query", "Where do I live?"}}, access),
                HasSubstr("argument \"scope\" is required"));
  }
  // A server can turn the inference off.
  server_ = std::make_unique<McpServer>(*engine_, ServerOptions{.default_scope_from_key = false});
  EXPECT_EQ(
      Request("tools/list", json::object(), carol)["result"]["tools"][1]["inputSchema"]["required"],
      json({"scope", "query"}));
}

// ---- the stateless revision (2026-07-28) -------------------------------------------------------

TEST_F(McpServerTest, DiscoverDescribesTheServer) {
  json result = Request("server/discover")["result"];
  EXPECT_EQ(result["supportedVersions"], json({"2025-06-18", "2025-11-25", "2026-07-28"}));
  EXPECT_EQ(result["resultType"], "complete");
  EXPECT_EQ(result["capabilities"], json({{"tools", {{"listChanged", false}}}}));
  EXPECT_EQ(result["cacheScope"], "public");
  EXPECT_GT(result["ttlMs"].get<int>(), 0);
}

TEST_F(McpServerTest, StatelessRequestsCarryTheirVersionAndGetResultType) {
  const json meta = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                     {"io.modelcontextprotocol/clientCapabilities", json::object()}};
  json list = Request("tools/list", {{"_meta", meta}});
  EXPECT_EQ(list["result"]["resultType"], "complete");
  EXPECT_EQ(list["result"]["tools"].size(), 14u);
  json call =
      Request("tools/call",
              {{"_meta", meta}, {"name", "memory_list_scopes"}, {"arguments", json::object()}});
  EXPECT_EQ(call["result"]["resultType"], "complete");
  EXPECT_EQ(call["result"]["isError"], false);
  EXPECT_TRUE(session_.protocol_version.empty()) << "a stateless request leaves no state";
  // Session clients never see resultType.
  EXPECT_FALSE(Request("tools/list")["result"].contains("resultType"));
}

TEST_F(McpServerTest, UnsupportedRequestVersionIsRefusedWithTheSupportedOnes) {
  json reply = Request("tools/list",
                       {{"_meta", {{"io.modelcontextprotocol/protocolVersion", "2030-01-01"}}}});
  EXPECT_EQ(reply["error"]["code"], error_code::kUnsupportedProtocolVersion);
  EXPECT_EQ(reply["error"]["data"]["requested"], "2030-01-01");
  EXPECT_EQ(reply["error"]["data"]["supported"].size(), 3u);
}

// ---- streamable HTTP ---------------------------------------------------------------------------

class HttpTransportTest : public McpServerTest {
 protected:
  HttpCall Post(const json& message, const std::string& session = "") {
    HttpCall call{.method = "POST",
                  .headers = {{"Content-Type", "application/json"},
                              {"Accept", "application/json, text/event-stream"},
                              {"Host", "127.0.0.1:8080"}},
                  .body = message.dump()};
    if (!session.empty()) call.headers["Mcp-Session-Id"] = session;
    return call;
  }

  HttpResult Do(const HttpCall& call) {
    return transport_->Handle(call, auth::Access::Unrestricted());
  }

  std::string Initialize(const std::string& version = "2025-11-25") {
    HttpResult result = Do(Post({{"jsonrpc", "2.0"},
                                 {"id", 1},
                                 {"method", "initialize"},
                                 {"params", {{"protocolVersion", version}}}}));
    EXPECT_EQ(result.status, 200) << result.body;
    return result.headers["Mcp-Session-Id"];
  }

  // The Access an API key with id `key_id` grants: read on `scope`.
  static auth::Access KeyAccess(const std::string& key_id, const std::string& scope) {
    return auth::Access::Granted(
        {{.prefix = Scope::Parse(scope).value(), .rights = {auth::Right::kRead}}}, key_id);
  }

  // initialize on `transport` as `access`: the whole result (status 200 with a session id, or
  // the refusal).
  HttpResult InitializeAs(HttpTransport& transport, const auth::Access& access) {
    return transport.Handle(Post({{"jsonrpc", "2.0"},
                                  {"id", 1},
                                  {"method", "initialize"},
                                  {"params", {{"protocolVersion", "2025-11-25"}}}}),
                            access);
  }

  // A session `access` opened on `transport` (its id; the test fails when none was opened).
  std::string OpenAs(HttpTransport& transport, const auth::Access& access) {
    HttpResult result = InitializeAs(transport, access);
    EXPECT_EQ(result.status, 200) << result.body;
    return result.headers["Mcp-Session-Id"];
  }

  // The status of a ping in session `session` sent as `access`.
  int PingAs(HttpTransport& transport, const std::string& session, const auth::Access& access) {
    return transport.Handle(Post(kPing, session), access).status;
  }

  HttpResult DeleteAs(HttpTransport& transport, const std::string& session,
                      const auth::Access& access) {
    return transport.Handle(HttpCall{.method = "DELETE", .headers = {{"Mcp-Session-Id", session}}},
                            access);
  }

  void SetUp() override {
    McpServerTest::SetUp();
    transport_ = std::make_unique<HttpTransport>(*server_, HttpOptions{.max_sessions = 2});
  }

  const json kPing = {{"jsonrpc", "2.0"}, {"id", 2}, {"method", "ping"}};
  std::unique_ptr<HttpTransport> transport_;
};

TEST_F(HttpTransportTest, InitializeOpensASessionWithARandomId) {
  HttpResult result = Do(Post({{"jsonrpc", "2.0"},
                               {"id", 1},
                               {"method", "initialize"},
                               {"params", {{"protocolVersion", "2025-06-18"}}}}));
  EXPECT_EQ(result.status, 200);
  EXPECT_EQ(result.headers["content-type"], "application/json");
  EXPECT_EQ(json::parse(result.body)["result"]["protocolVersion"], "2025-06-18");
  const std::string id = result.headers["Mcp-Session-Id"];
  EXPECT_EQ(id.size(), 32u);
  EXPECT_NE(Initialize(), id);
  EXPECT_EQ(transport_->session_count(), 2u);
}

TEST_F(HttpTransportTest, RequestsNeedAKnownSession) {
  const std::string session = Initialize();
  HttpResult ok = Do(Post(kPing, session));
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(json::parse(ok.body)["result"], json::object());
  EXPECT_EQ(Do(Post(kPing)).status, 400);
  EXPECT_EQ(Do(Post(kPing, std::string(32, 'f'))).status, 404);
  // Header names are case-insensitive.
  HttpCall lower = Post(kPing);
  lower.headers["mcp-session-id"] = session;
  EXPECT_EQ(Do(lower).status, 200);
}

TEST_F(HttpTransportTest, NotificationsAreAccepted) {
  const std::string session = Initialize();
  HttpResult result =
      Do(Post({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}, session));
  EXPECT_EQ(result.status, 202);
  EXPECT_TRUE(result.body.empty());
}

TEST_F(HttpTransportTest, DeleteEndsTheSession) {
  const std::string session = Initialize();
  HttpCall end{.method = "DELETE", .headers = {{"Mcp-Session-Id", session}}};
  EXPECT_EQ(Do(end).status, 204);
  EXPECT_EQ(Do(Post(kPing, session)).status, 404);
  EXPECT_EQ(Do(end).status, 404);
  EXPECT_EQ(Do(HttpCall{.method = "DELETE"}).status, 400);
}

TEST_F(HttpTransportTest, SessionsAreBoundedLeastRecentlyUsedFirst) {
  const std::string first = Initialize();
  const std::string second = Initialize();
  EXPECT_EQ(Do(Post(kPing, first)).status, 200);  // first is now the most recently used
  const std::string third = Initialize();
  EXPECT_EQ(transport_->session_count(), 2u);
  EXPECT_EQ(Do(Post(kPing, second)).status, 404);
  EXPECT_EQ(Do(Post(kPing, first)).status, 200);
  EXPECT_EQ(Do(Post(kPing, third)).status, 200);
}

TEST_F(HttpTransportTest, ASessionAnswersOnlyTheKeyThatOpenedIt) {
  const auth::Access alice = KeyAccess("k_a11ce0000001", "user:alice");
  const auth::Access bob = KeyAccess("k_b0b000000002", "user:bob");
  // Another key with alice's very grants is still another key.
  const auth::Access alice_twin = KeyAccess("k_a11ce0000003", "user:alice");
  const std::string session = OpenAs(*transport_, alice);

  const HttpResult unknown = transport_->Handle(Post(kPing, std::string(32, 'f')), bob);
  ASSERT_EQ(unknown.status, 404);
  for (const auth::Access* other : {&bob, &alice_twin}) {
    // Refused exactly as a session that does not exist: same status, same body.
    const HttpResult foreign = transport_->Handle(Post(kPing, session), *other);
    EXPECT_EQ(foreign.status, 404);
    EXPECT_EQ(foreign.body, unknown.body);
    EXPECT_EQ(DeleteAs(*transport_, session, *other).status, 404);
  }
  EXPECT_EQ(PingAs(*transport_, session, auth::Access::Unrestricted()), 404);
  EXPECT_EQ(DeleteAs(*transport_, session, auth::Access::Unrestricted()).status, 404);
  // The owner's session outlived every attempt; only the owner ends it.
  EXPECT_EQ(PingAs(*transport_, session, alice), 200);
  EXPECT_EQ(DeleteAs(*transport_, session, alice).status, 204);
  EXPECT_EQ(PingAs(*transport_, session, alice), 404);
}

TEST_F(HttpTransportTest, AKeyOpeningManySessionsEndsOnlyItsOwn) {
  HttpTransport transport(*server_, {.max_sessions = 4, .max_sessions_per_key = 2});
  const auth::Access alice = KeyAccess("k_a11ce0000001", "user:alice");
  const auth::Access bob = KeyAccess("k_b0b000000002", "user:bob");
  const std::string alice_session = OpenAs(transport, alice);
  std::vector<std::string> bob_sessions;
  for (int open_idx = 0; open_idx < 64; ++open_idx) bob_sessions.push_back(OpenAs(transport, bob));
  // Bob holds his cap, his two most recent; alice's session is untouched.
  EXPECT_EQ(transport.session_count(), 3u);
  EXPECT_EQ(PingAs(transport, alice_session, alice), 200);
  EXPECT_EQ(PingAs(transport, bob_sessions[0], bob), 404);
  EXPECT_EQ(PingAs(transport, bob_sessions[61], bob), 404);
  EXPECT_EQ(PingAs(transport, bob_sessions[62], bob), 200);
  EXPECT_EQ(PingAs(transport, bob_sessions[63], bob), 200);
  // Within its cap, a key's least recently used session goes first.
  EXPECT_EQ(PingAs(transport, bob_sessions[62], bob), 200);
  const std::string latest = OpenAs(transport, bob);
  EXPECT_EQ(PingAs(transport, bob_sessions[63], bob), 404);
  EXPECT_EQ(PingAs(transport, bob_sessions[62], bob), 200);
  EXPECT_EQ(PingAs(transport, latest, bob), 200);
}

TEST_F(HttpTransportTest, ATableFullOfOtherKeysSessionsRefusesANewKey) {
  HttpTransport transport(*server_, {.max_sessions = 4, .max_sessions_per_key = 2});
  const auth::Access alice = KeyAccess("k_a11ce0000001", "user:alice");
  const auth::Access bob = KeyAccess("k_b0b000000002", "user:bob");
  const auth::Access carol = KeyAccess("k_c4a010000003", "user:carol");
  const std::vector<std::string> bob_sessions = {OpenAs(transport, bob), OpenAs(transport, bob)};
  const std::vector<std::string> carol_sessions = {OpenAs(transport, carol),
                                                   OpenAs(transport, carol)};
  ASSERT_EQ(transport.session_count(), 4u);

  const HttpResult refused = InitializeAs(transport, alice);
  EXPECT_EQ(refused.status, 503);
  EXPECT_FALSE(refused.headers.contains("Mcp-Session-Id"));
  const json error = json::parse(refused.body)["error"];
  EXPECT_EQ(error["code"], error_code::kInternalError);
  EXPECT_EQ(error["message"],
            "too many open MCP sessions: all 4 are held by other callers; try again once one "
            "ends");
  for (const std::string& session : bob_sessions) EXPECT_EQ(PingAs(transport, session, bob), 200);
  for (const std::string& session : carol_sessions) {
    EXPECT_EQ(PingAs(transport, session, carol), 200);
  }

  // Once a session ends, alice gets its place; with the table full again, a key holding
  // sessions ends its own least recently used one, never another key's.
  ASSERT_EQ(DeleteAs(transport, carol_sessions[0], carol).status, 204);
  const std::string alice_session = OpenAs(transport, alice);
  const std::string alice_second = OpenAs(transport, alice);
  EXPECT_EQ(transport.session_count(), 4u);
  EXPECT_EQ(PingAs(transport, alice_session, alice), 404);
  EXPECT_EQ(PingAs(transport, alice_second, alice), 200);
  for (const std::string& session : bob_sessions) EXPECT_EQ(PingAs(transport, session, bob), 200);
  EXPECT_EQ(PingAs(transport, carol_sessions[1], carol), 200);
}

TEST_F(HttpTransportTest, TheLocalCallerIsBoundedOnlyByTheTotal) {
  // Without keys every caller is the same local user: the per-key cap does not apply.
  HttpTransport transport(*server_, {.max_sessions = 3, .max_sessions_per_key = 1});
  const auth::Access local = auth::Access::Unrestricted();
  const std::vector<std::string> sessions = {OpenAs(transport, local), OpenAs(transport, local),
                                             OpenAs(transport, local)};
  for (const std::string& session : sessions) EXPECT_EQ(PingAs(transport, session, local), 200);
  OpenAs(transport, local);
  EXPECT_EQ(transport.session_count(), 3u);
  EXPECT_EQ(PingAs(transport, sessions[0], local), 404);
}

TEST(SessionOwnerTest, NamesTheKeyTheLocalCallerOrTheGrants) {
  const Scope alice = Scope::Parse("user:alice").value();
  EXPECT_EQ(SessionOwner(auth::Access::Unrestricted()), "local");
  EXPECT_EQ(SessionOwner(auth::Access::Granted({{.prefix = alice, .rights = {auth::Right::kRead}}},
                                               "k_0123456789ab")),
            "key:k_0123456789ab");
  EXPECT_EQ(SessionOwner(auth::Access::Granted(
                {{.prefix = alice, .rights = {auth::Right::kRead, auth::Right::kWrite}}})),
            "grants:user:alice=read,write;");
  EXPECT_NE(
      SessionOwner(auth::Access::Granted({{.prefix = alice, .rights = {auth::Right::kRead}}})),
      SessionOwner(auth::Access::Granted(
          {{.prefix = Scope::Parse("user:bob").value(), .rights = {auth::Right::kRead}}})));
}

TEST_F(HttpTransportTest, ProtocolVersionHeaderMustMatchTheSession) {
  const std::string session = Initialize("2025-06-18");
  HttpCall call = Post(kPing, session);
  call.headers["MCP-Protocol-Version"] = "2025-06-18";
  EXPECT_EQ(Do(call).status, 200);
  call.headers["MCP-Protocol-Version"] = "2025-11-25";
  EXPECT_EQ(Do(call).status, 400);
  call.headers["MCP-Protocol-Version"] = "1.0";
  HttpResult unsupported = Do(call);
  EXPECT_EQ(unsupported.status, 400);
  EXPECT_EQ(json::parse(unsupported.body)["error"]["code"],
            error_code::kUnsupportedProtocolVersion);
}

TEST_F(HttpTransportTest, ForeignHostsAndOriginsAreForbidden) {
  HttpCall call = Post({{"jsonrpc", "2.0"},
                        {"id", 1},
                        {"method", "initialize"},
                        {"params", {{"protocolVersion", "2025-11-25"}}}});
  call.headers["Origin"] = "http://evil.example.com";
  EXPECT_EQ(Do(call).status, 403);
  call.headers["Origin"] = "null";
  EXPECT_EQ(Do(call).status, 403);
  // Names that only start like a loopback one: userinfo, a longer name, a path, a bad port.
  for (const char* origin :
       {"http://localhost:80@evil.example", "http://127.0.0.1.evil.example",
        "http://localhost.evil.example:80", "http://localhost/path", "http://localhost:80x"}) {
    call.headers["Origin"] = origin;
    EXPECT_EQ(Do(call).status, 403) << origin;
  }
  call.headers["Origin"] = "http://localhost:3000";
  call.headers["Host"] = "localhost:80@evil.example";
  EXPECT_EQ(Do(call).status, 403);
  call.headers.erase("Host");
  EXPECT_EQ(Do(call).status, 200);
  call.headers["Host"] = "evil.example.com:8080";
  EXPECT_EQ(Do(call).status, 403);
  call.headers["Host"] = "[::1]:8080";
  call.headers["Origin"] = "http://[::1]:8080";
  EXPECT_EQ(Do(call).status, 200);
  EXPECT_EQ(transport_->session_count(), 2u);

  HttpTransport configured(*server_, {.allowed_origins = {"https://app.example.com"},
                                      .allowed_hosts = {"memory.example.com"}});
  call.headers["Origin"] = "https://app.example.com";
  call.headers["Host"] = "memory.example.com:443";
  EXPECT_EQ(configured.Handle(call, auth::Access::Unrestricted()).status, 200);
}

TEST_F(HttpTransportTest, HostCheckCanBeTurnedOffButOriginStillApplies) {
  HttpTransport keyed(*server_, {.check_host = false});
  HttpCall call = Post({{"jsonrpc", "2.0"},
                        {"id", 1},
                        {"method", "initialize"},
                        {"params", {{"protocolVersion", "2025-11-25"}}}});
  call.headers["Host"] = "memory.example.com";
  EXPECT_EQ(keyed.Handle(call, auth::Access::Unrestricted()).status, 200);
  call.headers["Origin"] = "http://evil.example.com";
  EXPECT_EQ(keyed.Handle(call, auth::Access::Unrestricted()).status, 403);
}

TEST_F(HttpTransportTest, ConcurrentSessionsStayApart) {
  HttpTransport wide(*server_, {.max_sessions = 16});
  constexpr int kThreads = 4;
  constexpr int kCalls = 10;
  std::vector<std::string> sessions(kThreads);
  std::vector<int> ok(kThreads, 0);
  std::vector<std::thread> threads;
  for (int thread_idx = 0; thread_idx < kThreads; ++thread_idx) {
    threads.emplace_back([&, thread_idx] {
      const std::string version = thread_idx % 2 == 0 ? "2025-06-18" : "2025-11-25";
      HttpResult opened = wide.Handle(Post({{"jsonrpc", "2.0"},
                                            {"id", 1},
                                            {"method", "initialize"},
                                            {"params", {{"protocolVersion", version}}}}),
                                      auth::Access::Unrestricted());
      sessions[thread_idx] = opened.headers["Mcp-Session-Id"];
      for (int call_idx = 0; call_idx < kCalls; ++call_idx) {
        HttpCall call = Post(kPing, sessions[thread_idx]);
        call.headers["MCP-Protocol-Version"] = version;
        if (wide.Handle(call, auth::Access::Unrestricted()).status == 200) ++ok[thread_idx];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wide.session_count(), static_cast<std::size_t>(kThreads));
  for (int thread_idx = 0; thread_idx < kThreads; ++thread_idx) {
    EXPECT_EQ(ok[thread_idx], kCalls) << "thread " << thread_idx;
    EXPECT_EQ(sessions[thread_idx].size(), 32u);
  }
}

TEST_F(HttpTransportTest, OnlyPostAndDeleteAreServed) {
  HttpResult get = Do(HttpCall{.method = "GET", .headers = {{"Accept", "text/event-stream"}}});
  EXPECT_EQ(get.status, 405);
  EXPECT_EQ(get.headers["Allow"], "POST, DELETE");
  EXPECT_EQ(Do(HttpCall{.method = "PUT"}).status, 405);
}

TEST_F(HttpTransportTest, ContentTypeAndAcceptAreChecked) {
  HttpCall call = Post(kPing, Initialize());
  call.headers["Content-Type"] = "text/plain";
  EXPECT_EQ(Do(call).status, 415);
  call.headers["Content-Type"] = "application/json; charset=utf-8";
  call.headers["Accept"] = "text/html";
  EXPECT_EQ(Do(call).status, 406);
  call.headers["Accept"] = "*/*";
  EXPECT_EQ(Do(call).status, 200);
}

TEST_F(HttpTransportTest, MalformedBodiesAreBadRequests) {
  HttpCall call = Post(kPing);
  call.body = "{oops";
  HttpResult result = Do(call);
  EXPECT_EQ(result.status, 400);
  EXPECT_EQ(json::parse(result.body)["error"]["code"], error_code::kParseError);
  call.body = R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])";
  EXPECT_EQ(Do(call).status, 400);
  call.body = std::string(server_->options().max_message_bytes + 1, ' ');
  EXPECT_EQ(Do(call).status, 413);
}

TEST_F(HttpTransportTest, StatelessClientsNeedNoSession) {
  HttpCall call =
      Post({{"jsonrpc", "2.0"},
            {"id", 5},
            {"method", "tools/list"},
            {"params", {{"_meta", {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"}}}}}});
  call.headers["MCP-Protocol-Version"] = "2026-07-28";
  call.headers["Mcp-Method"] = "tools/list";
  HttpResult result = Do(call);
  EXPECT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(json::parse(result.body)["result"]["resultType"], "complete");
  EXPECT_EQ(transport_->session_count(), 0u);

  call.headers["Mcp-Method"] = "tools/call";
  HttpResult mismatch = Do(call);
  EXPECT_EQ(mismatch.status, 400);
  EXPECT_EQ(json::parse(mismatch.body)["error"]["code"], error_code::kHeaderMismatch);

  HttpResult discover = Do(Post({{"jsonrpc", "2.0"}, {"id", 6}, {"method", "server/discover"}}));
  EXPECT_EQ(discover.status, 200);
  EXPECT_EQ(json::parse(discover.body)["result"]["resultType"], "complete");
}

}  // namespace
}  // namespace engram::mcp

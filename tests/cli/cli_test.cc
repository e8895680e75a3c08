// End-to-end tests of the `engram` command: each test runs the built binary in a fresh store
// and checks its exit code, stdout (human or --json) and stderr. Covers ingest (JSONL, zstd,
// LoCoMo, LongMemEval), recall, list/show/history/retire/erase, usage errors, and malformed and
// hostile input, which must produce a clear error and never a crash.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "engram/testing/bench_data.h"
#include "engram/testing/temp_dir.h"

#ifndef ENGRAM_CLI_PATH
#error "ENGRAM_CLI_PATH must name the engram binary"
#endif

namespace engram {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::Not;

struct RunResult {
  int exit_code = -1;  // the process's exit status, or -1 when it died of a signal
  int signal = 0;      // the signal that killed it, if any
  std::string out;
  std::string err;
};

std::ostream& operator<<(std::ostream& os, const RunResult& result) {
  return os << "exit " << result.exit_code << " signal " << result.signal
            << "\nstdout: " << result.out.substr(0, 2000)
            << "\nstderr: " << result.err.substr(0, 2000);
}

// Runs the engram binary with `args`, feeding `input` to its stdin, and captures everything.
RunResult RunEngram(const std::vector<std::string>& args, const std::string& input = "") {
  RunResult result;
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (::pipe(in_pipe) != 0 || ::pipe(out_pipe) != 0 || ::pipe(err_pipe) != 0) {
    ADD_FAILURE() << "pipe: " << std::strerror(errno);
    return result;
  }
  std::vector<std::string> argv_storage = {ENGRAM_CLI_PATH};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& arg : argv_storage) argv.push_back(arg.data());
  argv.push_back(nullptr);

  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(in_pipe[0], STDIN_FILENO);
    ::dup2(out_pipe[1], STDOUT_FILENO);
    ::dup2(err_pipe[1], STDERR_FILENO);
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) {
      ::close(fd);
    }
    ::unsetenv("ENGRAM_STORE");
    ::execv(argv[0], argv.data());
    std::_Exit(127);
  }
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  int stdin_fd = in_pipe[1];
  ::fcntl(stdin_fd, F_SETFL, O_NONBLOCK);
  if (input.empty()) {
    ::close(stdin_fd);
    stdin_fd = -1;
  }
  std::size_t written = 0;
  int open_outputs = 2;
  char buffer[65536];
  while (open_outputs > 0 || stdin_fd >= 0) {
    pollfd fds[3] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}, {stdin_fd, POLLOUT, 0}};
    if (::poll(fds, 3, -1) < 0 && errno != EINTR) break;
    for (int stream_idx = 0; stream_idx < 2; ++stream_idx) {
      if (fds[stream_idx].fd < 0 || fds[stream_idx].revents == 0) continue;
      const ssize_t got = ::read(fds[stream_idx].fd, buffer, sizeof(buffer));
      if (got > 0) {
        (stream_idx == 0 ? result.out : result.err).append(buffer, static_cast<std::size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        ::close(fds[stream_idx].fd);
        (stream_idx == 0 ? out_pipe[0] : err_pipe[0]) = -1;
        --open_outputs;
      }
    }
    if (stdin_fd >= 0 && fds[2].revents != 0) {
      const ssize_t put = ::write(stdin_fd, input.data() + written, input.size() - written);
      if (put > 0) written += static_cast<std::size_t>(put);
      if (put < 0 && errno != EAGAIN && errno != EINTR) written = input.size();  // EPIPE: done
      if (written == input.size()) {
        ::close(stdin_fd);
        stdin_fd = -1;
      }
    }
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

const std::string kExample = std::string(ENGRAM_EXAMPLES_DIR) + "/conversation.jsonl";
constexpr int kExampleTurns = 60;

// Parses stdout as JSON, failing the test (and returning null) when it is not.
json ParseJson(const RunResult& result) {
  try {
    return json::parse(result.out);
  } catch (const json::exception& error) {
    ADD_FAILURE() << "stdout is not JSON: " << error.what() << "\n" << result;
    return nullptr;
  }
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = (fs::path(dir_) / "engram.db").string();
  }

  // engram --store <store> args...
  RunResult Engram(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), {"--store", store_});
    return RunEngram(args, input);
  }

  std::string File(const std::string& name, const std::string& content) {
    const std::string path = (fs::path(dir_) / name).string();
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }

  // Memories listed in `scope`; 0 when the scope does not exist (exit 3).
  int CountMemories(const std::string& scope) {
    RunResult result = Engram({"--json", "list", "--scope", scope, "--limit", "100000"});
    if (result.exit_code == 3) return 0;
    EXPECT_EQ(result.exit_code, 0) << result;
    const json parsed = ParseJson(result);
    return parsed.is_object() ? parsed.value("count", -1) : -1;
  }

  void IngestExample(const std::string& scope = "user:priya") {
    RunResult result = Engram({"ingest", "--scope", scope, kExample});
    ASSERT_EQ(result.exit_code, 0) << result;
  }

  engram::testing::TempDir temp_dir_{"engram_cli_test"};
  std::string dir_ = temp_dir_.path();
  std::string store_;
};

// ---- ingest and recall -------------------------------------------------------------------

TEST_F(CliTest, IngestExampleThenRecallJsonHasItemsWithProvenance) {
  RunResult ingest = Engram({"--json", "ingest", "--scope", "user:priya", kExample});
  ASSERT_EQ(ingest.exit_code, 0) << ingest;
  const json summary = ParseJson(ingest);
  EXPECT_EQ(summary["turns"], kExampleTurns);
  ASSERT_EQ(summary["scopes"].size(), 1u);
  EXPECT_EQ(summary["scopes"][0]["scope"], "user:priya");
  EXPECT_EQ(CountMemories("user:priya"), kExampleTurns);

  RunResult recall =
      Engram({"recall", "--json", "--scope", "user:priya", "--k", "5", "Where", "is", "Biscuit?"});
  ASSERT_EQ(recall.exit_code, 0) << recall;
  const json result = ParseJson(recall);
  EXPECT_EQ(result["query"], "Where is Biscuit?");
  ASSERT_TRUE(result["items"].is_array());
  ASSERT_FALSE(result["items"].empty());
  EXPECT_LE(result["items"].size(), 5u);
  for (const json& item : result["items"]) {
    EXPECT_FALSE(item["provenance"].empty()) << item.dump();
    EXPECT_TRUE(item["metadata"].is_object()) << item.dump();
    EXPECT_EQ(item["scope"], "user:priya");
  }
  EXPECT_TRUE(result["diagnostics"].is_object());
}

TEST_F(CliTest, IngestWaitsForTheDerivationUnlessToldNotTo) {
  // --no-wait: acknowledged, nothing derived yet; the next engine does it.
  RunResult quick = Engram({"--json", "ingest", "--no-wait", "--scope", "user:priya", kExample});
  ASSERT_EQ(quick.exit_code, 0) << quick;
  EXPECT_EQ(ParseJson(quick)["turns"], kExampleTurns);
  EXPECT_EQ(ParseJson(quick)["pending_turns"], kExampleTurns);
  RunResult human = Engram({"ingest", "--no-wait", "--scope", "user:other", kExample});
  ASSERT_EQ(human.exit_code, 0) << human;
  // The count is store-wide: this engine may or may not have derived user:priya's pending turns
  // (resumed in the background on open) before it exited, so 60 or 120 turns await.
  EXPECT_THAT(human.out, ::testing::AnyOf(HasSubstr(" 60 turn(s) await derivation"),
                                          HasSubstr(" 120 turn(s) await derivation")));

  // A default ingest (here of nothing new) waits until everything pending is derived.
  RunResult again = Engram({"--json", "ingest", "--scope", "user:priya", kExample});
  ASSERT_EQ(again.exit_code, 0) << again;
  const json summary = ParseJson(again);
  EXPECT_EQ(summary["already_stored"], kExampleTurns);
  EXPECT_EQ(summary["pending_turns"], 0);
  EXPECT_GE(summary["seconds"].get<double>(), summary["acknowledged_seconds"].get<double>());
  RunResult facts = Engram({"--json", "facts", "--scope", "user:other"});
  ASSERT_EQ(facts.exit_code, 0) << facts;
  EXPECT_GT(ParseJson(facts)["count"].get<int>(), 0);
}

TEST_F(CliTest, RecallHumanOutputShowsRanksRoutesAndProvenance) {
  IngestExample();
  RunResult recall = Engram({"recall", "--scope", "user:priya", "What dog did Tom adopt?"});
  ASSERT_EQ(recall.exit_code, 0) << recall;
  EXPECT_THAT(recall.out, HasSubstr("1. [turn] score "));
  EXPECT_THAT(recall.out, HasSubstr("routes:"));
  EXPECT_THAT(recall.out, HasSubstr("provenance:"));
  EXPECT_THAT(recall.out, HasSubstr("Pixel"));

  RunResult context =
      Engram({"recall", "--context", "--scope", "user:priya", "What dog did Tom adopt?"});
  ASSERT_EQ(context.exit_code, 0) << context;
  EXPECT_THAT(context.out, Not(HasSubstr("provenance:")));
}

TEST_F(CliTest, RecallPacksByValueOrByRankAndSaysWhatItLeftOut) {
  IngestExample();
  // Rank packing: the first k ranked items, all of which fit the budget.
  RunResult rank = Engram({"--json", "recall", "--scope", "user:priya", "--packing", "rank", "--k",
                           "3", "What dog did Tom adopt?"});
  ASSERT_EQ(rank.exit_code, 0) << rank;
  const json by_rank = ParseJson(rank);
  EXPECT_EQ(by_rank["items"].size(), 3u);
  for (const json& left : by_rank["diagnostics"]["unpacked"]) EXPECT_NE(left["reason"], "floor");

  // Value packing (the default): items under the score floor stay out unless a route ranked
  // them first, and each item left out is listed with its reason, never among the items.
  RunResult value = Engram({"--json", "recall", "--scope", "user:priya", "--packing", "value",
                            "What dog did Tom adopt?"});
  ASSERT_EQ(value.exit_code, 0) << value;
  const json by_value = ParseJson(value);
  const json& unpacked = by_value["diagnostics"]["unpacked"];
  ASSERT_FALSE(unpacked.empty());
  std::set<std::string> packed_ids;
  for (const json& item : by_value["items"]) packed_ids.insert(item["id"].get<std::string>());
  bool floor_seen = false;
  for (const json& left : unpacked) {
    EXPECT_FALSE(packed_ids.contains(left["id"].get<std::string>())) << left.dump();
    EXPECT_GE(left["rank"].get<int>(), 1);
    floor_seen = floor_seen || left["reason"] == "floor";
  }
  EXPECT_TRUE(floor_seen) << unpacked.dump();
  RunResult explained = Engram({"recall", "--explain", "--scope", "user:priya", "--packing", "value",
                                "What dog did Tom adopt?"});
  ASSERT_EQ(explained.exit_code, 0) << explained;
  EXPECT_THAT(explained.out, HasSubstr("left out of the context:"));
  EXPECT_THAT(explained.out, HasSubstr(" floor "));

  RunResult bad = Engram({"recall", "--scope", "user:priya", "--packing", "size", "q"});
  EXPECT_EQ(bad.exit_code, 2) << bad;
  EXPECT_THAT(bad.out + bad.err, HasSubstr("--packing: unknown packing \"size\""));
}

TEST_F(CliTest, IngestsZstdCompressedJsonl) {
  std::ifstream in(kExample, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string plain = buffer.str();
  std::string compressed(ZSTD_compressBound(plain.size()), '\0');
  compressed.resize(
      ZSTD_compress(compressed.data(), compressed.size(), plain.data(), plain.size(), 3));
  const std::string path = File("conversation.jsonl.zst", compressed);
  RunResult result = Engram({"ingest", "--scope", "user:zip", path});
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(CountMemories("user:zip"), kExampleTurns);
}

TEST_F(CliTest, IngestsFromStdin) {
  RunResult result = Engram({"ingest", "--scope", "user:pipe", "-"},
                            "{\"text\": \"I moved to Lisbon.\"}\n{\"text\": \"Nice!\"}\n");
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(CountMemories("user:pipe"), 2);
}

// ---- malformed input ---------------------------------------------------------------------

TEST_F(CliTest, MalformedJsonlNamesTheLineAndStoresNothing) {
  const std::string bad = File("turns.jsonl",
                               "{\"text\": \"fine\"}\n{\"text\": \"also fine\"}\n{\"text\": \"\"}\n"
                               "{\"text\": \"never stored\"}\n");
  RunResult fresh = Engram({"ingest", "--scope", "user:bad", bad});
  EXPECT_EQ(fresh.exit_code, 1) << fresh;
  EXPECT_THAT(fresh.err,
              HasSubstr("engram: ingest: " + bad + " line 3: \"text\" must be a non-empty string"));
  EXPECT_EQ(CountMemories("user:bad"), 0);

  // Into an existing scope: its memories stay exactly as they were.
  IngestExample("user:priya");
  RunResult existing = Engram({"ingest", "--scope", "user:priya", bad});
  EXPECT_EQ(existing.exit_code, 1) << existing;
  EXPECT_EQ(CountMemories("user:priya"), kExampleTurns);

  const std::string bad_json = File("broken.jsonl", "{\"text\": \"ok\"}\n{\"text\": \"x\",}\n");
  RunResult broken = Engram({"ingest", "--scope", "user:bad", bad_json});
  EXPECT_EQ(broken.exit_code, 1) << broken;
  EXPECT_THAT(broken.err, HasSubstr("broken.jsonl line 2: invalid JSON"));
}

TEST_F(CliTest, MalformedErrorIsJsonWithJsonFlag) {
  const std::string bad = File("turns.jsonl", "{\"text\": \"x\", \"role\": \"robot\"}\n");
  RunResult result = Engram({"--json", "ingest", "--scope", "user:bad", bad});
  EXPECT_EQ(result.exit_code, 1) << result;
  const json error = ParseJson(result);
  EXPECT_EQ(error["error"]["code"], "INVALID_ARGUMENT");
  EXPECT_THAT(error["error"]["message"].get<std::string>(), HasSubstr("line 1: \"role\""));
}

TEST_F(CliTest, InvalidUtf8InATurnIsRejected) {
  const std::string bad = File("utf8.jsonl", "{\"text\": \"ok\"}\n{\"text\": \"caf\xC3\x28\"}\n");
  RunResult result = Engram({"ingest", "--scope", "user:utf8", bad});
  EXPECT_EQ(result.exit_code, 1) << result;
  EXPECT_THAT(result.err, HasSubstr("line 2: invalid UTF-8"));
  EXPECT_EQ(CountMemories("user:utf8"), 0);
}

TEST_F(CliTest, EmptyTextIsRejected) {
  const std::string bad = File("empty.jsonl", "{\"text\": \"   \", \"speaker\": \"Ana\"}\n");
  RunResult result = Engram({"ingest", "--scope", "user:empty", bad});
  EXPECT_EQ(result.exit_code, 1) << result;
  EXPECT_THAT(result.err, HasSubstr("line 1: \"text\" must be a non-empty string"));
}

TEST_F(CliTest, TenMegabyteTurnIsRejectedClearly) {
  const std::string big =
      File("big.jsonl", "{\"text\": \"" + std::string(10 * 1024 * 1024, 'a') + "\"}\n");
  RunResult result = Engram({"ingest", "--scope", "user:big", big});
  EXPECT_EQ(result.exit_code, 1) << result;
  EXPECT_THAT(result.err, HasSubstr("big.jsonl line 1: \"text\" is 10485760 bytes, more than the "
                                    "limit"));
  EXPECT_EQ(CountMemories("user:big"), 0);
}

TEST_F(CliTest, MissingInputFileIsNotFound) {
  RunResult result = Engram({"ingest", "--scope", "user:x", dir_ + "/nope.jsonl"});
  EXPECT_EQ(result.exit_code, 3) << result;
  EXPECT_THAT(result.err, HasSubstr("nope.jsonl: no such file"));
}

// ---- exit codes --------------------------------------------------------------------------

TEST_F(CliTest, UnknownScopeIsNotFound) {
  IngestExample();
  RunResult result = Engram({"recall", "--scope", "user:nobody", "anything"});
  EXPECT_EQ(result.exit_code, 3) << result;
  RunResult json_result = Engram({"--json", "recall", "--scope", "user:nobody", "anything"});
  EXPECT_EQ(json_result.exit_code, 3) << json_result;
  EXPECT_EQ(ParseJson(json_result)["error"]["code"], "NOT_FOUND");
}

TEST_F(CliTest, MissingStoreIsNotFoundAndNotCreated) {
  RunResult result = Engram({"list", "--scope", "user:priya"});
  EXPECT_EQ(result.exit_code, 3) << result;
  EXPECT_FALSE(fs::exists(store_));
}

TEST_F(CliTest, BadScopeSyntaxIsAUsageError) {
  IngestExample();
  for (const std::string scope : {"nokind", "planet:x", "user:", "user:a//user:b", ""}) {
    SCOPED_TRACE(scope);
    RunResult recall = Engram({"recall", "--scope", scope, "question"});
    EXPECT_EQ(recall.exit_code, 2) << recall;
    EXPECT_THAT(recall.err, HasSubstr("engram: recall: --scope: "));
    RunResult ingest = Engram({"ingest", "--scope", scope, kExample});
    EXPECT_EQ(ingest.exit_code, 2) << ingest;
  }
}

TEST_F(CliTest, UsageErrorsExitTwo) {
  EXPECT_EQ(RunEngram({}).exit_code, 2);
  EXPECT_EQ(Engram({"frobnicate"}).exit_code, 2);
  EXPECT_EQ(Engram({"recall", "--scope", "user:a"}).exit_code, 2);  // no QUERY
  EXPECT_EQ(Engram({"recall", "--scope", "user:a", "--k", "-3", "q"}).exit_code, 2);
  EXPECT_EQ(Engram({"recall", "--scope", "user:a", "--policy", "lax", "q"}).exit_code, 2);
  EXPECT_EQ(Engram({"recall", "--scope", "user:a", "--at", "soon", "q"}).exit_code, 2);
  EXPECT_EQ(Engram({"ingest", kExample}).exit_code, 2);  // jsonl needs --scope
  EXPECT_EQ(Engram({"ingest", "--format", "locomo", "--scope", "user:a", kExample}).exit_code, 2);
  EXPECT_EQ(Engram({"ingest", "--format", "csv", "--scope", "user:a", kExample}).exit_code, 2);
  EXPECT_EQ(Engram({"retire"}).exit_code, 2);
  EXPECT_EQ(Engram({"retire", "--all"}).exit_code, 2);
  RunResult json_usage = Engram({"--json", "list"});
  EXPECT_EQ(json_usage.exit_code, 2) << json_usage;
  EXPECT_EQ(ParseJson(json_usage)["error"]["code"], "INVALID_ARGUMENT");
}

TEST_F(CliTest, MisspeltCommandsAndFlagsNameTheClosestOne) {
  // A command: instead of "A subcommand is required".
  RunResult recal = Engram({"recal", "--scope", "user:a", "Where does Maya live?"});
  EXPECT_EQ(recal.exit_code, 2) << recal;
  EXPECT_THAT(recal.err, HasSubstr("engram: unknown command 'recal'; did you mean 'recall'?"));
  EXPECT_THAT(recal.err, Not(HasSubstr("subcommand is required")));
  RunResult swapped = Engram({"reclal", "--scope", "user:a", "q"});  // two letters swapped
  EXPECT_THAT(swapped.err, HasSubstr("did you mean 'recall'?")) << swapped;
  RunResult begun = Engram({"consol", "--scope", "user:a"});  // the start of a name
  EXPECT_THAT(begun.err, HasSubstr("did you mean 'consolidate'?")) << begun;
  // Two names one edit away: the first in byte order, every time.
  RunResult tie = Engram({"rembed"});
  EXPECT_THAT(tie.err, HasSubstr("unknown command 'rembed'; did you mean 'embed'?")) << tie;
  // A subcommand of a command group.
  RunResult creat = RunEngram({"keys", "creat", "--keys", File("keys.json", "")});
  EXPECT_EQ(creat.exit_code, 2) << creat;
  EXPECT_THAT(creat.err, HasSubstr("engram: keys: unknown command 'creat'; did you mean 'create'?"));
  EXPECT_THAT(creat.err, HasSubstr("run 'engram keys --help'"));
  // Flags of the command, global flags after it, with a value joined by '=' or one dash.
  RunResult scop = Engram({"recall", "--scop", "user:a", "q"});
  EXPECT_EQ(scop.exit_code, 2) << scop;
  EXPECT_THAT(scop.err, HasSubstr("engram: recall: unknown flag '--scop'; did you mean '--scope'?"));
  EXPECT_THAT(scop.err, Not(HasSubstr("--scope is required")));
  RunResult budget = Engram({"recall", "--scope", "user:a", "--budgt=500", "q"});
  EXPECT_THAT(budget.err, HasSubstr("unknown flag '--budgt'; did you mean '--budget'?")) << budget;
  RunResult json_flag = Engram({"recall", "--scope", "user:a", "q", "--jsn"});
  EXPECT_THAT(json_flag.err, HasSubstr("unknown flag '--jsn'; did you mean '--json'?"))
      << json_flag;
  RunResult one_dash = Engram({"recall", "-scope", "user:a", "q"});
  EXPECT_THAT(one_dash.err, HasSubstr("unknown flag '-scope'; did you mean '--scope'?"))
      << one_dash;
  RunResult store = RunEngram({"--stor", store_, "recall", "--scope", "user:a", "q"});
  EXPECT_EQ(store.exit_code, 2) << store;
  EXPECT_THAT(store.err, HasSubstr("engram: unknown flag '--stor'; did you mean '--store'?"));
  // Nothing close: the word alone.
  RunResult far = Engram({"frobnicate"});
  EXPECT_EQ(far.exit_code, 2) << far;
  EXPECT_THAT(far.err, HasSubstr("engram: unknown command 'frobnicate'\n"));
  RunResult short_flag = Engram({"recall", "--scope", "user:a", "-x", "q"});
  EXPECT_THAT(short_flag.err, HasSubstr("unknown flag '-x'\n")) << short_flag;
  // With --json the error is JSON on stdout.
  RunResult as_json = Engram({"--json", "recal"});
  EXPECT_EQ(as_json.exit_code, 2) << as_json;
  EXPECT_EQ(ParseJson(as_json)["error"]["code"], "INVALID_ARGUMENT");
  EXPECT_EQ(ParseJson(as_json)["error"]["message"],
            "unknown command 'recal'; did you mean 'recall'?");
  // Flag values and words after "--" are neither commands nor flags: the query "--scop" runs.
  IngestExample();
  RunResult after_dashes = Engram({"recall", "--scope", "user:priya", "--k", "1", "--", "--scop"});
  EXPECT_EQ(after_dashes.exit_code, 0) << after_dashes;
}

TEST_F(CliTest, HelpDocumentsExitCodes) {
  RunResult help = RunEngram({"--help"});
  EXPECT_EQ(help.exit_code, 0) << help;
  EXPECT_THAT(help.out, HasSubstr("Exit codes: 0 success; 1 error"));
  EXPECT_THAT(help.out, HasSubstr("3 not found"));
  RunResult version = RunEngram({"version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_THAT(version.out, HasSubstr("engram 0."));
}

TEST_F(CliTest, EraseNeedsYes) {
  IngestExample();
  RunResult refused = Engram({"erase", "--scope", "user:priya"});
  EXPECT_EQ(refused.exit_code, 2) << refused;
  EXPECT_THAT(refused.err, HasSubstr("--yes"));
  EXPECT_EQ(CountMemories("user:priya"), kExampleTurns);
  RunResult erased = Engram({"--json", "erase", "--scope", "user:priya", "--yes"});
  EXPECT_EQ(erased.exit_code, 0) << erased;
  EXPECT_GE(ParseJson(erased)["erased"]["nodes"].get<int>(), kExampleTurns);
  EXPECT_EQ(CountMemories("user:priya"), 0);
}

TEST_F(CliTest, ShowHistoryRetireRoundTrip) {
  IngestExample();
  RunResult list = Engram({"--json", "list", "--scope", "user:priya", "--limit", "2"});
  ASSERT_EQ(list.exit_code, 0) << list;
  const json listed = ParseJson(list);
  ASSERT_EQ(listed["memories"].size(), 2u);
  const std::string id = listed["memories"][0]["id"];
  EXPECT_EQ(listed["memories"][0]["sequence"], 1);

  RunResult show = Engram({"--json", "show", id});
  ASSERT_EQ(show.exit_code, 0) << show;
  EXPECT_THAT(ParseJson(show)["text"].get<std::string>(), HasSubstr("Northwind Logistics"));
  EXPECT_EQ(ParseJson(show)["metadata"]["channel"], "group-chat");

  RunResult retire = Engram({"retire", id, "--reason", "user asked"});
  EXPECT_EQ(retire.exit_code, 0) << retire;
  RunResult again = Engram({"retire", id});
  EXPECT_EQ(again.exit_code, 1) << again;  // already retired: kFailedPrecondition

  RunResult history = Engram({"--json", "history", id});
  ASSERT_EQ(history.exit_code, 0) << history;
  EXPECT_GE(ParseJson(history)["events"].size(), 2u);

  RunResult missing = Engram({"show", std::string(32, '0')});
  EXPECT_EQ(missing.exit_code, 3) << missing;

  RunResult retire_all = Engram({"--json", "retire", "--all", "--scope", "user:priya"});
  EXPECT_EQ(retire_all.exit_code, 0) << retire_all;
  EXPECT_GE(ParseJson(retire_all)["retired"].get<int>(), kExampleTurns - 1);
}

TEST_F(CliTest, ScopesAndRebuildIndex) {
  IngestExample("user:priya");
  IngestExample("user:tom/run:1");
  RunResult scopes = Engram({"--json", "scopes"});
  ASSERT_EQ(scopes.exit_code, 0) << scopes;
  std::vector<std::string> names;
  const json listed = ParseJson(scopes);
  for (const json& scope : listed["scopes"]) names.push_back(scope["scope"]);
  EXPECT_THAT(names, ::testing::IsSupersetOf({"user:priya", "user:tom/run:1"}));
  RunResult rebuild = Engram({"--json", "rebuild-index"});
  ASSERT_EQ(rebuild.exit_code, 0) << rebuild;
  EXPECT_EQ(ParseJson(rebuild)["matched_live_index"], true);
}

// ---- benchmark formats -------------------------------------------------------------------

TEST_F(CliTest, LocomoDevFileMakesFiveScopesAndRecallFindsDiaIds) {
  const std::string path = ::engram::testing::BenchDataFile("locomo_dev.json");
  ENGRAM_SKIP_WITHOUT_BENCH_FILE(path);
  RunResult ingest = Engram({"--json", "ingest", "--format", "locomo", path});
  ASSERT_EQ(ingest.exit_code, 0) << ingest;
  EXPECT_EQ(ParseJson(ingest)["turns"], 419 + 369 + 663 + 629 + 680);

  RunResult scopes = Engram({"--json", "scopes"});
  ASSERT_EQ(scopes.exit_code, 0) << scopes;
  std::vector<std::string> names;
  const json listed = ParseJson(scopes);
  for (const json& scope : listed["scopes"]) names.push_back(scope["scope"]);
  EXPECT_THAT(names, ::testing::UnorderedElementsAre("world:locomo-conv-26", "world:locomo-conv-30",
                                                     "world:locomo-conv-41", "world:locomo-conv-42",
                                                     "world:locomo-conv-43"));

  // Global options after the subcommand, as in the README.
  RunResult recall =
      RunEngram({"recall", "--store", store_, "--scope", "world:locomo-conv-26", "--k", "10",
                 "--json", "When did Caroline go to the LGBTQ support group?"});
  ASSERT_EQ(recall.exit_code, 0) << recall;
  const json result = ParseJson(recall);
  ASSERT_TRUE(result["items"].is_array());
  EXPECT_LE(result["items"].size(), 10u);
  int with_dia_id = 0;
  for (const json& item : result["items"]) {
    if (item["metadata"].is_object() && item["metadata"].contains("dia_id")) ++with_dia_id;
  }
  EXPECT_GE(with_dia_id, 1);
}

TEST_F(CliTest, LongMemEvalFileMakesOneScopePerQuestion) {
  const std::string path = File("lme.json", R"([
    {"question_id": "q1", "question_type": "single-session-user", "question": "Pets?",
     "answer": "3 cats", "question_date": "2023/06/01 (Thu) 10:00", "answer_session_ids": ["s2"],
     "haystack_session_ids": ["s1", "s2"],
     "haystack_dates": ["2023/05/20 (Sat) 02:21", "2023/05/21 (Sun) 09:00"],
     "haystack_sessions": [[{"role": "user", "content": "Hi"},
                            {"role": "assistant", "content": "Hello, how can I help?"},
                            {"role": "assistant", "content": "\u200b"}],
                           [{"role": "user", "content": "I have 3 cats.", "has_answer": true}]]},
    {"question_id": "q2", "question_type": "temporal-reasoning", "question": "When?",
     "answer": "May", "question_date": "2023/06/02 (Fri) 10:00",
     "haystack_session_ids": ["s9"], "haystack_dates": ["2023/05/01 (Mon) 08:00"],
     "haystack_sessions": [[{"role": "user", "content": "I started running in May."}]]}])");
  RunResult ingest = Engram({"--json", "ingest", "--format", "longmemeval", path});
  ASSERT_EQ(ingest.exit_code, 0) << ingest;
  EXPECT_EQ(ParseJson(ingest)["turns"], 4);
  EXPECT_EQ(ParseJson(ingest)["skipped_blank_turns"], 1);  // a lone U+200B, as in the real file
  EXPECT_EQ(CountMemories("world:lme-q1"), 3);
  EXPECT_EQ(CountMemories("world:lme-q2"), 1);
  RunResult list = Engram({"--json", "list", "--scope", "world:lme-q1"});
  const json memories = ParseJson(list)["memories"];
  ASSERT_EQ(memories.size(), 3u);
  EXPECT_EQ(memories[1]["role"], "assistant");
  EXPECT_EQ(memories[2]["metadata"]["has_answer"], true);
  EXPECT_EQ(memories[2]["event_time"], "2023-05-21T09:00:00Z");
}

// ---- hostile input -----------------------------------------------------------------------

TEST_F(CliTest, HugeScopeNameIsRejected) {
  IngestExample();
  // The kernel caps one argument at 128 KiB, so a 1 MB name travels in a LoCoMo sample_id.
  const std::string long_name(120 * 1024, 'n');
  RunResult recall = Engram({"recall", "--scope", "user:" + long_name, "q"});
  EXPECT_EQ(recall.exit_code, 2) << recall.exit_code << recall.err.substr(0, 500);
  EXPECT_THAT(recall.err, HasSubstr("at most 200"));
  EXPECT_LT(recall.err.size(), 4096u);  // the name is not echoed back in full

  const std::string locomo = File("huge.json", "[{\"sample_id\": \"" + std::string(1 << 20, 'x') +
                                                   "\", \"conversation\": {}, \"qa\": []}]");
  RunResult ingest = Engram({"ingest", "--format", "locomo", locomo});
  EXPECT_EQ(ingest.exit_code, 1) << ingest.exit_code << ingest.err.substr(0, 500);
  EXPECT_THAT(ingest.err, HasSubstr("cannot name a scope"));
  EXPECT_LT(ingest.err.size(), 4096u);
}

TEST_F(CliTest, QueryWithControlCharactersDoesNotReachTheTerminal) {
  IngestExample();
  RunResult result =
      Engram({"recall", "--scope", "user:priya", "Biscuit \x1b[31mred\x07 \x01 balcony"});
  EXPECT_EQ(result.signal, 0) << result;
  ASSERT_THAT(result.exit_code, AnyOf(0, 1)) << result;
  EXPECT_EQ(result.out.find('\x1b'), std::string::npos) << result;
  EXPECT_EQ(result.err.find('\x1b'), std::string::npos) << result;
}

TEST_F(CliTest, QueryWithNulBytesFromStdinErrorsOrAnswersButNeverCrashes) {
  IngestExample();
  const std::string query("where\0is\0Biscuit\0", 17);
  RunResult result = Engram({"--json", "recall", "--scope", "user:priya", "-"}, query);
  EXPECT_EQ(result.signal, 0) << result;
  ASSERT_THAT(result.exit_code, AnyOf(0, 1)) << result;
  const json parsed = ParseJson(result);
  if (result.exit_code == 1) {
    EXPECT_EQ(parsed["error"]["code"], "INVALID_ARGUMENT") << result;
  } else {
    EXPECT_TRUE(parsed["items"].is_array()) << result;
  }
}

TEST_F(CliTest, DeeplyNestedMetadataIsAnErrorNotACrash) {
  const std::string deep =
      File("deep.jsonl", "{\"text\": \"x\", \"metadata\": {\"a\": " + std::string(10000, '[') +
                             std::string(10000, ']') + "}}\n");
  RunResult result = Engram({"ingest", "--scope", "user:deep", deep});
  EXPECT_EQ(result.signal, 0) << result;
  EXPECT_EQ(result.exit_code, 1) << result;
  EXPECT_THAT(result.err, HasSubstr("deep.jsonl line 1: JSON nested deeper than"));
  EXPECT_EQ(CountMemories("user:deep"), 0);
}

TEST_F(CliTest, CorruptZstdInputIsCorruption) {
  const std::string path = File("turns.jsonl.zst", std::string("\x28\xB5\x2F\xFD garbage", 12));
  RunResult result = Engram({"ingest", "--scope", "user:z", path});
  EXPECT_EQ(result.exit_code, 1) << result;
  EXPECT_THAT(result.err, HasSubstr("turns.jsonl.zst: corrupt zstd data"));
}

}  // namespace
}  // namespace engram

namespace engram {
namespace {

// `engram embed` with the built-in sentence encoder (needs scripts/setup's model files).
TEST(CliEmbedTest, ParaphrasesAreCloserThanUnrelatedTexts) {
  const RunResult paraphrase = RunEngram(
      {"--json", "embed", "dentist appointment Tuesday", "see the tooth doctor next week"});
  ASSERT_EQ(paraphrase.exit_code, 0) << paraphrase;
  const RunResult unrelated = RunEngram(
      {"--json", "embed", "dentist appointment Tuesday", "the stock market fell sharply"});
  ASSERT_EQ(unrelated.exit_code, 0) << unrelated;
  const double close = ParseJson(paraphrase)["cosine"].get<double>();
  const double far = ParseJson(unrelated)["cosine"].get<double>();
  EXPECT_GT(close, far + 0.2);
  EXPECT_EQ(ParseJson(paraphrase)["model"], "use-lite@0.2.0");

  const RunResult vectors = RunEngram({"--json", "embed", "one", "two", "three"});
  ASSERT_EQ(vectors.exit_code, 0) << vectors;
  const json embeddings = ParseJson(vectors)["embeddings"];
  ASSERT_EQ(embeddings.size(), 3u);
  EXPECT_EQ(embeddings[0]["vector"].size(), 512u);
}

// Word-vector matches are on by default; without the vectors installed recall still answers,
// and `engram recall` warns on stderr what it ran without, whatever the output format.
TEST_F(CliTest, RecallWithoutTheWordVectorsSaysSoOnStderr) {
  const std::string config = File("lean.toml",
                                  "[embedder]\nkind = \"hashing\"\n[write]\nsignals = false\n"
                                  "entities = false\nreferences = false\nfacts = false\n");
  const std::string no_data = (fs::path(dir_) / "no-data").string();
  const std::vector<std::string> common = {"--config", config, "--data-dir", no_data};
  std::vector<std::string> ingest = common;
  ingest.insert(ingest.end(), {"ingest", "--scope", "user:priya", kExample});
  ASSERT_EQ(Engram(ingest).exit_code, 0);
  std::vector<std::string> recall = common;
  recall.insert(recall.end(), {"recall", "--scope", "user:priya", "What dog did Tom adopt?"});
  const RunResult recalled = Engram(recall);
  ASSERT_EQ(recalled.exit_code, 0) << recalled;
  EXPECT_THAT(recalled.out, HasSubstr("1. [turn] score "));
  EXPECT_THAT(recalled.err, HasSubstr("engram recall: warning: word-vector matches off: word "
                                      "vectors file "));
  EXPECT_THAT(recalled.err, HasSubstr("scripts/fetch-models"));
  // --json carries the same warning in the diagnostics, and stderr still says it.
  std::vector<std::string> as_json = {"--json"};
  as_json.insert(as_json.end(), recall.begin(), recall.end());
  const RunResult json_recalled = Engram(as_json);
  ASSERT_EQ(json_recalled.exit_code, 0) << json_recalled;
  const json warnings = ParseJson(json_recalled)["diagnostics"]["warnings"];
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0].get<std::string>(), HasSubstr("word-vector matches off: "));
  EXPECT_THAT(json_recalled.err, HasSubstr("engram recall: warning: word-vector matches off"));
  // --explain lists it with the diagnostics; the plan line no longer carries it.
  std::vector<std::string> explained = recall;
  explained.push_back("--explain");
  const RunResult explain = Engram(explained);
  ASSERT_EQ(explain.exit_code, 0) << explain;
  EXPECT_THAT(explain.out, HasSubstr("\nwarning: word-vector matches off: "));
  EXPECT_THAT(explain.out, Not(::testing::ContainsRegex("plan: [^\n]*word-vector")));
  // The order's origin: the example's 60 turns give a smaller pool than the learned ranker was
  // trained on, so the fused order stays and the line says why.
  EXPECT_THAT(explain.out, ::testing::ContainsRegex("\norder: fusion \\([0-9]+ fused candidates, "
                                                    "fewer than the learned ranker was trained "
                                                    "on: [0-9]+\\)\n"));
  EXPECT_THAT(ParseJson(json_recalled)["diagnostics"]["ranker"].get<std::string>(),
              HasSubstr("fewer than the learned ranker was trained on"));
  // A run's context recalls from the enclosing scope, and warns the same way.
  std::vector<std::string> run_ingest = common;
  run_ingest.insert(run_ingest.end(), {"ingest", "--scope", "user:priya/run:r1", kExample});
  ASSERT_EQ(Engram(run_ingest).exit_code, 0);
  std::vector<std::string> context = common;
  context.insert(context.end(),
                 {"--json", "context", "--scope", "user:priya/run:r1", "What dog did Tom adopt?"});
  const RunResult contexted = Engram(context);
  ASSERT_EQ(contexted.exit_code, 0) << contexted;
  EXPECT_THAT(contexted.err, HasSubstr("engram context: warning: word-vector matches off: "));
  ASSERT_EQ(ParseJson(contexted)["warnings"].size(), 1u);
  // Quiet, or with the matches off, nothing is said.
  std::vector<std::string> quiet = {"-q"};
  quiet.insert(quiet.end(), recall.begin(), recall.end());
  EXPECT_THAT(Engram(quiet).err, Not(HasSubstr("word-vector")));
  const std::string off = File("off.toml",
                               "[embedder]\nkind = \"hashing\"\n[write]\nsignals = false\n"
                               "entities = false\nreferences = false\nfacts = false\n"
                               "[recall]\nword_vector_match = 0\n");
  const RunResult without = Engram({"--config", off, "--data-dir", no_data, "recall", "--scope",
                                    "user:priya", "What dog did Tom adopt?"});
  ASSERT_EQ(without.exit_code, 0) << without;
  EXPECT_THAT(without.err, Not(HasSubstr("word-vector")));
}

TEST(CliEmbedTest, MissingModelIsNotFoundAndNamesSetup) {
  const RunResult result = RunEngram({"--data-dir", "/nonexistent-engram-data", "embed", "hi"});
  EXPECT_EQ(result.exit_code, 3) << result;
  EXPECT_NE(result.err.find("scripts/setup"), std::string::npos) << result;
}

}  // namespace
}  // namespace engram

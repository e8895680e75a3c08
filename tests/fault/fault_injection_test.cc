// Fault injection: a fixed workload (open, remember batches, recall, retire, propose / accept /
// reject same_as, erase, retire-all) runs over the fault-injecting VFS (fault_vfs.h) once for
// every N up to the number of file operations of each kind the workload makes (a seeded sample
// when there are more than ENGRAM_FAULT_MAX_CASES), failing the Nth write, short write (disk
// full), fsync, read or lock. The workload stops at the first failed call. After each case:
//   - the failed call returned an error of the kind injected, naming the SQLite operation;
//   - in the same engine, with the fault cleared, the visible state is exactly the state after
//     the acknowledged calls (the failed batch is not visible at all), and the index rebuilt from
//     the store equals the live one;
//   - the store file passes PRAGMA integrity_check, reopens, holds every acknowledged call's
//     effect exactly once and the failed call's either in full or not at all (a failed commit's
//     outcome is unknown to the caller, as in every database), rebuilds its index identically and
//     takes a new write.
// The expected states come from a fault-free run of the same workload (a FixedClock makes it
// deterministic).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/testing/status_matchers.h"
#include "fault_vfs.h"
#include "test_util.h"

namespace engram {
namespace fault {
// Names the kind in test output (gtest's default prints the enum's bytes).
void PrintTo(FaultKind kind, std::ostream* out) { *out << FaultKindName(kind); }
}  // namespace fault

namespace {

using ::engram::fault::FaultKind;
using ::engram::fault::FaultVfs;
using ::engram::testing::IsOk;

// Ids handed from one workload step to the next.
struct WorkloadState {
  std::vector<std::string> alice_a;
  std::vector<std::string> alice_b;
  std::string accepted_proposal;
  std::string rejected_proposal;
};

struct Step {
  std::string name;
  std::function<Status(Engine&, WorkloadState&)> run;
};

Turn T(std::string speaker, std::string text, std::string session) {
  return testing::MakeTurn(std::move(speaker), std::move(text), std::move(session));
}

Status RememberBatch(Engine& engine, const std::string& scope, std::vector<Turn> turns,
                     std::vector<std::string>* ids) {
  StatusOr<RememberResult> result = engine.Remember(testing::S(scope), turns);
  if (!result.ok()) return result.status();
  if (ids != nullptr) *ids = result->ids;
  return Status::Ok();
}

Status RecallOnce(Engine& engine, const std::string& scope, const std::string& question) {
  return engine.Recall(testing::S(scope), {.text = question}).status();
}

// The workload after Engine::Open (step 0). Every write kind of the engine appears at least once.
std::vector<Step> Workload() {
  return {
      {"remember alice batch a",
       [](Engine& engine, WorkloadState& state) {
         return RememberBatch(
             engine, "user:alice",
             {T("Alice", "My sister Maya moved to Porto in March 2023.", "s1"),
              T("Alice", "I paid $40 for the concert tickets on 2023-05-06.", "s1"),
              T("Bob", "Alice Smith emailed alice@example.com about the trip to Lisbon.", "s1")},
             &state.alice_a);
       }},
      {"recall alice",
       [](Engine& engine, WorkloadState&) {
         return RecallOnce(engine, "user:alice", "Where does Maya live?");
       }},
      {"remember alice batch b",
       [](Engine& engine, WorkloadState& state) {
         return RememberBatch(engine, "user:alice",
                              {T("Alice", "Maya is learning to play the cello.", "s2"),
                               T("Alice", "Next Friday we fly to Lisbon with Maya.", "s2")},
                              &state.alice_b);
       }},
      {"remember bob batch c",
       [](Engine& engine, WorkloadState&) {
         return RememberBatch(engine, "user:bob",
                              {T("Bob", "I started a new job at the bakery in Leeds.", "b1"),
                               T("Bob", "My dog Rex is three years old.", "b1"),
                               T("Bob", "Yesterday I ran 10 km along the river.", "b1")},
                              nullptr);
       }},
      {"retire alice a1",
       [](Engine& engine, WorkloadState& state) {
         return engine.Retire(state.alice_a.at(1), "refunded");
       }},
      {"propose same_as a0 b0",
       [](Engine& engine, WorkloadState& state) {
         StatusOr<MergeProposal> proposal =
             engine.ProposeSameAs(state.alice_a.at(0), state.alice_b.at(0), "both about Maya");
         if (!proposal.ok()) return proposal.status();
         state.accepted_proposal = proposal->id;
         return Status::Ok();
       }},
      {"accept proposal",
       [](Engine& engine, WorkloadState& state) {
         return engine.AcceptProposal(state.accepted_proposal);
       }},
      {"propose same_as a2 b1",
       [](Engine& engine, WorkloadState& state) {
         StatusOr<MergeProposal> proposal =
             engine.ProposeSameAs(state.alice_a.at(2), state.alice_b.at(1), "Lisbon");
         if (!proposal.ok()) return proposal.status();
         state.rejected_proposal = proposal->id;
         return Status::Ok();
       }},
      {"reject proposal",
       [](Engine& engine, WorkloadState& state) {
         return engine.RejectProposal(state.rejected_proposal);
       }},
      {"remember carol batch d",
       [](Engine& engine, WorkloadState&) {
         return RememberBatch(engine, "user:carol",
                              {T("Carol", "My phone number changed last week.", "c1"),
                               T("Carol", "I keep my passport in the blue drawer.", "c1")},
                              nullptr);
       }},
      {"list carol", [](Engine& engine,
                        WorkloadState&) { return engine.List(testing::S("user:carol")).status(); }},
      {"erase carol",
       [](Engine& engine, WorkloadState&) {
         return engine.Erase(testing::S("user:carol")).status();
       }},
      {"retire-all bob",
       [](Engine& engine, WorkloadState&) {
         return engine.RetireAll(testing::S("user:bob")).status();
       }},
      {"remember alice batch e",
       [](Engine& engine, WorkloadState&) {
         return RememberBatch(engine, "user:alice",
                              {T("Alice", "Maya's cello recital is on 2023-06-10.", "s3"),
                               T("Alice", "I booked a table at Casa Azul for the recital.", "s3")},
                              nullptr);
       }},
      {"recall alice again", [](Engine& engine, WorkloadState&) {
         return RecallOnce(engine, "user:alice", "When is the cello recital?");
       }}};
}

EngineOptions FaultOptions(const testing::TempDir& dir) {
  EngineOptions options = testing::TestOptions(dir);
  Config config;
  config.embedder.kind = "hashing";  // vectors are stored, without the encoder's load time
  options.config = config;
  return options;
}

// Everything a caller can see of the store, without ids or times (a failed call may have used
// clock ticks, so times differ between runs; content addresses follow from the content).
std::string Snapshot(Engine& engine) {
  std::ostringstream out;
  StatusOr<std::vector<ScopeInfo>> scopes = engine.ListScopes();
  if (!scopes.ok()) return "scopes: " + scopes.status().ToString();
  for (const ScopeInfo& info : *scopes) {
    out << "scope " << info.scope << " memories=" << info.memories
        << " last_sequence=" << info.last_sequence << "\n";
    const Scope scope = testing::S(info.scope);
    StatusOr<std::vector<Memory>> turns =
        engine.List(scope, {.limit = 100000, .include_retired = true});
    if (!turns.ok()) return "list: " + turns.status().ToString();
    for (const Memory& memory : *turns) {
      out << "  " << memory.sequence << " " << memory.speaker << " [" << memory.session_id << "] "
          << NodeStatusName(memory.status) << " " << memory.text << "\n";
    }
    StatusOr<std::vector<MergeProposal>> proposals = engine.ListProposals(scope);
    if (!proposals.ok()) return "proposals: " + proposals.status().ToString();
    for (const MergeProposal& proposal : *proposals) {
      out << "  same_as " << proposal.status << " " << proposal.reason << "\n";
    }
  }
  return out.str();
}

std::string IntegrityCheck(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    const std::string message = db != nullptr ? sqlite3_errmsg(db) : "open failed";
    sqlite3_close_v2(db);
    return message;
  }
  std::string result;
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &stmt, nullptr) == SQLITE_OK) {
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      if (!result.empty()) result += "; ";
      result += reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    }
  } else {
    result = sqlite3_errmsg(db);
  }
  sqlite3_finalize(stmt);
  sqlite3_close_v2(db);
  return result;
}

// The status code each injected fault must surface as (store/sqlite/connection.cc's mapping).
StatusCode ExpectedCode(FaultKind kind) {
  return kind == FaultKind::kWriteDiskFull ? StatusCode::kResourceExhausted
                                           : StatusCode::kUnavailable;
}

// The expected visible state after each step of a fault-free run: [0] after Engine::Open,
// [i] after workload step i.
struct Reference {
  std::vector<std::string> snapshots;
  fault::OperationCounts counts;
};

const Reference& GetReference() {
  static const Reference reference = [] {
    Reference result;
    FaultVfs& vfs = FaultVfs::Install();
    vfs.Disarm();
    {
      // Counting run: the file operations of the whole workload, open included.
      testing::TempDir dir;
      vfs.ResetCounts();
      std::unique_ptr<Engine> engine = testing::OpenOrDie(FaultOptions(dir));
      WorkloadState state;
      for (const Step& step : Workload()) {
        const Status status = step.run(*engine, state);
        if (!status.ok()) ADD_FAILURE() << step.name << ": " << status;
      }
      engine.reset();
      result.counts = vfs.counts();
    }
    testing::TempDir dir;
    std::unique_ptr<Engine> engine = testing::OpenOrDie(FaultOptions(dir));
    result.snapshots.push_back(Snapshot(*engine));
    WorkloadState state;
    for (const Step& step : Workload()) {
      const Status status = step.run(*engine, state);
      if (!status.ok()) ADD_FAILURE() << step.name << ": " << status;
      result.snapshots.push_back(Snapshot(*engine));
    }
    return result;
  }();
  return reference;
}

std::int64_t CountFor(FaultKind kind, const fault::OperationCounts& counts) {
  switch (kind) {
    case FaultKind::kWriteIoError:
    case FaultKind::kWriteDiskFull:
      return counts.writes;
    case FaultKind::kSyncIoError:
      return counts.syncs;
    case FaultKind::kReadIoError:
      return counts.reads;
    case FaultKind::kLockBusy:
      return counts.locks;
  }
  return 0;
}

// N = 1 .. total (and one past it, where no fault fires), or a seeded sample of at most
// `max_cases` of them that always holds the first and the last.
std::vector<std::int64_t> ChooseCases(std::int64_t total, std::size_t max_cases,
                                      std::uint32_t seed) {
  std::vector<std::int64_t> all;
  for (std::int64_t nth = 1; nth <= total + 1; ++nth) all.push_back(nth);
  if (max_cases == 0 || all.size() <= max_cases) return all;
  std::vector<std::int64_t> chosen = {1, total};
  std::vector<std::int64_t> middle(all.begin() + 1, all.end() - 2);
  std::mt19937 random(seed);
  std::shuffle(middle.begin(), middle.end(), random);
  middle.resize(max_cases - 2);
  chosen.insert(chosen.end(), middle.begin(), middle.end());
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

std::size_t MaxCasesPerKind() {
  const char* value = std::getenv("ENGRAM_FAULT_MAX_CASES");
  if (value == nullptr || *value == '\0') return 100;
  return static_cast<std::size_t>(std::strtoull(value, nullptr, 10));
}

struct CaseTally {
  std::size_t cases = 0;
  std::size_t calls = 0;         // engine calls run (Open included)
  std::size_t failed_cases = 0;  // cases in which a call returned the injected error
  std::int64_t faults = 0;       // file operations failed
  std::int64_t file_operations = 0;
};

// Runs one case: the workload with the `nth` operation of `kind` failing.
void RunCase(FaultKind kind, std::int64_t nth, const Reference& reference, CaseTally& tally) {
  const std::string label =
      std::string(fault::FaultKindName(kind)) + " at operation " + std::to_string(nth);
  SCOPED_TRACE(label);
  FaultVfs& vfs = FaultVfs::Install();
  testing::TempDir dir;
  const EngineOptions options = FaultOptions(dir);
  const std::vector<Step> steps = Workload();

  vfs.Arm(kind, nth);
  std::optional<Status> failure;
  std::string failed_call;
  std::size_t acknowledged = 0;  // workload steps acknowledged (the snapshot index)
  std::unique_ptr<Engine> engine;
  ++tally.calls;
  StatusOr<std::unique_ptr<Engine>> opened = Engine::Open(options);
  if (!opened.ok()) {
    failure = opened.status();
    failed_call = "open";
  } else {
    engine = std::move(opened).value();
    WorkloadState state;
    for (const Step& step : steps) {
      ++tally.calls;
      Status status = step.run(*engine, state);
      if (!status.ok()) {
        failure = std::move(status);
        failed_call = step.name;
        break;
      }
      ++acknowledged;
    }
  }
  vfs.Disarm();
  ++tally.cases;
  tally.faults += vfs.faults_injected();
  tally.file_operations += CountFor(kind, vfs.counts());

  if (failure.has_value()) {
    ++tally.failed_cases;
    // The error is the one injected, and says which SQLite operation failed on which file.
    EXPECT_EQ(failure->code(), ExpectedCode(kind)) << failed_call << ": " << *failure;
    EXPECT_THAT(failure->message(), ::testing::HasSubstr("sqlite: ")) << failed_call;
    EXPECT_THAT(failure->message(), ::testing::HasSubstr(options.store_path)) << failed_call;
    EXPECT_GT(vfs.faults_injected(), 0) << failed_call << ": failed without a fault: " << *failure;
  }

  if (engine != nullptr) {
    // Same process, fault cleared: exactly the acknowledged state, unless the error says the
    // failed call was committed (then exactly the state after it); and a consistent index.
    const std::string visible = Snapshot(*engine);
    if (failure.has_value() && failure->message().find("is committed") != std::string::npos &&
        acknowledged + 1 < reference.snapshots.size()) {
      EXPECT_EQ(visible, reference.snapshots[acknowledged + 1])
          << failed_call << " said it was committed: " << *failure;
    } else {
      EXPECT_EQ(visible, reference.snapshots[acknowledged])
          << "after " << failed_call << " failed: " << failure.value_or(Status::Ok());
    }
    StatusOr<RebuildReport> rebuilt = engine->RebuildIndex();
    ASSERT_THAT(rebuilt, IsOk());
    EXPECT_TRUE(rebuilt->matched_live_index) << "live index differs after " << failed_call;
    engine.reset();
  }

  if (testing::ReadFileBytes(options.store_path).empty() && failed_call == "open") {
    // Open failed before the store file got any content; reopening creates it afresh.
  } else {
    EXPECT_EQ(IntegrityCheck(options.store_path), "ok");
  }

  StatusOr<std::unique_ptr<Engine>> reopened = Engine::Open(options);
  ASSERT_THAT(reopened, IsOk()) << "reopen after " << failed_call;
  Engine& recovered = **reopened;
  const std::string after = Snapshot(recovered);
  const std::string& without_failed = reference.snapshots[acknowledged];
  if (failure.has_value() && acknowledged + 1 < reference.snapshots.size() &&
      failed_call != "open") {
    // The failed call's outcome is unknown to the caller: all of it or none of it.
    const std::string& with_failed = reference.snapshots[acknowledged + 1];
    EXPECT_TRUE(after == without_failed || after == with_failed)
        << "after " << failed_call << " failed, the reopened store holds\n"
        << after << "expected\n"
        << without_failed;
  } else {
    EXPECT_EQ(after, without_failed);
  }
  StatusOr<RebuildReport> rebuilt = recovered.RebuildIndex();
  ASSERT_THAT(rebuilt, IsOk());
  EXPECT_TRUE(rebuilt->matched_live_index);
  // The recovered store takes new writes and finds them.
  EXPECT_THAT(recovered.Remember(testing::S("user:after"),
                                 std::vector<Turn>{T("Dana", "Recovery works fine.", "r1")}),
              IsOk());
  EXPECT_THAT(recovered.Recall(testing::S("user:after"), {.text = "recovery"}), IsOk());
}

class FaultInjectionTest : public ::testing::TestWithParam<FaultKind> {};

TEST_P(FaultInjectionTest, EveryFailureIsCleanAndLosesNoAcknowledgedWrite) {
  const FaultKind kind = GetParam();
  const Reference& reference = GetReference();
  const std::int64_t total = CountFor(kind, reference.counts);
  ASSERT_GT(total, 0) << "the workload makes no operation of kind " << FaultKindName(kind);
  const std::vector<std::int64_t> cases =
      ChooseCases(total, MaxCasesPerKind(), 21u + static_cast<std::uint32_t>(kind));
  CaseTally tally;
  for (const std::int64_t nth : cases) {
    RunCase(kind, nth, reference, tally);
    if (::testing::Test::HasFatalFailure()) break;
  }
  // Faults must actually have been injected and made calls fail, or the suite proves nothing.
  // A busy lock fires once and SQLite's busy handler retries past it, so no call need fail.
  EXPECT_GT(tally.faults, 0);
  if (kind != FaultKind::kLockBusy) {
    EXPECT_GT(tally.failed_cases, 0u);
  }
  std::cout << "fault-injection " << fault::FaultKindName(kind) << ": workload operations " << total
            << ", cases " << tally.cases << ", engine calls " << tally.calls << ", file operations "
            << tally.file_operations << ", faults injected " << tally.faults
            << ", cases with a failed call " << tally.failed_cases << "\n";
}

INSTANTIATE_TEST_SUITE_P(AllKinds, FaultInjectionTest, ::testing::ValuesIn(fault::kAllFaultKinds),
                         [](const ::testing::TestParamInfo<FaultKind>& param_info) {
                           std::string name(fault::FaultKindName(param_info.param));
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// The shim itself: a fault-free workload through it leaves the same store as the reference, and
// an armed fault beyond the workload's operation count never fires.
TEST(FaultVfsTest, CountsOperationsAndInjectsNothingWhenDisarmed) {
  const Reference& reference = GetReference();
  EXPECT_GT(reference.counts.writes, 0);
  EXPECT_GT(reference.counts.syncs, 0);
  EXPECT_GT(reference.counts.reads, 0);
  EXPECT_GT(reference.counts.locks, 0);
  ASSERT_EQ(reference.snapshots.size(), Workload().size() + 1);
  EXPECT_THAT(reference.snapshots.back(), ::testing::HasSubstr("scope user:alice"));
  EXPECT_THAT(reference.snapshots.back(), ::testing::Not(::testing::HasSubstr("user:carol")));
  EXPECT_THAT(reference.snapshots.back(), ::testing::HasSubstr("same_as accepted both about Maya"));
  EXPECT_THAT(reference.snapshots.back(), ::testing::HasSubstr("same_as rejected Lisbon"));
}

}  // namespace
}  // namespace engram

// io/scope_records.h through a real engine: pages of a scope's memories never end inside a
// sequence number (a turn shares its own with the entities and facts derived from it), so paging
// with next_after neither skips nor repeats a memory at any page size.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/testing/status_matchers.h"
#include "io/scope_records.h"
#include "test_util.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;

class ListPageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions options = testing::TestOptions(dir_);
    options.config = Config{};
    options.config->embedder.kind = "none";
    engine_ = testing::OpenOrDie(options);
    const std::vector<Turn> turns = {
        testing::MakeTurn("Alice", "My sister Maya lives in Porto with her friend Anna.", "s1",
                          "2024-05-01T10:00:00Z"),
        testing::MakeTurn("Bob", "Nice.", "s1", "2024-05-01T10:01:00Z"),
        testing::MakeTurn("Alice", "Tom moved to Lisbon and works for Google there.", "s1",
                          "2024-05-01T10:02:00Z"),
    };
    ASSERT_THAT(engine_->Remember(scope_, turns, {.wait = RememberWait::kDerived}), IsOk());
    ListOptions all;
    all.kind = std::nullopt;
    all.limit = 0;
    StatusOr<std::vector<Memory>> everything = engine_->List(scope_, all);
    ASSERT_THAT(everything, IsOk());
    for (const Memory& memory : *everything) all_ids_.push_back(memory.id);
  }

  testing::TempDir dir_;
  const Scope scope_ = testing::S("user:alice");
  std::unique_ptr<Engine> engine_;
  std::vector<std::string> all_ids_;
};

TEST_F(ListPageTest, TheScopeHoldsSequenceNumbersSharedByDerivedMemories) {
  // The premise of the tests below: more memories than turns, so sequence numbers repeat.
  EXPECT_GT(all_ids_.size(), 3u);
}

TEST_F(ListPageTest, PagingAtEverySizeGivesEveryMemoryOnce) {
  for (std::size_t limit = 1; limit <= all_ids_.size() + 1; ++limit) {
    SCOPED_TRACE("limit " + std::to_string(limit));
    ListOptions options;
    options.kind = std::nullopt;
    options.limit = limit;
    std::vector<std::string> paged;
    std::int64_t previous_last = -1;
    for (int pages = 0; pages < 100; ++pages) {
      StatusOr<io::MemoryPage> page = io::ListPage(*engine_, scope_, options);
      ASSERT_THAT(page, IsOk());
      ASSERT_FALSE(page->memories.empty());
      // No sequence number is split across two pages.
      EXPECT_GT(page->memories.front().sequence, previous_last);
      previous_last = page->memories.back().sequence;
      for (const Memory& memory : page->memories) paged.push_back(memory.id);
      if (!page->next_after.has_value()) break;
      EXPECT_EQ(*page->next_after, page->memories.back().sequence);
      options.after_sequence = *page->next_after;
    }
    EXPECT_EQ(paged, all_ids_);
  }
}

TEST_F(ListPageTest, AFullLastPageSaysNothingFollows) {
  ListOptions options;
  options.kind = NodeKind::kTurn;
  options.limit = 3;
  StatusOr<io::MemoryPage> page = io::ListPage(*engine_, scope_, options);
  ASSERT_THAT(page, IsOk());
  EXPECT_EQ(page->memories.size(), 3u);
  EXPECT_FALSE(page->next_after.has_value());
  options.limit = 2;
  page = io::ListPage(*engine_, scope_, options);
  ASSERT_THAT(page, IsOk());
  ASSERT_EQ(page->memories.size(), 2u);
  ASSERT_TRUE(page->next_after.has_value());
  EXPECT_EQ(*page->next_after, page->memories.back().sequence);
}

}  // namespace
}  // namespace engram

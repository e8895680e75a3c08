// Tests of the configuration key table and the loader that reads it: every key can be set, every
// number key has bounds whose violation names the key, the value and the range, route and shape
// names are checked, and docs/CONFIG.md lists every key with its default.
#include "engram/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "config/config_table.h"
#include "engram/testing/status_matchers.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::StatusIs;
using ::testing::HasSubstr;

std::string SourceDir() {
  const char* dir = std::getenv("ENGRAM_SOURCE_DIR");
  return dir != nullptr ? dir : ".";
}

TEST(ConfigTableTest, EveryKeyReadsBackItsDefaultFromTheFile) {
  const Config defaults;
  for (const config::KeySpec& spec : config::Keys()) {
    const std::string toml = "[" + std::string(spec.section) + "]\n" + std::string(spec.key) +
                             " = " + config::FormatValue(spec.Get(defaults)) + "\n";
    StatusOr<Config> parsed = ParseConfig(toml, "one.toml");
    ASSERT_THAT(parsed, IsOk()) << toml;
    EXPECT_EQ(spec.Get(*parsed), spec.Get(defaults)) << toml;
  }
}

TEST(ConfigTableTest, AnEmptyFileGivesTheDefaults) {
  StatusOr<Config> parsed = ParseConfig("", "empty.toml");
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(parsed->bm25.k1, 1.2);
  EXPECT_EQ(parsed->recall.rrf_k, 15);
  EXPECT_EQ(parsed->recall.neighbour_radius, 2u);
  EXPECT_EQ(parsed->write.reference_ttl_turns, 3u);
  EXPECT_EQ(parsed->recall.route_weights, Config{}.recall.route_weights);
  EXPECT_EQ(parsed->planner.shapes, Config{}.planner.shapes);
}

// Each number key, one step beyond each end of its range, is refused with its name, the value
// and the range.
TEST(ConfigTableTest, EveryNumberKeyOutOfRangeIsAnErrorNamingKeyValueAndRange) {
  for (const config::KeySpec& spec : config::Keys()) {
    if (!spec.IsNumber()) continue;
    const bool integer = std::holds_alternative<std::size_t>(spec.Get(Config{}));
    std::vector<double> outside = {spec.range.max + (integer ? 1 : 0.5)};
    if (spec.range.min > 0) outside.push_back(integer ? spec.range.min - 1 : spec.range.min / 2);
    if (spec.range.min_open && spec.range.min == 0 && !integer) outside.push_back(0);
    for (const double value : outside) {
      const config::Value written =
          integer ? config::Value(static_cast<std::size_t>(value)) : config::Value(value);
      const std::string toml = "[" + std::string(spec.section) + "]\n" + std::string(spec.key) +
                               " = " + config::FormatValue(written) + "\n";
      EXPECT_THAT(ParseConfig(toml, "bad.toml"),
                  StatusIs(StatusCode::kInvalidArgument,
                           HasSubstr("bad.toml:2: [" + std::string(spec.section) + "] " +
                                     std::string(spec.key) + " is " + config::FormatValue(written) +
                                     "; it must be in " + spec.range.ToString())))
          << toml;
    }
  }
}

// Keys that had no bounds before the table (issue 21: every number key has bounds).
TEST(ConfigTableTest, FormerlyUnboundedKeysHaveBounds) {
  EXPECT_THAT(ParseConfig("[embedder]\nmax_retries = 1000000\n", "x.toml"),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("[embedder] max_retries is 1000000; it must be in [0, 100]")));
  EXPECT_THAT(ParseConfig("[recall]\nrrf_k = 1e9\n", "x.toml"),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("[recall] rrf_k is 1000000000.0; it must be in (0, 10000]")));
  EXPECT_THAT(ParseConfig("[limits]\nmax_metadata_bytes = 0\n", "x.toml"),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("[limits] max_metadata_bytes is 0; it must be in [1, 16777216]")));
  EXPECT_THAT(ParseConfig("[write]\nllm_timeout_ms = 0\n", "x.toml"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("[write] llm_timeout_ms is 0")));
  EXPECT_THAT(
      ParseConfig("[recall.route_weights]\nbm25 = 1e6\n", "x.toml"),
      StatusIs(StatusCode::kInvalidArgument,
               HasSubstr("[recall.route_weights] bm25 is 1000000.0; it must be in [0, 100]")));
}

TEST(ConfigTableTest, SwitchOffValueOutsideTheRangeIsAllowed) {
  EXPECT_THAT(ParseConfig("[recall]\nfragment_soft_match = 0\n", "x.toml"), IsOk());
  EXPECT_THAT(ParseConfig("[recall]\nfragment_soft_match = 0.3\n", "x.toml"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("it must be in 0 or [0.5, 1)")));
}

TEST(ConfigTableTest, MisspeltRouteNameIsAnErrorListingTheRoutes) {
  const std::string routes =
      "bm25, entity, facts, fragment, keyword, scene, session, temporal, vector";
  EXPECT_THAT(ParseConfig("[recall.route_weights]\nbm25 = 1.0\nvectr = 0.5\n", "w.toml"),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("w.toml:3: [recall.route_weights] vectr: unknown route \"vectr\" "
                                 "(routes: " +
                                 routes + ")")));
  EXPECT_THAT(ParseConfig("[planner.list]\nfragmnet = 1.5\n", "p.toml"),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("p.toml:2: [planner.list] fragmnet: unknown route \"fragmnet\" "
                                 "(routes: " +
                                 routes + ")")));
  EXPECT_THAT(ParseConfig("[planner.summary]\nbudget_scale = 2\nsession = 1\n", "p.toml"), IsOk());
  EXPECT_THAT(ParseConfig("[planner.lists]\nfragment = 1.5\n", "p.toml"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("unknown key [planner] lists")));
}

// TOML spells NaN and infinity (nan, inf); a route weight or planner value must be finite, and
// the error shows the value as TOML writes it.
TEST(ConfigTableTest, NonFiniteRouteWeightsAreErrorsNamingTheRoute) {
  EXPECT_THAT(ParseConfig("[recall.route_weights]\nbm25 = nan\n", "w.toml"),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("w.toml:2: [recall.route_weights] bm25 is nan; it must be in "
                                 "[0, 100]")));
  EXPECT_THAT(ParseConfig("[recall.route_weights]\nvector = inf\n", "w.toml"),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("[recall.route_weights] vector is inf; it must be in")));
  EXPECT_THAT(ParseConfig("[recall.route_weights]\nvector = -inf\n", "w.toml"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("vector is -inf;")));
  EXPECT_THAT(ParseConfig("[recall.route_weights]\nfragment = -0.5\n", "w.toml"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("fragment is -0.5;")));
  EXPECT_THAT(ParseConfig("[planner.list]\nfragment = nan\n", "p.toml"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("[planner.list] fragment is nan;")));
  EXPECT_THAT(ParseConfig("[planner.list]\nbudget_scale = inf\n", "p.toml"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("budget_scale is inf;")));
  EXPECT_THAT(ParseConfig("[planner.list]\nhop = 11\n", "p.toml"),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("[planner.list] hop is 11.0; it must be in [0, 10]")));
  EXPECT_THAT(ParseConfig("[planner.list]\nhop = 0.2\n", "p.toml"), IsOk());
  Config config;
  config.recall.route_weights["bm25"] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THAT(config.Validate(),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("[recall.route_weights] bm25 is nan; it must be in [0, 100]")));
}

TEST(ConfigTableTest, VectorPrecisionIsOneOfThreeNamesAndAnotherNamesTheKey) {
  StatusOr<Config> config = ParseConfig("[store]\nvector_precision = \"int8\"\n", "s.toml");
  ASSERT_THAT(config, IsOk());
  EXPECT_EQ(config->store.vector_precision, "int8");
  EXPECT_THAT(ParseConfig("[store]\nvector_precision = \"bfloat16\"\n", "s.toml"),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("[store] vector_precision is \"bfloat16\"; it must be one of "
                                 "float32, float16, int8")));
}

TEST(ConfigTableTest, ValidateChecksAConfigBuiltInCode) {
  Config config;
  EXPECT_THAT(config.Validate(), IsOk());
  config.recall.route_weights["vectr"] = 1;
  EXPECT_THAT(config.Validate(),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("unknown route \"vectr\"")));
  config = Config{};
  config.recall.neighbour_radius = 2'000'000'000;
  EXPECT_THAT(
      config.Validate(),
      StatusIs(StatusCode::kInvalidArgument,
               HasSubstr("[recall] neighbour_radius is 2000000000; it must be in [0, 100]")));
  config = Config{};
  config.embedder.kind = "bert";
  EXPECT_THAT(config.Validate(),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("[embedder] kind is \"bert\"; it must be one of use-lite, openai, "
                                 "hashing, none")));
  config = Config{};
  config.store.vector_precision = "int4";
  EXPECT_THAT(config.Validate(),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("[store] vector_precision is \"int4\"; it must be one of "
                                 "float32, float16, int8")));
  config.store.vector_precision = "int8";
  EXPECT_THAT(config.Validate(), IsOk());
  config = Config{};
  config.write.resolve_propose = 0.97;  // above resolve_accept 0.95
  EXPECT_THAT(config.Validate(),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("resolve_propose")));
}

TEST(ConfigTableTest, EveryKeyHasADocAndASource) {
  for (const config::KeySpec& spec : config::Keys()) {
    EXPECT_FALSE(spec.doc.empty()) << spec.key;
    EXPECT_FALSE(spec.source.empty()) << spec.key;
  }
}

// docs/CONFIG.md's reference is generated from the table (engram_config_doc); it must be current,
// so the document lists every key with its default.
TEST(ConfigDocTest, ConfigMdListsEveryKeyWithItsDefault) {
  const std::string path = SourceDir() + "/docs/CONFIG.md";
  std::ifstream in(path);
  ASSERT_TRUE(in) << "cannot read " << path;
  std::stringstream doc;
  doc << in.rdbuf();
  const Config defaults;
  for (const config::KeySpec& spec : config::Keys()) {
    EXPECT_THAT(doc.str(),
                HasSubstr("| `" + std::string(spec.key) + "` | " + std::string(spec.TypeName()) +
                          " | `" + config::FormatValue(spec.Get(defaults)) + "` |"))
        << "[" << spec.section << "] " << spec.key;
  }
  StatusOr<std::string> generated = config::SpliceReference(doc.str());
  ASSERT_THAT(generated, IsOk());
  EXPECT_TRUE(*generated == doc.str())
      << "docs/CONFIG.md is out of date: run build/src/config/engram_config_doc docs/CONFIG.md";
}

TEST(ConfigDocTest, SpliceNeedsBothMarkers) {
  EXPECT_THAT(config::SpliceReference("no markers here"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("markers")));
  const std::string doc = "intro\n" + std::string(config::kReferenceBegin) +
                          "\nstale reference text\n" + std::string(config::kReferenceEnd) +
                          "\noutro\n";
  StatusOr<std::string> spliced = config::SpliceReference(doc);
  ASSERT_THAT(spliced, IsOk());
  EXPECT_THAT(*spliced, HasSubstr("| `neighbour_radius` | integer | `2` | [0, 100] |"));
  EXPECT_THAT(*spliced, ::testing::Not(HasSubstr("stale reference text")));
  EXPECT_THAT(*spliced, ::testing::EndsWith(std::string(config::kReferenceEnd) + "\noutro\n"));
}

}  // namespace
}  // namespace engram

// Tests for UseLiteEmbedder: agreement with the original implementation (golden vectors) in
// float32 and int8, the same bytes from every int8 kernel path, paraphrase similarity,
// determinism, truncation, and the errors for missing or damaged files.
// Needs the model installed by scripts/setup; fails (never skips) when it is missing.
#include "embed/use_lite.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "embed/embed_test_util.h"
#include "engram/testing/status_matchers.h"
#include "engram/testing/temp_dir.h"

namespace engram::embed {
namespace {

namespace fs = std::filesystem;
using ::engram::testing::IsOk;
using ::engram::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr float kMinGoldenCosine = 0.9999f;    // float32 precision
constexpr float kMinInt8GoldenCosine = 0.99f;  // int8 precision

// Embeds every golden sentence; empty on failure (the caller's ASSERT reports it).
std::vector<std::vector<float>> EmbedGolden(UseLiteEmbedder& embedder,
                                            const std::vector<testing::GoldenCase>& cases) {
  std::vector<std::string> texts;
  for (const testing::GoldenCase& golden : cases) texts.push_back(golden.text);
  StatusOr<std::vector<std::vector<float>>> vectors = embedder.Embed(texts);
  EXPECT_THAT(vectors, IsOk());
  return vectors.ok() ? *std::move(vectors) : std::vector<std::vector<float>>();
}

StatusOr<std::unique_ptr<UseLiteEmbedder>> OpenWith(UseLitePrecision precision,
                                                    std::optional<SimdPath> path) {
  UseLiteOptions options;
  options.verify_checksums = false;
  options.precision = precision;
  options.kernel_path = path;
  return UseLiteEmbedder::Open(testing::InstalledModelDir(), options);
}

class UseLiteTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    StatusOr<std::unique_ptr<UseLiteEmbedder>> opened =
        UseLiteEmbedder::Open(testing::InstalledModelDir());
    if (opened.ok()) {
      embedder_ = std::move(opened).value().release();
    } else {
      open_status_ = new Status(opened.status());
      return;
    }
    StatusOr<std::unique_ptr<UseLiteEmbedder>> float32 =
        OpenWith(UseLitePrecision::kFloat32, std::nullopt);
    if (float32.ok()) float32_embedder_ = std::move(float32).value().release();
  }
  static void TearDownTestSuite() {
    delete embedder_;
    embedder_ = nullptr;
    delete float32_embedder_;
    float32_embedder_ = nullptr;
    delete open_status_;
    open_status_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(embedder_, nullptr) << testing::kInstallHint << "\nOpen failed: "
                                  << (open_status_ != nullptr ? open_status_->ToString() : "");
    ASSERT_NE(float32_embedder_, nullptr);
  }

  std::vector<float> EmbedOne(const std::string& text) {
    StatusOr<std::vector<std::vector<float>>> vectors =
        embedder_->Embed(std::span<const std::string>(&text, 1));
    EXPECT_THAT(vectors, IsOk());
    return vectors.ok() ? vectors->at(0) : std::vector<float>(UseLiteEmbedder::kDimension);
  }

  static UseLiteEmbedder* embedder_;          // default options: int8
  static UseLiteEmbedder* float32_embedder_;  // precision float32
  static Status* open_status_;
};

UseLiteEmbedder* UseLiteTest::embedder_ = nullptr;
UseLiteEmbedder* UseLiteTest::float32_embedder_ = nullptr;
Status* UseLiteTest::open_status_ = nullptr;

TEST_F(UseLiteTest, IdentifiesItself) {
  EXPECT_EQ(embedder_->model_id(), "use-lite@0.2.0");
  EXPECT_EQ(embedder_->dimension(), 512u);
}

TEST_F(UseLiteTest, Float32MatchesOriginalImplementationOnGoldenSentences) {
  const std::vector<testing::GoldenCase> cases = testing::LoadGoldenCases();
  ASSERT_GE(cases.size(), 50u) << "cannot read " << testing::GoldenPath();
  std::vector<std::string> texts;
  for (const testing::GoldenCase& golden : cases) texts.push_back(golden.text);
  StatusOr<std::vector<std::vector<float>>> vectors = float32_embedder_->Embed(texts);
  ASSERT_THAT(vectors, IsOk());
  ASSERT_EQ(vectors->size(), cases.size());
  float worst = 1.0f;
  for (std::size_t index = 0; index < cases.size(); ++index) {
    ASSERT_EQ((*vectors)[index].size(), cases[index].vector.size());
    const float cosine = Cosine((*vectors)[index], cases[index].vector);
    worst = std::min(worst, cosine);
    EXPECT_GE(cosine, kMinGoldenCosine) << "text: \"" << cases[index].text << "\"";
    EXPECT_NEAR(Dot((*vectors)[index], (*vectors)[index]), 1.0f, 1e-5f);
  }
  std::ostringstream worst_text;
  worst_text << std::setprecision(9) << worst;
  RecordProperty("worst_golden_cosine", worst_text.str());
}

TEST_F(UseLiteTest, Int8StaysCloseToTheOriginalImplementationOnGoldenSentences) {
  const std::vector<testing::GoldenCase> cases = testing::LoadGoldenCases();
  ASSERT_GE(cases.size(), 50u) << "cannot read " << testing::GoldenPath();
  const std::vector<std::vector<float>> vectors = EmbedGolden(*embedder_, cases);
  ASSERT_EQ(vectors.size(), cases.size());
  float worst = 1.0f;
  for (std::size_t index = 0; index < cases.size(); ++index) {
    const float cosine = Cosine(vectors[index], cases[index].vector);
    worst = std::min(worst, cosine);
    EXPECT_GE(cosine, kMinInt8GoldenCosine) << "text: \"" << cases[index].text << "\"";
    EXPECT_NEAR(Dot(vectors[index], vectors[index]), 1.0f, 1e-5f);
  }
  // Quantisation changes the vectors (this is not the float32 pass under another name).
  const std::vector<std::vector<float>> reference = EmbedGolden(*float32_embedder_, cases);
  ASSERT_EQ(reference.size(), cases.size());
  EXPECT_NE(vectors, reference);
  std::ostringstream worst_text;
  worst_text << std::setprecision(9) << worst;
  RecordProperty("worst_int8_golden_cosine", worst_text.str());
}

TEST_F(UseLiteTest, EveryInt8KernelPathGivesTheSameBytes) {
  const std::vector<testing::GoldenCase> all_cases = testing::LoadGoldenCases();
  ASSERT_GE(all_cases.size(), 50u) << "cannot read " << testing::GoldenPath();
  std::vector<testing::GoldenCase> cases;  // every third sentence: the scalar path is slow
  for (std::size_t index = 0; index < all_cases.size(); index += 3)
    cases.push_back(all_cases[index]);
  StatusOr<std::unique_ptr<UseLiteEmbedder>> scalar =
      OpenWith(UseLitePrecision::kInt8, SimdPath::kScalar);
  ASSERT_THAT(scalar, IsOk());
  const std::vector<std::vector<float>> expected = EmbedGolden(**scalar, cases);
  ASSERT_EQ(expected.size(), cases.size());
  EXPECT_EQ(EmbedGolden(*embedder_, cases), expected) << "default path";
  for (const SimdPath path : {SimdPath::kAvx2, SimdPath::kAvx512Vnni}) {
    if (!SimdPathSupported(path)) continue;
    StatusOr<std::unique_ptr<UseLiteEmbedder>> opened = OpenWith(UseLitePrecision::kInt8, path);
    ASSERT_THAT(opened, IsOk());
    EXPECT_EQ(EmbedGolden(**opened, cases), expected) << SimdPathName(path);
  }
}

TEST_F(UseLiteTest, ParaphraseIsCloserThanUnrelatedSentence) {
  const std::vector<float> query = EmbedOne("dentist appointment Tuesday");
  const std::vector<float> paraphrase = EmbedOne("see the tooth doctor next week");
  const std::vector<float> unrelated = EmbedOne("The quarterly revenue report is due on Friday.");
  const std::vector<float> unrelated2 = EmbedOne("My favourite colour is blue.");
  EXPECT_GT(Cosine(query, paraphrase), Cosine(query, unrelated));
  EXPECT_GT(Cosine(query, paraphrase), Cosine(query, unrelated2));
}

TEST_F(UseLiteTest, VectorDependsOnlyOnTheText) {
  const std::vector<std::string> batch = {"first sentence here", "dentist appointment Tuesday",
                                          "a third, rather longer sentence about the weather"};
  StatusOr<std::vector<std::vector<float>>> together = embedder_->Embed(batch);
  ASSERT_THAT(together, IsOk());
  StatusOr<std::vector<std::vector<float>>> again = embedder_->Embed(batch);
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(*together, *again);  // bit-identical
  for (std::size_t index = 0; index < batch.size(); ++index) {
    EXPECT_EQ((*together)[index], EmbedOne(batch[index])) << batch[index];
  }

  UseLiteOptions single_thread;
  single_thread.num_threads = 1;
  single_thread.verify_checksums = false;
  StatusOr<std::unique_ptr<UseLiteEmbedder>> sequential =
      UseLiteEmbedder::Open(testing::InstalledModelDir(), single_thread);
  ASSERT_THAT(sequential, IsOk());
  StatusOr<std::vector<std::vector<float>>> one_thread = (*sequential)->Embed(batch);
  ASSERT_THAT(one_thread, IsOk());
  EXPECT_EQ(*together, *one_thread);
}

TEST_F(UseLiteTest, EmptyInputGivesEmptyOutputAndEmptyTextAUnitVector) {
  StatusOr<std::vector<std::vector<float>>> none = embedder_->Embed({});
  ASSERT_THAT(none, IsOk());
  EXPECT_TRUE(none->empty());
  const std::vector<float> empty = EmbedOne("");
  EXPECT_NEAR(Dot(empty, empty), 1.0f, 1e-5f);
}

TEST_F(UseLiteTest, ReadsOnlyTheFirst128Tokens) {
  std::vector<std::int32_t> token_ids;
  for (int index = 0; index < 200; ++index) token_ids.push_back(9 + index % 50);
  StatusOr<std::vector<float>> full = embedder_->EmbedTokenIds(token_ids);
  StatusOr<std::vector<float>> clipped =
      embedder_->EmbedTokenIds(std::span<const std::int32_t>(token_ids.data(), 128));
  StatusOr<std::vector<float>> shorter =
      embedder_->EmbedTokenIds(std::span<const std::int32_t>(token_ids.data(), 127));
  ASSERT_THAT(full, IsOk());
  ASSERT_THAT(clipped, IsOk());
  ASSERT_THAT(shorter, IsOk());
  EXPECT_EQ(*full, *clipped);
  EXPECT_NE(*full, *shorter);
}

TEST_F(UseLiteTest, RejectsTokenIdsOutsideTheTable) {
  const std::vector<std::int32_t> bad = {9, 8002};
  EXPECT_THAT(embedder_->EmbedTokenIds(bad),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("8002")));
  const std::vector<std::int32_t> negative = {-1};
  EXPECT_THAT(embedder_->EmbedTokenIds(negative), StatusIs(StatusCode::kInvalidArgument));
}

TEST_F(UseLiteTest, ConcurrentCallsAgree) {
  const std::vector<std::string> batch = {"one", "two words", "three words here", "four"};
  StatusOr<std::vector<std::vector<float>>> expected = embedder_->Embed(batch);
  ASSERT_THAT(expected, IsOk());
  std::vector<std::vector<std::vector<float>>> results(4);
  std::vector<std::thread> threads;
  for (std::size_t thread = 0; thread < results.size(); ++thread) {
    threads.emplace_back([&, thread] {
      StatusOr<std::vector<std::vector<float>>> vectors = embedder_->Embed(batch);
      if (vectors.ok()) results[thread] = *vectors;
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const auto& result : results) EXPECT_EQ(result, *expected);
}

// A copy of the installed model made of symlinks (without its compiled model), so single files
// can be removed or replaced.
class DamagedModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    source_ = testing::InstalledModelDir();
    ASSERT_TRUE(fs::exists(fs::path(source_) / "model.json")) << testing::kInstallHint;
    for (const fs::directory_entry& entry : fs::directory_iterator(source_)) {
      if (entry.path().filename() == "compiled.bin") continue;  // the copy starts uncompiled
      fs::create_symlink(fs::absolute(entry.path()), directory_ / entry.path().filename());
    }
  }

  // Replaces `name` by a real file holding its first `keep` bytes.
  void Truncate(const std::string& name, std::size_t keep) {
    std::ifstream in(fs::path(source_) / name, std::ios::binary);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    const std::string contents = std::move(buffer).str();
    fs::remove(directory_ / name);
    std::ofstream out(directory_ / name, std::ios::binary);
    out.write(contents.data(), static_cast<std::streamsize>(std::min(keep, contents.size())));
  }

  void Replace(const std::string& name, const std::string& contents) {
    fs::remove(directory_ / name);
    std::ofstream(directory_ / name, std::ios::binary) << contents;
  }

  std::string source_;
  engram::testing::TempDir temp_dir_{"engram_use_lite_test"};
  fs::path directory_ = temp_dir_.path();
};

TEST_F(DamagedModelTest, IntactCopyOpens) {
  EXPECT_THAT(UseLiteEmbedder::Open(directory_.string()), IsOk());
}

TEST_F(DamagedModelTest, MissingDirectoryIsNotFound) {
  EXPECT_THAT(UseLiteEmbedder::Open((directory_ / "nowhere").string()),
              StatusIs(StatusCode::kNotFound,
                       AllOf(HasSubstr("model.json"), HasSubstr("run scripts/setup"))));
}

TEST_F(DamagedModelTest, MissingShardIsNotFoundNamingIt) {
  fs::remove(directory_ / "group1-shard3of7");
  EXPECT_THAT(UseLiteEmbedder::Open(directory_.string()),
              StatusIs(StatusCode::kNotFound,
                       AllOf(HasSubstr("group1-shard3of7"), HasSubstr("run scripts/setup"))));
}

TEST_F(DamagedModelTest, MissingVocabularyIsNotFound) {
  fs::remove(directory_ / "vocab.json");
  EXPECT_THAT(UseLiteEmbedder::Open(directory_.string()),
              StatusIs(StatusCode::kNotFound, HasSubstr("vocab.json")));
}

TEST_F(DamagedModelTest, TruncatedShardFailsItsChecksum) {
  Truncate("group1-shard3of7", 1000);
  EXPECT_THAT(
      UseLiteEmbedder::Open(directory_.string()),
      StatusIs(StatusCode::kCorruption, AllOf(HasSubstr("group1-shard3of7"), HasSubstr("sha256"),
                                              HasSubstr("run scripts/setup"))));
}

TEST_F(DamagedModelTest, TruncatedShardIsCorruptionWithoutChecksums) {
  Truncate("group1-shard3of7", 1000);
  UseLiteOptions options;
  options.verify_checksums = false;
  EXPECT_THAT(
      UseLiteEmbedder::Open(directory_.string(), options),
      StatusIs(StatusCode::kCorruption, AllOf(HasSubstr("group1-shard3of7"), HasSubstr("truncated"),
                                              HasSubstr("run scripts/setup"))));
}

TEST_F(DamagedModelTest, TruncatedLastShardIsCorruptionWithoutChecksums) {
  Truncate("group1-shard7of7", 10);
  UseLiteOptions options;
  options.verify_checksums = false;
  EXPECT_THAT(UseLiteEmbedder::Open(directory_.string(), options),
              StatusIs(StatusCode::kCorruption, HasSubstr("group1-shard7of7")));
}

TEST_F(DamagedModelTest, MalformedModelJsonIsCorruption) {
  Replace("model.json", "{\"modelTopology\": ");
  EXPECT_THAT(UseLiteEmbedder::Open(directory_.string()),
              StatusIs(StatusCode::kCorruption,
                       AllOf(HasSubstr("model.json"), HasSubstr("run scripts/setup"))));
}

TEST_F(DamagedModelTest, MissingChecksumFileIsNotFound) {
  fs::remove(directory_ / "SHA256SUMS");
  EXPECT_THAT(UseLiteEmbedder::Open(directory_.string()),
              StatusIs(StatusCode::kNotFound, HasSubstr("SHA256SUMS")));
  UseLiteOptions options;
  options.verify_checksums = false;
  EXPECT_THAT(UseLiteEmbedder::Open(directory_.string(), options), IsOk());
}

TEST_F(DamagedModelTest, MalformedVocabularyIsCorruption) {
  Replace("vocab.json", "[[\"a\", ");
  UseLiteOptions options;
  options.verify_checksums = false;
  EXPECT_THAT(UseLiteEmbedder::Open(directory_.string(), options),
              StatusIs(StatusCode::kCorruption, HasSubstr("vocab.json")));
}

}  // namespace
}  // namespace engram::embed

namespace engram::embed {
namespace {

std::vector<std::vector<float>> EmbedSentences(UseLiteEmbedder& embedder) {
  const std::vector<std::string> texts = {"Hello world.", "The cat sat on the mat.",
                                          "Gina opened her online clothing store in 2022.", ""};
  StatusOr<std::vector<std::vector<float>>> vectors = embedder.Embed(texts);
  EXPECT_THAT(vectors, IsOk());
  return vectors.ok() ? *std::move(vectors) : std::vector<std::vector<float>>();
}

TEST_F(DamagedModelTest, CompiledModelGivesTheSameBytesAsTheFiles) {
  UseLiteOptions uncompiled;
  uncompiled.compiled_cache = false;
  auto reference = UseLiteEmbedder::Open(directory_.string(), uncompiled);
  ASSERT_THAT(reference, IsOk());
  EXPECT_FALSE((*reference)->from_cache());
  EXPECT_FALSE(fs::exists(directory_ / "compiled.bin"));  // compiled_cache = false writes none
  const auto expected = EmbedSentences(**reference);
  ASSERT_EQ(expected.size(), 4u);

  auto first = UseLiteEmbedder::Open(directory_.string());
  ASSERT_THAT(first, IsOk());
  EXPECT_FALSE((*first)->from_cache());
  EXPECT_TRUE(fs::exists(directory_ / "compiled.bin"));
  auto second = UseLiteEmbedder::Open(directory_.string());
  ASSERT_THAT(second, IsOk());
  EXPECT_TRUE((*second)->from_cache());
  EXPECT_EQ(EmbedSentences(**first), expected);
  EXPECT_EQ(EmbedSentences(**second), expected);
  // float32 precision never reads it.
  UseLiteOptions float32;
  float32.precision = UseLitePrecision::kFloat32;
  auto float_embedder = UseLiteEmbedder::Open(directory_.string(), float32);
  ASSERT_THAT(float_embedder, IsOk());
  EXPECT_FALSE((*float_embedder)->from_cache());
}

TEST_F(DamagedModelTest, DamagedCompiledModelIsRebuiltNeverTrusted) {
  ASSERT_THAT(UseLiteEmbedder::Open(directory_.string()), IsOk());  // compiles
  const fs::path compiled = directory_ / "compiled.bin";
  std::ifstream in(compiled, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string good = std::move(buffer).str();
  ASSERT_GT(good.size(), 1000000u);
  UseLiteOptions uncompiled;
  uncompiled.compiled_cache = false;
  auto reference = UseLiteEmbedder::Open(directory_.string(), uncompiled);
  ASSERT_THAT(reference, IsOk());
  const auto expected = EmbedSentences(**reference);

  std::string flipped = good;
  flipped[good.size() / 2] = static_cast<char>(flipped[good.size() / 2] ^ 0x01);
  std::string wrong_fingerprint = good;
  wrong_fingerprint[20] = static_cast<char>(wrong_fingerprint[20] ^ 0x01);
  for (const std::string& damaged :
       {flipped, wrong_fingerprint, good.substr(0, good.size() - 8), good.substr(0, 10)}) {
    Replace("compiled.bin", damaged);
    auto opened = UseLiteEmbedder::Open(directory_.string());
    ASSERT_THAT(opened, IsOk());
    EXPECT_FALSE((*opened)->from_cache());
    EXPECT_EQ(EmbedSentences(**opened), expected);
    auto again = UseLiteEmbedder::Open(directory_.string());  // rebuilt whole
    ASSERT_THAT(again, IsOk());
    EXPECT_TRUE((*again)->from_cache());
  }
}

TEST_F(DamagedModelTest, CompiledModelIsNotUsedOnceASourceChanged) {
  ASSERT_THAT(UseLiteEmbedder::Open(directory_.string()), IsOk());  // compiles
  ASSERT_TRUE(fs::exists(directory_ / "compiled.bin"));
  Truncate("group1-shard3of7", 1000);
  EXPECT_THAT(UseLiteEmbedder::Open(directory_.string()),
              StatusIs(StatusCode::kCorruption, HasSubstr("group1-shard3of7")));
}

TEST_F(DamagedModelTest, UnverifiedFilesAreNeverCompiled) {
  UseLiteOptions unverified;
  unverified.verify_checksums = false;
  auto opened = UseLiteEmbedder::Open(directory_.string(), unverified);
  ASSERT_THAT(opened, IsOk());
  EXPECT_FALSE(fs::exists(directory_ / "compiled.bin"));
}

}  // namespace
}  // namespace engram::embed

// Tests for HashingEmbedder: FNV-1a reference values, determinism, normalisation, word overlap.
#include "embed/hashing_embedder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engram/testing/status_matchers.h"

namespace engram::embed {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::StatusIs;

std::unique_ptr<HashingEmbedder> MakeEmbedder(std::size_t dimension) {
  StatusOr<std::unique_ptr<HashingEmbedder>> embedder = HashingEmbedder::Create(dimension);
  EXPECT_THAT(embedder, IsOk());
  return std::move(embedder).value();
}

TEST(HashingEmbedderTest, Fnv1aMatchesReferenceValues) {
  EXPECT_EQ(Fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(Fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

TEST(HashingEmbedderTest, RejectsZeroDimension) {
  EXPECT_THAT(HashingEmbedder::Create(0), StatusIs(StatusCode::kInvalidArgument));
}

TEST(HashingEmbedderTest, IdentifiesItself) {
  const auto embedder = MakeEmbedder(64);
  EXPECT_EQ(embedder->model_id(), "hashing-64");
  EXPECT_EQ(embedder->dimension(), 64u);
}

TEST(HashingEmbedderTest, IsDeterministicAcrossCallsAndInstances) {
  const std::vector<std::string> texts = {"Remind me to call mom at 5pm", "", "café au lait"};
  const auto first = MakeEmbedder(128);
  const auto second = MakeEmbedder(128);
  StatusOr<std::vector<std::vector<float>>> a = first->Embed(texts);
  StatusOr<std::vector<std::vector<float>>> b = second->Embed(texts);
  ASSERT_THAT(a, IsOk());
  ASSERT_THAT(b, IsOk());
  EXPECT_EQ(*a, *b);
  for (std::size_t index = 0; index < texts.size(); ++index) {
    EXPECT_EQ((*a)[index], first->EmbedOne(texts[index]));
  }
}

TEST(HashingEmbedderTest, SingleWordHitsOneSignedBucket) {
  const auto embedder = MakeEmbedder(32);
  const std::vector<float> vector = embedder->EmbedOne("Hello!");
  const std::uint64_t hash = Fnv1a64("hello", Fnv1a64("u\x1f"));
  const float expected = (hash >> 63) != 0 ? -1.0f : 1.0f;
  for (std::size_t bucket = 0; bucket < vector.size(); ++bucket) {
    EXPECT_EQ(vector[bucket], bucket == hash % 32 ? expected : 0.0f) << "bucket " << bucket;
  }
}

TEST(HashingEmbedderTest, VectorsAreUnitLength) {
  const auto embedder = MakeEmbedder(256);
  for (const std::string text : {"", "   ", "a", "the the the", "one two three four five"}) {
    const std::vector<float> vector = embedder->EmbedOne(text);
    ASSERT_EQ(vector.size(), 256u);
    EXPECT_NEAR(Dot(vector, vector), 1.0f, 1e-6f) << "text: \"" << text << "\"";
  }
}

TEST(HashingEmbedderTest, SharedWordsGiveHigherCosineThanUnrelatedText) {
  const auto embedder = MakeEmbedder(1024);
  const std::vector<float> query = embedder->EmbedOne("dentist appointment on Tuesday");
  const std::vector<float> overlap = embedder->EmbedOne("my Dentist Appointment was moved");
  const std::vector<float> unrelated = embedder->EmbedOne("quarterly revenue report");
  EXPECT_GT(Cosine(query, overlap), Cosine(query, unrelated));
  EXPECT_FLOAT_EQ(Cosine(query, embedder->EmbedOne("DENTIST, appointment... on tuesday")), 1.0f);
}

}  // namespace
}  // namespace engram::embed

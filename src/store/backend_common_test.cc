// The vector byte layouts of backend_common.h: float32, IEEE half floats with round to nearest,
// ties to even, and int8 codes with a per-vector scale, told apart by their length.
#include "store/backend_common.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engram/testing/status_matchers.h"

namespace engram::store {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::StatusIs;

// The half-float bits EncodeVector wrote for one value.
std::uint16_t HalfBits(float value) {
  const std::vector<float> one = {value};
  const std::string bytes = EncodeVector(one, VectorPrecision::kFloat16);
  EXPECT_EQ(bytes.size(), 2u);
  return static_cast<std::uint16_t>(static_cast<unsigned char>(bytes[0]) |
                                    (static_cast<unsigned char>(bytes[1]) << 8));
}

TEST(VectorLayoutTest, HalfFloatsRoundToNearestTiesToEven) {
  EXPECT_EQ(HalfBits(1.0f), 0x3C00);
  EXPECT_EQ(HalfBits(-2.0f), 0xC000);
  EXPECT_EQ(HalfBits(0.0f), 0x0000);
  EXPECT_EQ(HalfBits(-0.0f), 0x8000);
  EXPECT_EQ(HalfBits(0.1f), 0x2E66);
  EXPECT_EQ(HalfBits(65504.0f), 0x7BFF);           // the largest half
  EXPECT_EQ(HalfBits(std::ldexp(1.0f, -24)), 0x0001);  // the smallest subnormal
  EXPECT_EQ(HalfBits(std::ldexp(1.0f, -26)), 0x0000);  // below half of it: zero
  // Halfway between 1 and the next half (1 + 2^-10): to the even one, 1.
  EXPECT_EQ(HalfBits(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  // Halfway between 1 + 2^-10 and 1 + 2^-9: to the even one, 1 + 2^-9.
  EXPECT_EQ(HalfBits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  // Just above halfway rounds up.
  EXPECT_EQ(HalfBits(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)), 0x3C01);
}

TEST(VectorLayoutTest, HalfFloatsDecodeByLengthAndStoredValuesAreWhatAReadGives) {
  const std::vector<float> values = {0.1f, -0.25f, 0.0333f, 0.9f};
  std::vector<float> read;
  ASSERT_THAT(DecodeVector(EncodeVector(values), 4, 7, "test", &read), IsOk());
  EXPECT_EQ(read, values);  // float32: exact
  ASSERT_THAT(DecodeVector(EncodeVector(values, VectorPrecision::kFloat16), 4, 7, "test", &read),
              IsOk());
  EXPECT_EQ(read, StoredVectorValues(values, VectorPrecision::kFloat16));
  EXPECT_EQ(StoredVectorValues(values, VectorPrecision::kFloat32), values);
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_NEAR(read[i], values[i], std::abs(values[i]) * std::ldexp(1.0, -11)) << i;
    EXPECT_EQ(read[i] == -0.25f, values[i] == -0.25f);  // representable values stay exact
  }
  // A half-float vector read back and stored again is the same bytes.
  EXPECT_EQ(EncodeVector(read, VectorPrecision::kFloat16),
            EncodeVector(values, VectorPrecision::kFloat16));
  EXPECT_THAT(DecodeVector(std::string(12, '\0'), 4, 7, "test", &read),
              StatusIs(StatusCode::kCorruption));
}

// The int8 bytes of `values`: the scale's float32 bits, then the codes (and the pad byte).
std::vector<int> Int8Codes(const std::string& bytes, std::size_t dimension) {
  std::vector<int> codes;
  for (std::size_t i = 0; i < dimension; ++i) {
    codes.push_back(static_cast<std::int8_t>(bytes[4 + i]));
  }
  return codes;
}

TEST(VectorLayoutTest, Int8StoresAScaleAndRoundsEachValueToTheNearestCode) {
  // Scale 0.5 (the largest magnitude): a code is a step of 0.5 / 127.
  const std::vector<float> values = {0.5f, -0.25f, 0.0f, 0.1f, -0.5f, 0.001f};
  const std::string bytes = EncodeVector(values, VectorPrecision::kInt8);
  ASSERT_EQ(bytes.size(), 4u + 6u + 1u);  // even dimension: one pad byte, the length is odd
  EXPECT_EQ(bytes.substr(0, 4), std::string("\x00\x00\x00\x3f", 4));  // 0.5f little-endian
  // -0.25 is code -63.5: ties away from zero, -64; 0.1 is 25.4 -> 25; 0.001 is 0.254 -> 0.
  EXPECT_THAT(Int8Codes(bytes, 6), ::testing::ElementsAre(127, -64, 0, 25, -127, 0));
  EXPECT_EQ(bytes[10], '\0');
  EXPECT_EQ(EncodeVector(std::vector<float>(3, 0.2f), VectorPrecision::kInt8).size(), 7u);
}

TEST(VectorLayoutTest, Int8RoundTripIsWithinHalfAStepAndDeterministic) {
  // A unit-length vector of 512 values like the built-in encoder's, from a fixed formula.
  std::vector<float> values(512);
  double norm = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i) + 1.0) *
                                   std::cos(0.011 * static_cast<double>(i * i)));
    norm += static_cast<double>(values[i]) * values[i];
  }
  for (float& value : values) value = static_cast<float>(value / std::sqrt(norm));
  const std::string bytes = EncodeVector(values, VectorPrecision::kInt8);
  ASSERT_EQ(bytes.size(), 517u);
  EXPECT_EQ(EncodeVector(values, VectorPrecision::kInt8), bytes);  // the same bytes twice
  std::vector<float> read;
  ASSERT_THAT(DecodeVector(bytes, 512, 7, "test", &read), IsOk());
  EXPECT_EQ(read, StoredVectorValues(values, VectorPrecision::kInt8));
  float largest = 0;
  for (const float value : values) largest = std::max(largest, std::abs(value));
  double dot = 0;
  double read_norm = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_LE(std::abs(read[i] - values[i]), largest / 254.0 * (1 + 1e-6)) << i;
    dot += static_cast<double>(read[i]) * values[i];
    read_norm += static_cast<double>(read[i]) * read[i];
  }
  EXPECT_GT(dot / std::sqrt(read_norm), 0.9999);  // cosine with the float32 vector
  // A read-back vector stored again is the same bytes (the derivation worker relies on it).
  EXPECT_EQ(EncodeVector(read, VectorPrecision::kInt8), bytes);
  // The largest magnitude comes back exactly.
  EXPECT_EQ(*std::max_element(read.begin(), read.end(),
                              [](float a, float b) { return std::abs(a) < std::abs(b); }),
            *std::max_element(values.begin(), values.end(),
                              [](float a, float b) { return std::abs(a) < std::abs(b); }));
}

TEST(VectorLayoutTest, Int8OfAZeroVectorIsZeroAndEveryFormDecodesByLength) {
  const std::vector<float> zeros(4, 0.0f);
  std::vector<float> read;
  ASSERT_THAT(DecodeVector(EncodeVector(zeros, VectorPrecision::kInt8), 4, 7, "test", &read),
              IsOk());
  EXPECT_EQ(read, zeros);
  // Dimension 4: float32 16 bytes, float16 8, int8 9; each decodes as its own form.
  const std::vector<float> values = {0.1f, -0.25f, 0.0333f, 0.9f};
  for (const VectorPrecision precision :
       {VectorPrecision::kFloat32, VectorPrecision::kFloat16, VectorPrecision::kInt8}) {
    ASSERT_THAT(DecodeVector(EncodeVector(values, precision), 4, 7, "test", &read), IsOk())
        << VectorPrecisionName(precision);
    EXPECT_EQ(read, StoredVectorValues(values, precision)) << VectorPrecisionName(precision);
  }
  EXPECT_NE(StoredVectorValues(values, VectorPrecision::kInt8), values);
  EXPECT_THAT(DecodeVector(std::string(10, '\0'), 4, 7, "test", &read),
              StatusIs(StatusCode::kCorruption, ::testing::HasSubstr("int8")));
}

TEST(VectorLayoutTest, PrecisionNamesRoundTrip) {
  for (const VectorPrecision precision :
       {VectorPrecision::kFloat32, VectorPrecision::kFloat16, VectorPrecision::kInt8}) {
    EXPECT_EQ(VectorPrecisionNamed(VectorPrecisionName(precision)), precision);
  }
  EXPECT_EQ(VectorPrecisionNamed("int4"), std::nullopt);
}

// A compact turn's content is rebuilt on every read without a JSON library: it must be the bytes
// the write path's serialiser (nlohmann::json's dump) gives the same fields, for any text.
TEST(TurnContentTest, RebuiltContentIsWhatTheWritePathsSerialiserWrites) {
  const std::vector<std::string> texts = {
      "plain", "quote \" and backslash \\", "lines\nand\ttabs\r\b\f", std::string("nul \0 byte", 10),
      "controls \x01\x1f and delete \x7f", "accents é, CJK 日本語, emoji 🎉", ""};
  const std::vector<std::string> metadata = {
      "{}", R"({"a":[1,2.5,{"b":"c\"d"}],"z":null})", R"({"source":"chat","tags":["x","y"]})"};
  for (const std::string& text : texts) {
    for (const std::string& meta : metadata) {
      NodeRecord node;
      node.kind = NodeKind::kTurn;
      node.role = Role::kAssistant;
      node.speaker = "Ana \"A\" " + text.substr(0, 3);
      node.text = text;
      node.session_id = "s\n1";
      node.sequence = 123456789012;
      node.event_time = Timestamp::FromSeconds(1'700'000'000);
      node.metadata_json = meta;
      const nlohmann::json content = {
          {"role", RoleName(node.role)},
          {"speaker", node.speaker},
          {"text", node.text},
          {"session_id", node.session_id},
          {"event_time", FormatTimestamp(*node.event_time)},
          {"sequence", node.sequence},
          {"metadata", nlohmann::json::parse(meta)},
      };
      EXPECT_EQ(TurnContentFromColumns(node), content.dump()) << "text: " << text;
    }
  }
}

TEST(TurnContentTest, NoContentIsRebuiltForMetadataThatIsNoObject) {
  NodeRecord node;
  node.kind = NodeKind::kTurn;
  node.event_time = Timestamp::FromSeconds(0);
  node.metadata_json = "[1]";
  EXPECT_EQ(TurnContentFromColumns(node), std::nullopt);
  node.metadata_json = "";
  EXPECT_EQ(TurnContentFromColumns(node), std::nullopt);
}

}  // namespace
}  // namespace engram::store

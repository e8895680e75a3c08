// The vector byte layouts of backend_common.h: float32, and IEEE half floats with round to
// nearest, ties to even, told apart by their length.
#include "store/backend_common.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "engram/testing/status_matchers.h"

namespace engram::store {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::StatusIs;

// The half-float bits EncodeVector wrote for one value.
std::uint16_t HalfBits(float value) {
  const std::vector<float> one = {value};
  const std::string bytes = EncodeVector(one, /*float16=*/true);
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

TEST(VectorLayoutTest, BothWidthsDecodeByLengthAndStoredValuesAreWhatAReadGives) {
  const std::vector<float> values = {0.1f, -0.25f, 0.0333f, 0.9f};
  std::vector<float> read;
  ASSERT_THAT(DecodeVector(EncodeVector(values), 4, 7, "test", &read), IsOk());
  EXPECT_EQ(read, values);  // float32: exact
  ASSERT_THAT(DecodeVector(EncodeVector(values, true), 4, 7, "test", &read), IsOk());
  EXPECT_EQ(read, StoredVectorValues(values, true));
  EXPECT_EQ(StoredVectorValues(values, false), values);
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_NEAR(read[i], values[i], std::abs(values[i]) * std::ldexp(1.0, -11)) << i;
    EXPECT_EQ(read[i] == -0.25f, values[i] == -0.25f);  // representable values stay exact
  }
  // A half-float vector read back and stored again is the same bytes.
  EXPECT_EQ(EncodeVector(read, true), EncodeVector(values, true));
  EXPECT_THAT(DecodeVector(std::string(12, '\0'), 4, 7, "test", &read),
              StatusIs(StatusCode::kCorruption));
}

}  // namespace
}  // namespace engram::store

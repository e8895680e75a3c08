// Tests for the float32 kernel's helpers: the portable exponential used by the softmax.
#include "embed/dense_kernel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace engram::embed::internal {
namespace {

TEST(ExpNonPositiveTest, AgreesWithTheLibraryExponentialOverTheSoftmaxRange) {
  double worst = 0.0;
  for (int step = 0; step <= 870000; ++step) {
    const float x = -static_cast<float>(step) * 1e-4f;
    const double exact = std::exp(static_cast<double>(x));
    const double relative = std::fabs(static_cast<double>(ExpNonPositive(x)) - exact) / exact;
    worst = std::max(worst, relative);
  }
  EXPECT_LT(worst, 3e-7);
  std::ostringstream text;
  text << worst;
  RecordProperty("worst_relative_error", text.str());
}

TEST(ExpNonPositiveTest, ExactAtZeroAndZeroBelowTheNormalRange) {
  EXPECT_EQ(ExpNonPositive(0.0f), 1.0f);
  EXPECT_EQ(ExpNonPositive(-0.0f), 1.0f);
  EXPECT_EQ(ExpNonPositive(-87.5f), 0.0f);
  EXPECT_EQ(ExpNonPositive(-1000.0f), 0.0f);
  EXPECT_GT(ExpNonPositive(-87.0f), 0.0f);
}

}  // namespace
}  // namespace engram::embed::internal

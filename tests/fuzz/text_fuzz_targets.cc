// Fuzz targets of the text analysis the write and read paths run on every turn and question:
// the temporal parser, the signal detectors and the query frame.
#include <string>

#include "fuzz_targets.h"
#include "read/query_frame.h"
#include "text/signals.h"
#include "text/temporal.h"
#include "text/tokenizer.h"

namespace engram::fuzz {
namespace {

// The reference time: 2024-05-10T12:00:00Z moved by the first byte (in days, either way), so the
// fuzzer also reaches month and year boundaries.
Timestamp ReferenceFrom(const std::uint8_t* data, std::size_t size) {
  constexpr std::int64_t kReferenceSeconds = 1715342400;
  constexpr std::int64_t kDaySeconds = 86400;
  const std::int64_t shift = size > 0 ? static_cast<std::int64_t>(data[0]) - 128 : 0;
  return Timestamp::FromSeconds(kReferenceSeconds + shift * kDaySeconds * 3);
}

}  // namespace

int FuzzTemporal(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = AsText(data, size);
  const std::vector<text::TimeMention> mentions =
      text::FindTimeExpressions(text, ReferenceFrom(data, size));
  std::uint32_t previous_end = 0;
  for (const text::TimeMention& mention : mentions) {
    // In order, non-overlapping, inside the text, and the surface is the span's bytes.
    FUZZ_CHECK(mention.begin >= previous_end);
    FUZZ_CHECK(mention.begin <= mention.end);
    FUZZ_CHECK(mention.end <= text.size());
    FUZZ_CHECK(mention.surface == text.substr(mention.begin, mention.end - mention.begin));
    FUZZ_CHECK(mention.from.micros <= mention.to.micros);
    previous_end = mention.end;
  }
  return 0;
}

int FuzzSignals(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = AsText(data, size);
  const std::vector<text::Signal> signals = text::DetectSignals(text, ReferenceFrom(data, size));
  for (const text::Signal& signal : signals) {
    FUZZ_CHECK(signal.begin <= signal.end);
    FUZZ_CHECK(signal.end <= text.size());
    FUZZ_CHECK(signal.surface == text.substr(signal.begin, signal.end - signal.begin));
    FUZZ_CHECK(signal.confidence >= 0.0f && signal.confidence <= 1.0f);
  }
  return 0;
}

int FuzzQueryFrame(const std::uint8_t* data, std::size_t size) {
  static const text::Tokenizer tokenizer({.stem = true});
  const std::string_view text = AsText(data, size);
  const read::QueryFrame frame = read::BuildQueryFrame(tokenizer, text, ReferenceFrom(data, size),
                                                       {.drop_frame_words = (size % 2) == 0});
  const std::string description = read::DescribeFrame(frame);
  FUZZ_CHECK(!description.empty());
  return 0;
}

}  // namespace engram::fuzz

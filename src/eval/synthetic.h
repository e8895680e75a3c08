// synthetic: a deterministic generator of plausible conversation turns and questions for the
// performance workload (`engram bench perf`) and the micro-benchmarks in bench/.
//
// Sentences come from a dozen templates filled from fixed word lists (people, places,
// activities, topics, feelings, times); words are drawn with a skew toward the front of each
// list, so term frequencies are uneven like real text. The generator is SplitMix64 seeded by
// the caller, with its own integer-to-range mapping, so the same seed gives the same text on
// every platform and standard library.
//
//   SyntheticText text(/*seed=*/42);
//   std::vector<Turn> session = text.Session(/*turns=*/20, "session_1", start_time);
//   std::string question = text.Question();  // "Where did Maya go hiking?"
#ifndef ENGRAM_EVAL_SYNTHETIC_H_
#define ENGRAM_EVAL_SYNTHETIC_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engram/types.h"

namespace engram::eval {

// Not thread-safe: one generator per thread.
class SyntheticText {
 public:
  explicit SyntheticText(std::uint64_t seed) : state_(seed) {}

  // One conversational sentence or two ("I went hiking in Porto last weekend.").
  std::string Sentence();
  // A question about the kind of things Sentence() says ("When did Maya go hiking?").
  std::string Question();
  // `turns` turns of a two-person conversation: alternating speakers and roles, session_id
  // `session_id`, event times one minute apart from `start`, metadata {"turn_index": i}.
  std::vector<Turn> Session(std::size_t turns, const std::string& session_id, Timestamp start);

  // The next raw 64-bit value (SplitMix64).
  std::uint64_t Next();

 private:
  // Uniform index in [0, n).
  std::size_t Below(std::size_t n);
  // Index in [0, n) skewed toward 0: floor(n · u²) for uniform u.
  std::size_t Skewed(std::size_t n);
  template <std::size_t N>
  std::string_view Pick(const std::string_view (&words)[N], bool skewed = true) {
    return words[skewed ? Skewed(N) : Below(N)];
  }

  std::uint64_t state_;
};

}  // namespace engram::eval

#endif  // ENGRAM_EVAL_SYNTHETIC_H_

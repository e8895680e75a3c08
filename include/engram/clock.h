// Where engram reads the current time. Injected through EngineOptions so that tests and replays
// are deterministic: with a FixedClock the same input gives byte-identical stores.
#ifndef ENGRAM_CLOCK_H_
#define ENGRAM_CLOCK_H_

#include <memory>

#include "engram/types.h"

namespace engram {

// Thread-safe: Now() may be called from any thread.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual Timestamp Now() const = 0;
};

// The wall clock (UTC).
std::shared_ptr<Clock> SystemClock();

// Always returns the time it was built with, plus `step` for each call (default 0).
std::shared_ptr<Clock> FixedClock(Timestamp time, std::int64_t step_micros = 0);

}  // namespace engram

#endif  // ENGRAM_CLOCK_H_

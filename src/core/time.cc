// Timestamps (ISO-8601 parsing and formatting) and the clocks of include/engram/clock.h.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>

#include "core/civil_date.h"
#include "engram/clock.h"
#include "engram/types.h"

namespace engram {
namespace {

using core::CivilFromDays;
using core::DaysFromCivil;
using core::DaysInMonth;

class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}
  bool Done() const { return pos_ >= text_.size(); }
  char Peek() const { return Done() ? '\0' : text_[pos_]; }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  // Reads exactly `digits` decimal digits.
  bool Number(int digits, std::int64_t* out) {
    std::int64_t value = 0;
    for (int i = 0; i < digits; ++i) {
      if (Done() || text_[pos_] < '0' || text_[pos_] > '9') return false;
      value = value * 10 + (text_[pos_++] - '0');
    }
    *out = value;
    return true;
  }
  // Reads 1..9 fractional digits as microseconds.
  bool Fraction(std::int64_t* micros) {
    std::int64_t value = 0;
    int digits = 0;
    while (!Done() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      if (digits < 6) value = value * 10 + (text_[pos_] - '0');
      ++digits;
      ++pos_;
    }
    if (digits == 0 || digits > 9) return false;
    for (int i = digits; i < 6; ++i) value *= 10;
    *micros = value;
    return true;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

Status BadTime(std::string_view text, std::string_view why) {
  return Status::InvalidArgument("invalid timestamp \"" + std::string(text.substr(0, 64)) +
                                 "\": " + std::string(why) +
                                 " (expected ISO-8601 like 2023-05-08T13:56:00Z)");
}

}  // namespace

StatusOr<Timestamp> ParseTimestamp(std::string_view text) {
  Cursor cur(text);
  std::int64_t year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, micros = 0;
  if (!cur.Number(4, &year) || !cur.Eat('-') || !cur.Number(2, &month) || !cur.Eat('-') ||
      !cur.Number(2, &day)) {
    return BadTime(text, "date must be YYYY-MM-DD");
  }
  if (month < 1 || month > 12) return BadTime(text, "month out of range");
  if (day < 1 || day > DaysInMonth(year, static_cast<int>(month))) {
    return BadTime(text, "day out of range");
  }
  std::int64_t offset_seconds = 0;
  if (!cur.Done()) {
    if (!cur.Eat('T') && !cur.Eat(' ') && !cur.Eat('t')) return BadTime(text, "expected 'T'");
    if (!cur.Number(2, &hour) || !cur.Eat(':') || !cur.Number(2, &minute)) {
      return BadTime(text, "time must be HH:MM[:SS[.ffffff]]");
    }
    if (cur.Eat(':')) {
      if (!cur.Number(2, &second)) return BadTime(text, "seconds must be two digits");
      if (cur.Eat('.') && !cur.Fraction(&micros)) return BadTime(text, "bad fraction");
    }
    if (hour > 23 || minute > 59 || second > 60) return BadTime(text, "time out of range");
    if (cur.Eat('Z') || cur.Eat('z')) {
    } else if (cur.Peek() == '+' || cur.Peek() == '-') {
      const bool negative = cur.Peek() == '-';
      cur.Eat(cur.Peek());
      std::int64_t oh = 0, om = 0;
      if (!cur.Number(2, &oh)) return BadTime(text, "bad UTC offset");
      cur.Eat(':');
      if (!cur.Number(2, &om) || oh > 23 || om > 59) return BadTime(text, "bad UTC offset");
      offset_seconds = (oh * 3600 + om * 60) * (negative ? -1 : 1);
    }
  }
  if (!cur.Done()) return BadTime(text, "unexpected trailing characters");
  const std::int64_t days = DaysFromCivil(year, static_cast<int>(month), static_cast<int>(day));
  const std::int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset_seconds;
  return Timestamp{seconds * 1'000'000 + micros};
}

std::string FormatTimestamp(Timestamp time) {
  std::int64_t micros = time.micros % 1'000'000;
  std::int64_t seconds = time.micros / 1'000'000;
  if (micros < 0) {
    micros += 1'000'000;
    seconds -= 1;
  }
  std::int64_t days = seconds / 86400;
  std::int64_t rem = seconds % 86400;
  if (rem < 0) {
    rem += 86400;
    days -= 1;
  }
  const core::CivilDate civil = CivilFromDays(days);
  char buffer[64];
  if (micros == 0) {
    std::snprintf(buffer, sizeof(buffer), "%04lld-%02d-%02dT%02lld:%02lld:%02lldZ",
                  static_cast<long long>(civil.year), civil.month, civil.day,
                  static_cast<long long>(rem / 3600), static_cast<long long>(rem / 60 % 60),
                  static_cast<long long>(rem % 60));
  } else {
    std::snprintf(buffer, sizeof(buffer), "%04lld-%02d-%02dT%02lld:%02lld:%02lld.%06lldZ",
                  static_cast<long long>(civil.year), civil.month, civil.day,
                  static_cast<long long>(rem / 3600), static_cast<long long>(rem / 60 % 60),
                  static_cast<long long>(rem % 60), static_cast<long long>(micros));
  }
  return buffer;
}

namespace {

class WallClock final : public Clock {
 public:
  Timestamp Now() const override {
    const auto now = std::chrono::time_point_cast<std::chrono::microseconds>(
        std::chrono::system_clock::now());
    return Timestamp{now.time_since_epoch().count()};
  }
};

class SteppingClock final : public Clock {
 public:
  SteppingClock(Timestamp start, std::int64_t step) : next_(start.micros), step_(step) {}
  Timestamp Now() const override { return Timestamp{next_.fetch_add(step_)}; }

 private:
  mutable std::atomic<std::int64_t> next_;
  std::int64_t step_;
};

}  // namespace

std::shared_ptr<Clock> SystemClock() {
  static const std::shared_ptr<Clock> clock = std::make_shared<WallClock>();
  return clock;
}

std::shared_ptr<Clock> FixedClock(Timestamp time, std::int64_t step_micros) {
  return std::make_shared<SteppingClock>(time, step_micros);
}

}  // namespace engram

// engram_graph_fuzz: long runs of the graph property test (issue 23; docs/RELIABILITY.md).
//
//   engram_graph_fuzz --ops 1000000 --seed 1 --check-every 100 [--shrink-to FILE] [--print-ops]
//
// Generates --ops random operations from --seed, applies them to a fresh store (in $TMPDIR) and
// checks every invariant (tests/property/graph_check.h) after every --check-every ops. On a
// violation it prints it, shrinks the failing sequence to a short reproduction, prints that as an
// op list and, with --shrink-to, writes it there (a file tests/property/regressions/ replays).
// Exit status: 0 no violation, 1 a violation, 2 bad arguments.
#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "graph_check.h"
#include "graph_ops.h"

namespace {

bool ParseCount(const char* text, std::uint64_t& value) {
  const std::string_view view(text);
  const auto [end, error] = std::from_chars(view.data(), view.data() + view.size(), value);
  return error == std::errc() && end == view.data() + view.size();
}

int Usage(const std::string& problem) {
  std::fprintf(stderr,
               "engram_graph_fuzz: %s\nusage: engram_graph_fuzz --ops N --seed S --check-every K "
               "[--shrink-to FILE] [--print-ops]\n",
               problem.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t ops_count = 20000;
  std::uint64_t seed = 1;
  std::uint64_t check_every = 100;
  std::string shrink_to;
  bool print_ops = false;
  for (int arg = 1; arg < argc; ++arg) {
    const std::string_view flag = argv[arg];
    if (flag == "--print-ops") {
      print_ops = true;
      continue;
    }
    if (arg + 1 >= argc) return Usage("missing value after " + std::string(flag));
    const char* value = argv[++arg];
    if (flag == "--shrink-to") {
      shrink_to = value;
    } else if (flag == "--ops" || flag == "--seed" || flag == "--check-every") {
      std::uint64_t parsed = 0;
      if (!ParseCount(value, parsed)) {
        return Usage(std::string(flag) + " needs a non-negative integer, not \"" + value + "\"");
      }
      (flag == "--ops" ? ops_count : flag == "--seed" ? seed : check_every) = parsed;
    } else {
      return Usage("unknown flag " + std::string(flag));
    }
  }

  if (print_ops) {
    engram::property::OpGenerator printer(seed);
    for (std::uint64_t op_idx = 0; op_idx < ops_count; ++op_idx) {
      std::fputs(engram::property::FormatOps({printer.Next()}).c_str(), stdout);
    }
  }

  const auto started = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  engram::property::RunOptions options;
  options.check_every = check_every;
  options.progress = [&](std::size_t op_index) {
    if ((op_index + 1) % 10000 == 0) {
      // Runs stop at the first violation: a line here means none so far.
      std::fprintf(stderr, "%zu ops, %.0f s, no violation\n", op_index + 1, elapsed());
    }
  };
  engram::property::OpGenerator generator(seed);
  const engram::property::RunResult result = engram::property::RunOpStream(
      ops_count, [&](std::size_t) { return generator.Next(); }, options);
  std::printf(
      "seed %llu: %zu ops, %zu store-wide checks (every %llu ops), %.1f s, %zu violations\n",
      static_cast<unsigned long long>(seed), result.stats.ops_run, result.stats.checks,
      static_cast<unsigned long long>(check_every), elapsed(), result.violations.size());
  for (const auto& [name, count] : result.stats.op_counts) {
    std::printf("  %-10s %zu\n", name.c_str(), count);
  }
  for (const auto& [why, count] : result.stats.expected_refusals) {
    std::printf("  refused by contract: %s: %zu\n", why.c_str(), count);
  }
  if (result.violations.empty()) return 0;

  for (std::size_t idx = 0; idx < result.violations.size() && idx < 20; ++idx) {
    std::printf("%s\n", engram::property::Describe(result.violations[idx]).c_str());
  }
  if (result.violations.size() > 20) {
    std::printf("... and %zu more\n", result.violations.size() - 20);
  }
  const engram::property::Violation& first = result.violations.front();
  // The generator is deterministic: make the failing prefix again.
  engram::property::OpGenerator again(seed);
  std::vector<engram::property::Op> failing;
  for (std::size_t op_idx = 0; op_idx <= first.op_index; ++op_idx) failing.push_back(again.Next());
  std::printf("shrinking %zu ops that violate %s...\n", failing.size(), first.invariant.c_str());
  const std::vector<engram::property::Op> shrunk =
      engram::property::Shrink(failing, first.invariant);
  const std::string text = "# invariant: " + first.invariant +
                           "\n# found by: engram_graph_fuzz --seed " + std::to_string(seed) + "\n" +
                           engram::property::FormatOps(shrunk);
  std::printf("reproduction (%zu ops):\n%s", shrunk.size(), text.c_str());
  if (!shrink_to.empty()) {
    std::ofstream out(shrink_to, std::ios::binary);
    out << text;
    if (!out) std::fprintf(stderr, "engram_graph_fuzz: cannot write %s\n", shrink_to.c_str());
  }
  return 1;
}

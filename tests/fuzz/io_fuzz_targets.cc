// Fuzz targets of the input readers (src/io): the JSONL turn format, LoCoMo and LongMemEval.
#include "core/utf8.h"
#include "fuzz_targets.h"
#include "io/locomo.h"
#include "io/longmemeval.h"
#include "io/turns_jsonl.h"

namespace engram::fuzz {

int FuzzTurnsJsonl(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = AsText(data, size);
  StatusOr<io::ParsedTurns> parsed = io::ParseTurnsJsonl(text, {.source_name = "fuzz"});
  if (parsed.ok()) {
    FUZZ_CHECK(parsed->turns.size() == parsed->line_numbers.size());
    std::size_t previous_line = 0;
    for (std::size_t turn_idx = 0; turn_idx < parsed->turns.size(); ++turn_idx) {
      FUZZ_CHECK(parsed->line_numbers[turn_idx] > previous_line);
      previous_line = parsed->line_numbers[turn_idx];
      FUZZ_CHECK(core::IsValidUtf8(parsed->turns[turn_idx].text));
      FUZZ_CHECK(core::IsValidUtf8(parsed->turns[turn_idx].speaker));
    }
  } else {
    FUZZ_CHECK(!parsed.status().message().empty());
  }
  // The same bytes as one turn object, with the limits the engine passes.
  StatusOr<Turn> turn = io::ParseTurnJson(
      text, {.max_text_bytes = 1024, .max_metadata_bytes = 256, .max_nesting_depth = 8});
  if (turn.ok()) FUZZ_CHECK(turn->text.size() <= 1024);
  return 0;
}

int FuzzLocomo(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = AsText(data, size);
  StatusOr<std::vector<io::LocomoConversation>> parsed = io::ParseLocomo(text, "fuzz");
  if (!parsed.ok()) FUZZ_CHECK(!parsed.status().message().empty());
  if (size < 64) {
    static_cast<void>(io::ParseLocomoDateTime(text));
    static_cast<void>(io::LocomoScope(text));
  }
  return 0;
}

int FuzzLongMemEval(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = AsText(data, size);
  StatusOr<std::vector<io::LongMemEvalInstance>> parsed = io::ParseLongMemEval(text, "fuzz");
  if (!parsed.ok()) FUZZ_CHECK(!parsed.status().message().empty());
  if (size < 64) {
    static_cast<void>(io::ParseLongMemEvalDate(text));
    static_cast<void>(io::LongMemEvalScope(text));
  }
  return 0;
}

}  // namespace engram::fuzz

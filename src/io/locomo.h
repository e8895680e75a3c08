// locomo: imports the LoCoMo benchmark's JSON (snap-research/LoCoMo, data/locomo10.json) into
// engram turns, and its questions into structs for the benchmark harness.
//
// Mapping (one conversation → one scope `world:locomo-<sample_id>`):
//   - sessions in numeric order (session_1, session_2, ..., session_10), turns in file order;
//   - Turn.speaker = the turn's "speaker", role user, session_id "session_<N>";
//   - Turn.text = "text", plus " [shares an image: <blip_caption>]" when the turn has a caption;
//   - Turn.event_time = the session's "session_<N>_date_time" ("1:56 pm on 8 May, 2023" →
//     2023-05-08T13:56:00Z) for every turn of the session; order within a session is kept by the
//     sequence numbers the engine assigns. A session without a date has no event time;
//     "session_<N>_date_time" keys without a session are skipped;
//   - Turn.metadata_json = {"dia_id":"D1:3","session":1,"turn_index":3}; turn_index is the
//     turn's 1-based position in its session.
//   - a turn with blank text and no image caption is skipped and counted (skipped_blank_turns).
// Questions keep their answer as a string (a few answers are integers in the file), the
// category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial) and the
// evidence dia_ids cleaned as bench/README.md says (see CleanLocomoEvidence).
//
//   ASSIGN_OR_RETURN(std::vector<LocomoConversation> conversations, ReadLocomo("locomo10.json"));
#ifndef ENGRAM_IO_LOCOMO_H_
#define ENGRAM_IO_LOCOMO_H_

#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "engram/types.h"

namespace engram::io {

struct LocomoQuestion {
  std::string question;
  std::string answer;              // "" for category 5, whose file entry has no "answer"
  std::string adversarial_answer;  // category 5 only
  int category = 0;
  std::vector<std::string> evidence;  // cleaned dia_ids ("D1:3"), file order, no duplicates
};

struct LocomoConversation {
  std::string sample_id;                // "conv-26"
  Scope scope;                          // world:locomo-<sample_id>
  std::vector<std::string> speakers;    // speaker_a, speaker_b
  std::vector<Turn> turns;              // every session's turns, in session order
  std::size_t skipped_blank_turns = 0;  // turns with blank text and no image caption
  std::vector<LocomoQuestion> questions;
};

// The scope a conversation is imported into: world:locomo-<sample_id>. kInvalidArgument when
// the sample id cannot be a scope name (too long, '/', control characters, ...).
StatusOr<Scope> LocomoScope(std::string_view sample_id);

// "1:56 pm on 8 May, 2023" → 2023-05-08T13:56:00Z (UTC). 12 am is midnight, 12 pm noon. Month
// names may be full or three-letter, in any case. kInvalidArgument naming the problem otherwise.
StatusOr<Timestamp> ParseLocomoDateTime(std::string_view text);

// Splits each raw evidence entry on runs of ';', ',' and ' ' and keeps the pieces that match
// ^D\d+:\d+$ ("D8:6; D9:17" → D8:6, D9:17; "D" and "D:11:26" → nothing). Duplicates dropped.
std::vector<std::string> CleanLocomoEvidence(const std::vector<std::string>& raw);

// Parses the LoCoMo JSON text: an array of conversations (a single conversation object is
// accepted too). Errors are kInvalidArgument naming `source_name`, the sample and the field.
StatusOr<std::vector<LocomoConversation>> ParseLocomo(std::string_view json_text,
                                                      std::string_view source_name);

// Reads `path` (plain, .zst or "-") and parses it with ParseLocomo.
StatusOr<std::vector<LocomoConversation>> ReadLocomo(std::string_view path);

}  // namespace engram::io

#endif  // ENGRAM_IO_LOCOMO_H_

// Episodes (EverMemOS §3.3 "MemCells", DESIGN §4 step 6): a scope's turns cut into contiguous
// spans at session boundaries, time gaps, topic shifts and a length cap, each with an extractive
// third-person narrative whose every sentence quotes one turn.
//
//   std::vector<TurnView> turns = ...;  // the scope's active turns in sequence order
//   std::vector<EpisodeSpan> spans = SegmentEpisodes(turns, config.consolidate, true);
//   for (const EpisodeSpan& span : spans) {
//     Narrative narrative = RenderNarrative(std::span(turns).subspan(span.begin, span.size()), 6);
//   }
//
// Segmentation is causal: whether a boundary falls before turn i depends only on turns up to i
// (the current episode's turns and turn i itself). So segmenting a scope after more turns
// arrived gives the same episodes for the earlier turns as before, and the last episode either
// stays or grows: consolidating incrementally equals consolidating from scratch.
//
// Everything here is a pure function of its inputs (no store, no clock): the consolidator
// (consolidator.h) reads the inputs from the store and writes the results.
#ifndef ENGRAM_CONSOLIDATE_EPISODES_H_
#define ENGRAM_CONSOLIDATE_EPISODES_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engram/config.h"
#include "engram/types.h"

namespace engram::consolidate {

// A bracketed note the narrative adds after a span of a turn's text: the absolute date of a
// relative time expression ("yesterday" -> "7 May 2023"), the name a pronoun refers to ("she"
// -> "Melanie"). Taken from the turn's stored signals and refers_to edges.
struct Annotation {
  std::uint32_t begin = 0;  // byte span in the turn text
  std::uint32_t end = 0;
  std::string note;
};

// One turn as consolidation sees it.
struct TurnView {
  std::string id;
  std::int64_t sequence = 0;
  std::string session_id;
  Timestamp time;  // event time, else when it was ingested
  Role role = Role::kUser;
  std::string speaker;
  std::string text;
  // The content signal's divergence (DMF eq. 7); unset when the turn has none.
  std::optional<double> divergence;
  std::vector<std::string> terms;  // distinct content terms (stemmed, no stopwords), sorted
  std::vector<float> vector;       // the stored embedding; empty without one
  std::vector<Annotation> annotations;  // sorted by begin, non-overlapping
};

// Why an episode starts where it does.
enum class Boundary { kStart, kSession, kTimeGap, kTopic, kLength };
std::string_view BoundaryName(Boundary boundary);  // "start", "session", "time_gap", ...

// Turns [begin, end) of the segmented sequence.
struct EpisodeSpan {
  std::size_t begin = 0;
  std::size_t end = 0;
  Boundary boundary = Boundary::kStart;
  std::size_t size() const { return end - begin; }
};

// Share of `terms` (sorted, distinct) found in `context` (sorted, distinct); 1 when `terms` is
// empty (an empty turn shifts nothing).
double TermOverlap(std::span<const std::string> terms, std::span<const std::string> context);

// Cuts `turns` (sequence order) into episodes. A boundary falls before turn i (i > 0) when:
//   - its session id differs from turn i-1's (kSession);
//   - more than config.episode_gap_minutes passed since turn i-1 (kTimeGap);
//   - the current episode already has config.episode_max_turns turns (kLength);
//   - a topic shift (kTopic): the episode has at least episode_min_turns turns, turn i has at
//     least topic_min_terms content terms, at most topic_overlap of them occur in the episode's
//     last topic_window turns, and — when `use_divergence` — turn i's divergence is at least
//     topic_divergence (a turn without a divergence never shifts the topic then).
// Returns the spans in order; they cover every turn exactly once. Empty input: no spans.
std::vector<EpisodeSpan> SegmentEpisodes(std::span<const TurnView> turns,
                                         const ConsolidateConfig& config, bool use_divergence);

// One sentence of a narrative and the turn it quotes.
struct NarrativeSentence {
  std::string turn_id;
  std::string text;
};

struct Narrative {
  std::vector<NarrativeSentence> sentences;  // in conversation order; the first is the opening
  std::string text;                          // the sentences joined by spaces
};

// "8 May 2023" for a time's UTC date.
std::string HumanDate(Timestamp time);

// The episode's extractive narrative: an opening sentence naming the speakers and the date
// ("On 8 May 2023, Caroline and Melanie talked."), then up to `max_sentences` sentences of the
// turns, chosen by their content terms (questions count less; ties go to the earlier sentence)
// and kept in conversation order, each rendered in the third person as `Caroline said: "…"`
// with the turn's annotations inserted in brackets after their span, and the date repeated
// when it changes from the previous quoted sentence's. Every sentence after the opening names
// the turn it quotes; the opening names the episode's first turn.
Narrative RenderNarrative(std::span<const TurnView> turns, std::size_t max_sentences);

// The name a turn's speaker goes by in a narrative: the speaker, else "the user" /
// "the assistant" / "the system" / "a tool".
std::string SpeakerName(const TurnView& turn);

}  // namespace engram::consolidate

#endif  // ENGRAM_CONSOLIDATE_EPISODES_H_

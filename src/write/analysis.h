// The analysis stage of derivation (DESIGN §4 steps 2-3): the turn's analysis row (Tier-0
// signals and DMF content signals), its time anchors (at_time edges), entity mentions and
// resolution, reference resolution.
//
// What one turn yields:
//   - [write] signals: one analysis row (store::TurnAnalysisRecord, layout in
//     store/turn_analysis.h) holding the turn's first max_signals_per_turn signals in text order
//     (text/signals.h; detected once, with the gazetteer: write/derive.h TurnText) as
//       {"kind", "begin", "end", "value"?, "topic"?, "previous_value"?, "polarity"?,
//        "uncertain"?, "confidence"?}
//     (the surface is the turn's text in [begin, end); a date's value is its interval
//     "from/to", its topic the granularity), and DMF's content signals (write/analysis_content.h)
//       "content": {"information_density", "sentiment", "sentiment_compound", "entity_count",
//                   "entity_norm", "divergence", "tokens"} (divergence: see below).
//     The row is a projection of the turn: derived from its text (and, for divergence, the
//     embeddings before it), written in the turn's transaction, erased with its scope.
//     A date or time whose interval resolved is also a time anchor: a `signal` node (the
//     scope, sequence number, event time, role, speaker and session of the turn; content =
//     metadata = {"turn", "kind", "surface", "begin", "end", "value", "topic", "from", "to",
//     "granularity", ...}; text = the surface) with a `derived_from` edge to the turn and an
//     `at_time` edge from it ("yesterday" in a turn of 2024-05-10 -> from 2024-05-09, to
//     2024-05-10), so facts and time references can point at it. Measured: the node-per-signal
//     store of schema 4 cost ~19 nodes, ~21 edges and ~40 journal rows per turn
//     (docs/BENCHMARKS.md, "Bytes per turn").
//   - [write] entities: each person / place / organisation signal with confidence at least
//     min_entity_confidence, and the turn's speaker (unless empty or a role word such as "user"),
//     is resolved against the scope's entities (write/entities.h). A new entity is an `entity`
//     node {"kind", "key", "name"} with a `has_entity` edge from the scope node (the roster the
//     resolver reads) and, when a tier matched below the accept threshold, a pending `same_as`
//     proposal to the existing entity (attrs: reason, tier, score; the embedding tier only runs
//     with an embedder and when no string tier proposed anything). The turn gets one `mentions`
//     edge per named entity (attrs: spans, and the tier and score of the first span's
//     resolution; the name signal with that span is the mention). The speaker's entity is not
//     linked from every turn (the turn's speaker field names it, and its key is the normalised
//     name); it takes part in reference resolution ("you" -> the other speaker).
//   - [write] references (with entities): pronouns, "there", "that day" ... bound by the focus
//     stacks (write/references.h) give one `refers_to` edge from the turn per target (attrs: the
//     references with surface, span and kind); a time reference also an `at_time` edge.
// Batching changes nothing: at the start of a derivation call the focus stacks are rebuilt by
// replaying the reference_ttl_turns turns stored before the batch (older bindings have expired),
// from their text and their stored mentions edges, and the divergence window is filled with the
// stored embeddings of the divergence_window turns before it. So one batch and one Remember call
// per turn give the same nodes and edges.
//   - divergence (DMF eq. 7): 1 - cos(turn embedding, centroid of the previous W turns'
//     embeddings), rounded to 4 digits; 0 when the turn or all of those turns have none.
#ifndef ENGRAM_WRITE_ANALYSIS_H_
#define ENGRAM_WRITE_ANALYSIS_H_

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "lexicon/lexicon.h"
#include "write/derive.h"
#include "write/entities.h"

namespace engram::write {

// Lexicons and tables the analysis loads once per data directory and shares.
struct AnalysisResources {
  // Loaded when any derivation stage is enabled; null otherwise.
  std::shared_ptr<const lexicon::Lexicons> lexicons;
  // Entity name embeddings for the resolver's embedding tier (write/entities.h); always set.
  std::shared_ptr<NameVectorCache> name_vectors;
};

// Loads the resources the enabled stages of `config` need from `data_dir`. A missing lexicon is
// kFailedPrecondition naming the file and scripts/setup.
StatusOr<std::shared_ptr<const AnalysisResources>> LoadAnalysisResources(const WriteConfig& config,
                                                                         std::string_view data_dir);

// Analyses the captured turns and writes the derived nodes and edges.
Status DeriveAnalysis(store::Transaction& txn, const EdgeRegistry& registry,
                      std::span<const std::string> turn_ids, const WriteConfig& config,
                      const AnalysisResources* resources, const DeriveContext& context);

}  // namespace engram::write

#endif  // ENGRAM_WRITE_ANALYSIS_H_

// The analysis stage of derivation (DESIGN §4 steps 2-3): Tier-0 signal nodes, resolved times
// (at_time edges), DMF content signals, entity mentions and resolution, reference resolution.
//
// What one turn yields (all nodes carry the turn's scope, sequence number, event time, role,
// speaker and session, and a `derived_from` edge to the turn; content = metadata = canonical JSON):
//   - [write] signals: one `signal` node per detected signal (text/signals.h):
//       {"turn", "kind", "surface", "begin", "end", "value"?, "topic"?, "previous_value"?,
//        "polarity"?, "uncertain"?, "confidence"?, and for dates and times "from", "to",
//        "granularity"}; node text = the surface. Each date / time signal gets an `at_time` edge
//     from the turn ("yesterday" in a turn of 2024-05-10 -> from 2024-05-09, to 2024-05-10).
//     One `content` signal node with DMF's content signals (write/analysis_content.h):
//       {"turn", "kind": "content", "information_density", "sentiment", "sentiment_compound",
//        "entity_count", "entity_norm", "divergence", "tokens"} (divergence: see below).
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

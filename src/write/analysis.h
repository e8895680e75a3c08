// The analysis stage of derivation (DESIGN §4 steps 2-3): Tier-0 signal nodes, resolved times
// (at_time edges), DMF content signals, entity mentions and resolution, reference resolution.
#ifndef ENGRAM_WRITE_ANALYSIS_H_
#define ENGRAM_WRITE_ANALYSIS_H_

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "write/derive.h"

namespace engram::write {

// Lexicons and tables the analysis loads once per data directory and shares.
struct AnalysisResources {};

// Loads the resources the enabled stages of `config` need from `data_dir`.
StatusOr<std::shared_ptr<const AnalysisResources>> LoadAnalysisResources(
    const WriteConfig& config, std::string_view data_dir);

// Analyses the captured turns and writes the derived nodes and edges.
Status DeriveAnalysis(store::Transaction& txn, const EdgeRegistry& registry,
                      std::span<const std::string> turn_ids, const WriteConfig& config,
                      const AnalysisResources* resources, const DeriveContext& context);

}  // namespace engram::write

#endif  // ENGRAM_WRITE_ANALYSIS_H_

// The facts stage of derivation (DESIGN §4 steps 4-5): rule-based fact extraction, the validator
// (support, hard constraints, subject, act) and reconciliation with existing facts through the
// edge handlers (supersedes, contradicts).
#ifndef ENGRAM_WRITE_FACTS_H_
#define ENGRAM_WRITE_FACTS_H_

#include <span>
#include <string>

#include "write/derive.h"

namespace engram::write {

// Extracts, validates and reconciles facts from the captured turns. `resources` may be null.
Status DeriveFacts(store::Transaction& txn, const EdgeRegistry& registry,
                   std::span<const std::string> turn_ids, const WriteConfig& config,
                   const AnalysisResources* resources, const DeriveContext& context);

}  // namespace engram::write

#endif  // ENGRAM_WRITE_FACTS_H_

// Derivation after capture (see derive.h).
#include "write/derive.h"

#include <vector>

#include "write/analysis.h"
#include "write/facts.h"

namespace engram::write {

Deriver::~Deriver() = default;

StatusOr<std::unique_ptr<Deriver>> Deriver::Open(const WriteConfig& config,
                                                 std::string_view data_dir) {
  std::unique_ptr<Deriver> deriver(new Deriver());
  deriver->config_ = config;
  ASSIGN_OR_RETURN(deriver->resources_, LoadAnalysisResources(config, data_dir));
  return deriver;
}

Status Deriver::Derive(store::Transaction& txn, const EdgeRegistry& registry,
                       std::span<const std::string> turn_ids, const DeriveContext& context) const {
  if (context.scope == nullptr) return Status::InvalidArgument("derivation needs a scope");
  if (turn_ids.empty()) return Status::Ok();
  if (!config_.signals && !config_.entities && !config_.facts) return Status::Ok();
  // Analyse once: every stage reads these.
  const text::Gazetteer* gazetteer =
      resources_ != nullptr && resources_->lexicons != nullptr ? &resources_->lexicons->gazetteer()
                                                               : nullptr;
  std::vector<TurnText> texts;
  texts.reserve(turn_ids.size());
  for (const std::string& turn_id : turn_ids) {
    ASSIGN_OR_RETURN(const store::NodeRecord turn, txn.GetNode(turn_id));
    texts.push_back(
        AnalyseTurnText(turn.text, turn.event_time.value_or(context.now), gazetteer));
  }
  DeriveContext shared = context;
  shared.texts = texts;
  if (config_.signals || config_.entities) {
    RETURN_IF_ERROR(DeriveAnalysis(txn, registry, turn_ids, config_, resources_.get(), shared));
  }
  if (config_.facts) {
    RETURN_IF_ERROR(DeriveFacts(txn, registry, turn_ids, config_, resources_.get(), shared));
  }
  return Status::Ok();
}

}  // namespace engram::write

// Derivation after capture (see derive.h).
#include "write/derive.h"

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
  if (config_.signals || config_.entities) {
    RETURN_IF_ERROR(DeriveAnalysis(txn, registry, turn_ids, config_, resources_.get(), context));
  }
  if (config_.facts) {
    RETURN_IF_ERROR(DeriveFacts(txn, registry, turn_ids, config_, resources_.get(), context));
  }
  return Status::Ok();
}

}  // namespace engram::write

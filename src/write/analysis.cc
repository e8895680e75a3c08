// Analysis stage (see analysis.h). Not implemented yet: derives nothing.
#include "write/analysis.h"

namespace engram::write {

StatusOr<std::shared_ptr<const AnalysisResources>> LoadAnalysisResources(
    const WriteConfig& /*config*/, std::string_view /*data_dir*/) {
  return std::make_shared<const AnalysisResources>();
}

Status DeriveAnalysis(store::Transaction& /*txn*/, const EdgeRegistry& /*registry*/,
                      std::span<const std::string> /*turn_ids*/, const WriteConfig& /*config*/,
                      const AnalysisResources* /*resources*/, const DeriveContext& /*context*/) {
  return Status::Ok();
}

}  // namespace engram::write

// Facts stage (see facts.h). Not implemented yet: derives nothing.
#include "write/facts.h"

namespace engram::write {

Status DeriveFacts(store::Transaction& /*txn*/, const EdgeRegistry& /*registry*/,
                   std::span<const std::string> /*turn_ids*/, const WriteConfig& /*config*/,
                   const AnalysisResources* /*resources*/, const DeriveContext& /*context*/) {
  return Status::Ok();
}

}  // namespace engram::write

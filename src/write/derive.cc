// Derivation after capture (see derive.h).
#include "write/derive.h"

namespace engram::write {

Status DeriveFromTurns(store::Transaction& txn, const EdgeRegistry& registry,
                       std::span<const std::string> turn_ids, const DeriveContext& context) {
  if (context.config == nullptr || context.scope == nullptr) {
    return Status::InvalidArgument("DeriveFromTurns needs a config and a scope");
  }
  (void)txn;
  (void)registry;
  (void)turn_ids;
  return Status::Ok();
}

}  // namespace engram::write

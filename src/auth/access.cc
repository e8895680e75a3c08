// Access and rights (see access.h).
#include "auth/access.h"

#include <utility>

namespace engram::auth {

std::string_view RightName(Right right) {
  switch (right) {
    case Right::kRead:
      return "read";
    case Right::kWrite:
      return "write";
    case Right::kErase:
      return "erase";
    case Right::kAdmin:
      return "admin";
  }
  return "read";
}

StatusOr<Right> ParseRight(std::string_view name) {
  for (const Right right : {Right::kRead, Right::kWrite, Right::kErase, Right::kAdmin}) {
    if (name == RightName(right)) return right;
  }
  return Status::InvalidArgument("unknown right '" + std::string(name) +
                                 "' (expected read, write, erase or admin)");
}

StatusOr<std::set<Right>> ParseRights(std::string_view comma_separated) {
  std::set<Right> rights;
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = comma_separated.find(',', begin);
    std::string_view part = comma_separated.substr(
        begin, comma == std::string_view::npos ? std::string_view::npos : comma - begin);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    if (part.empty()) {
      return Status::InvalidArgument("empty right in '" + std::string(comma_separated) +
                                     "' (expected a comma-separated list such as read,write)");
    }
    ASSIGN_OR_RETURN(Right right, ParseRight(part));
    rights.insert(right);
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }
  return rights;
}

std::string RightsToString(const std::set<Right>& rights) {
  std::string text;
  for (const Right right : rights) {
    if (!text.empty()) text += ',';
    text += RightName(right);
  }
  return text;
}

bool ScopeContains(const Scope& prefix, const Scope& scope) {
  const auto& outer = prefix.path();
  const auto& inner = scope.path();
  if (outer.size() > inner.size()) return false;
  for (std::size_t segment_idx = 0; segment_idx < outer.size(); ++segment_idx) {
    if (!(outer[segment_idx] == inner[segment_idx])) return false;
  }
  return true;
}

Access Access::Unrestricted() {
  Access access;
  access.unrestricted_ = true;
  return access;
}

Access Access::UnrestrictedWithoutAdmin() {
  Access access = Unrestricted();
  access.server_admin_ = false;
  return access;
}

Access Access::Granted(std::vector<Grant> grants, std::string key_id) {
  Access access;
  access.grants_ = std::move(grants);
  access.key_id_ = std::move(key_id);
  return access;
}

bool Access::Allows(const Scope& scope, Right right) const {
  if (unrestricted_) return true;
  for (const Grant& grant : grants_) {
    if (!ScopeContains(grant.prefix, scope)) continue;
    if (grant.rights.count(right) > 0 || grant.rights.count(Right::kAdmin) > 0) return true;
  }
  return false;
}

bool Access::AllowsPath(std::string_view scope_path, Right right) const {
  if (unrestricted_) return true;
  StatusOr<Scope> scope = Scope::Parse(scope_path);
  return scope.ok() && Allows(*scope, right);
}

bool Access::IsServerAdmin() const {
  if (unrestricted_) return server_admin_;
  for (const Grant& grant : grants_) {
    if (grant.prefix.empty() && grant.rights.count(Right::kAdmin) > 0) return true;
  }
  return false;
}

}  // namespace engram::auth

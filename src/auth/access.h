// Access: what one caller of the server (one API key, or the unrestricted local caller) may do,
// as grants of rights on scope prefixes. A grant on `app:crm` covers `app:crm` and every scope
// nested in it (`app:crm/user:alice`), never a sibling (`app:crm2`) or a parent (`app:`).
//
//   engram::auth::Access access = engram::auth::Access::Granted(
//       {{.prefix = engram::Scope::Parse("user:alice").value(), .rights =
//       {engram::auth::Right::kRead}}});
//   access.Allows(engram::Scope::Parse("user:alice/run:7").value(), engram::auth::Right::kRead); //
//   true
//
// The REST server and the MCP tools ask Allows for every scope a request touches, including the
// scope of every memory id it reads: a memory the caller may not read is reported "not found",
// never "forbidden", so ids do not reveal what other tenants store.
//
// Thread-safety: immutable after construction; any number of threads may call the const methods.
#ifndef ENGRAM_AUTH_ACCESS_H_
#define ENGRAM_AUTH_ACCESS_H_

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "engram/types.h"

namespace engram::auth {

// kRead: recall, get, list, history, links, scopes, facts, entities, proposals.
// kWrite: remember, amend, retire, retire-all, propose / accept / reject merges.
// kErase: erase (purge) a scope and everything nested in it.
// kAdmin: every right on the prefix; with the root grant, server-wide operations (mem0's reset).
enum class Right { kRead, kWrite, kErase, kAdmin };
std::string_view RightName(Right right);  // "read", "write", "erase", "admin"
StatusOr<Right> ParseRight(std::string_view name);
// "read,write" -> {kRead, kWrite}. kInvalidArgument naming an unknown or empty right.
StatusOr<std::set<Right>> ParseRights(std::string_view comma_separated);
std::string RightsToString(const std::set<Right>& rights);  // "read,write", in enum order

struct Grant {
  // The scope the rights apply to, with everything nested in it. An empty prefix (no segments)
  // is the root: every scope.
  Scope prefix;
  std::set<Right> rights;
};

// True when `scope` is `prefix` or nested inside it (segment-wise; an empty prefix contains all).
bool ScopeContains(const Scope& prefix, const Scope& scope);

class Access {
 public:
  // Every right on every scope: the caller of a server without keys (loopback only) and of
  // `engram mcp` over stdio.
  static Access Unrestricted();
  // As Unrestricted, without the server-wide operations IsServerAdmin guards (mem0's reset, index
  // rebuilds): the caller of a server without keys that was not started with --allow-admin.
  static Access UnrestrictedWithoutAdmin();
  // `key_id` names the API key the grants came from (KeyRecord::id, "k_..."); empty for grants
  // made in code. It says who the caller is, not what it may do: the MCP transport binds each
  // session to it (mcp/http_transport.h).
  static Access Granted(std::vector<Grant> grants, std::string key_id = {});

  // True when a grant whose prefix contains `scope` holds `right` (or kAdmin).
  bool Allows(const Scope& scope, Right right) const;
  // Allows for a scope given as text (Scope::ToString form); false when it does not parse.
  bool AllowsPath(std::string_view scope_path, Right right) const;
  // True for Unrestricted (not UnrestrictedWithoutAdmin) and for a root grant holding kAdmin.
  bool IsServerAdmin() const;
  bool unrestricted() const { return unrestricted_; }
  const std::vector<Grant>& grants() const { return grants_; }
  // The id of the API key this Access was authenticated with; empty for Unrestricted and for
  // grants made in code.
  const std::string& key_id() const { return key_id_; }

 private:
  bool unrestricted_ = false;
  bool server_admin_ = true;  // false for UnrestrictedWithoutAdmin
  std::vector<Grant> grants_;
  std::string key_id_;
};

}  // namespace engram::auth

#endif  // ENGRAM_AUTH_ACCESS_H_

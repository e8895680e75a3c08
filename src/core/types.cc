// Scope paths and the name tables of include/engram/types.h and options.h.
#include <array>
#include <string>
#include <utility>

#include "core/utf8.h"
#include "engram/options.h"
#include "engram/types.h"

namespace engram {
namespace {

template <typename Enum, std::size_t N>
StatusOr<Enum> ParseName(const std::array<std::pair<Enum, std::string_view>, N>& table,
                         std::string_view name, std::string_view what) {
  for (const auto& [value, value_name] : table) {
    if (value_name == name) return value;
  }
  std::string allowed;
  for (const auto& entry : table) {
    if (!allowed.empty()) allowed += ", ";
    allowed += entry.second;
  }
  return Status::InvalidArgument("unknown " + std::string(what) + " \"" +
                                 std::string(name.substr(0, 64)) + "\" (expected one of " +
                                 allowed + ")");
}

template <typename Enum, std::size_t N>
std::string_view NameOf(const std::array<std::pair<Enum, std::string_view>, N>& table,
                        Enum value) {
  for (const auto& [entry_value, name] : table) {
    if (entry_value == value) return name;
  }
  return "unknown";
}

constexpr std::array<std::pair<ScopeKind, std::string_view>, 5> kScopeKinds = {{
    {ScopeKind::kUser, "user"},
    {ScopeKind::kAgent, "agent"},
    {ScopeKind::kApp, "app"},
    {ScopeKind::kRun, "run"},
    {ScopeKind::kWorld, "world"},
}};

constexpr std::array<std::pair<Role, std::string_view>, 4> kRoles = {{
    {Role::kUser, "user"},
    {Role::kAssistant, "assistant"},
    {Role::kSystem, "system"},
    {Role::kTool, "tool"},
}};

constexpr std::array<std::pair<NodeKind, std::string_view>, 9> kNodeKinds = {{
    {NodeKind::kScope, "scope"},
    {NodeKind::kTurn, "turn"},
    {NodeKind::kSignal, "signal"},
    {NodeKind::kEntity, "entity"},
    {NodeKind::kFact, "fact"},
    {NodeKind::kEpisode, "episode"},
    {NodeKind::kScene, "scene"},
    {NodeKind::kProfile, "profile"},
    {NodeKind::kSummary, "summary"},
}};

constexpr std::array<std::pair<NodeStatus, std::string_view>, 5> kNodeStatuses = {{
    {NodeStatus::kActive, "active"},
    {NodeStatus::kSuperseded, "superseded"},
    {NodeStatus::kRetired, "retired"},
    {NodeStatus::kRejected, "rejected"},
    {NodeStatus::kPending, "pending"},
}};

constexpr std::array<std::pair<AnswerPolicy, std::string_view>, 3> kPolicies = {{
    {AnswerPolicy::kStrict, "strict"},
    {AnswerPolicy::kBalanced, "balanced"},
    {AnswerPolicy::kAdvanced, "advanced"},
}};

}  // namespace

std::string_view ScopeKindName(ScopeKind kind) { return NameOf(kScopeKinds, kind); }
StatusOr<ScopeKind> ParseScopeKind(std::string_view name) {
  return ParseName(kScopeKinds, name, "scope kind");
}
std::string_view RoleName(Role role) { return NameOf(kRoles, role); }
StatusOr<Role> ParseRole(std::string_view name) { return ParseName(kRoles, name, "role"); }
std::string_view NodeKindName(NodeKind kind) { return NameOf(kNodeKinds, kind); }
StatusOr<NodeKind> ParseNodeKind(std::string_view name) {
  return ParseName(kNodeKinds, name, "node kind");
}
std::string_view NodeStatusName(NodeStatus status) { return NameOf(kNodeStatuses, status); }
StatusOr<NodeStatus> ParseNodeStatus(std::string_view name) {
  return ParseName(kNodeStatuses, name, "status");
}
std::string_view AnswerPolicyName(AnswerPolicy policy) { return NameOf(kPolicies, policy); }
StatusOr<AnswerPolicy> ParseAnswerPolicy(std::string_view name) {
  return ParseName(kPolicies, name, "answer policy");
}

Scope::Scope(ScopeKind kind, std::string name) { path_.push_back({kind, std::move(name)}); }

Scope Scope::Child(ScopeKind kind, std::string name) const {
  Scope child = *this;
  child.path_.push_back({kind, std::move(name)});
  return child;
}

std::optional<Scope> Scope::Parent() const {
  if (path_.size() <= 1) return std::nullopt;
  Scope parent = *this;
  parent.path_.pop_back();
  return parent;
}

ScopeKind Scope::kind() const { return path_.empty() ? ScopeKind::kWorld : path_.back().kind; }

const std::string& Scope::name() const {
  static const std::string* const kEmpty = new std::string();
  return path_.empty() ? *kEmpty : path_.back().name;
}

std::string Scope::ToString() const {
  std::string out;
  for (const ScopeSegment& segment : path_) {
    if (!out.empty()) out += '/';
    out += ScopeKindName(segment.kind);
    out += ':';
    out += segment.name;
  }
  return out;
}

Status Scope::Validate() const {
  if (path_.empty()) return Status::InvalidArgument("scope is empty (expected kind:name)");
  if (path_.size() > kMaxDepth) {
    return Status::InvalidArgument("scope nests " + std::to_string(path_.size()) +
                                   " levels; at most " + std::to_string(kMaxDepth) +
                                   " are allowed");
  }
  for (const ScopeSegment& segment : path_) {
    const std::string& name = segment.name;
    if (name.empty()) return Status::InvalidArgument("scope name is empty (expected kind:name)");
    if (name.size() > kMaxNameBytes) {
      return Status::InvalidArgument("scope name is " + std::to_string(name.size()) +
                                     " bytes; at most " + std::to_string(kMaxNameBytes) +
                                     " are allowed");
    }
    if (!core::IsValidUtf8(name)) {
      return Status::InvalidArgument("scope name is not valid UTF-8");
    }
    for (const char c : name) {
      if (c == '/' || static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
        return Status::InvalidArgument(
            "scope name \"" + name.substr(0, 64) +
            "\" contains '/' or a control character");
      }
    }
  }
  return Status::Ok();
}

StatusOr<Scope> Scope::Parse(std::string_view text) {
  if (text.empty()) return Status::InvalidArgument("scope is empty (expected kind:name)");
  Scope scope;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('/', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view segment = text.substr(start, end - start);
    const std::size_t colon = segment.find(':');
    if (colon == std::string_view::npos) {
      return Status::InvalidArgument("scope segment \"" + std::string(segment.substr(0, 64)) +
                                     "\" is not kind:name (kinds: user, agent, app, run, world)");
    }
    StatusOr<ScopeKind> kind = ParseScopeKind(segment.substr(0, colon));
    if (!kind.ok()) return kind.status().WithContext("scope \"" + std::string(text.substr(0, 64)) + "\"");
    scope.path_.push_back({*kind, std::string(segment.substr(colon + 1))});
    if (end == text.size()) break;
    start = end + 1;
  }
  RETURN_IF_ERROR(scope.Validate());
  return scope;
}

}  // namespace engram

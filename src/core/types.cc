// Scope paths and the name tables of include/engram/types.h.
#include "engram/types.h"

#include <utf8proc.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/utf8.h"

namespace engram {
namespace {

// The code point starting at text[pos] and its length in bytes (valid UTF-8 expected).
std::pair<utf8proc_int32_t, std::size_t> CodePointAt(std::string_view text, std::size_t pos) {
  utf8proc_int32_t code_point = -1;
  const utf8proc_ssize_t length =
      utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + pos),
                       static_cast<utf8proc_ssize_t>(text.size() - pos), &code_point);
  return {code_point, length > 0 ? static_cast<std::size_t>(length) : 1};
}

bool IsSpace(utf8proc_int32_t code_point) {
  if (code_point == ' ' || (code_point >= '\t' && code_point <= '\r')) return true;
  const utf8proc_category_t category = utf8proc_category(code_point);
  return category == UTF8PROC_CATEGORY_ZS || category == UTF8PROC_CATEGORY_ZL ||
         category == UTF8PROC_CATEGORY_ZP;
}

// Format characters (zero-width space / joiners, bidirectional controls, soft hyphen, BOM) and
// other default-ignorable code points render as nothing.
bool IsInvisible(utf8proc_int32_t code_point) {
  return utf8proc_category(code_point) == UTF8PROC_CATEGORY_CF ||
         utf8proc_get_property(code_point)->ignorable;
}

// `text` without leading and trailing white space (ASCII and Unicode).
std::string_view TrimSpace(std::string_view text) {
  while (!text.empty()) {
    const auto [code_point, length] = CodePointAt(text, 0);
    if (!IsSpace(code_point)) break;
    text.remove_prefix(length);
  }
  while (!text.empty()) {
    std::size_t start = text.size() - 1;
    while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
    if (!IsSpace(CodePointAt(text, start).first)) break;
    text.remove_suffix(text.size() - start);
  }
  return text;
}

struct FreeDeleter {
  void operator()(utf8proc_uint8_t* pointer) const { std::free(pointer); }
};

// `text` in Unicode NFKC (compatibility forms such as fullwidth "ａ" U+FF41 or the ligature "ﬁ"
// become their plain letters); `text` unchanged when it is not valid UTF-8 (Validate reports
// that).
std::string ToNfkc(std::string_view text) {
  if (!core::IsValidUtf8(text)) return std::string(text);
  utf8proc_uint8_t* output = nullptr;
  const utf8proc_ssize_t length = utf8proc_map(
      reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
      static_cast<utf8proc_ssize_t>(text.size()), &output,
      static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT));
  std::unique_ptr<utf8proc_uint8_t, FreeDeleter> owned(output);
  if (length < 0) return std::string(text);
  return std::string(reinterpret_cast<const char*>(output), static_cast<std::size_t>(length));
}

// The scripts whose letters look alike ("a" U+0061, "а" U+0430, "α" U+03B1; "o", "о", "ο"), so
// a name mixing two of them can pass for another name (Unicode TS #39, single-script
// restriction). kOther is every other script and every character that is not a letter (digits,
// punctuation, combining marks), which mixes with any script.
enum class LookAlikeScript { kOther, kLatin, kGreek, kCyrillic };

std::string_view LookAlikeScriptName(LookAlikeScript script) {
  switch (script) {
    case LookAlikeScript::kLatin:
      return "Latin";
    case LookAlikeScript::kGreek:
      return "Greek";
    case LookAlikeScript::kCyrillic:
      return "Cyrillic";
    case LookAlikeScript::kOther:
      break;
  }
  return "other";
}

// The script of a letter from the Unicode blocks of Latin, Greek and Cyrillic letters (their
// Scripts.txt ranges, Coptic's U+03E2..U+03EF left out); kOther for anything else.
LookAlikeScript LookAlikeScriptOf(utf8proc_int32_t code_point) {
  switch (utf8proc_category(code_point)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
      break;
    default:
      return LookAlikeScript::kOther;
  }
  const auto in = [code_point](utf8proc_int32_t first, utf8proc_int32_t last) {
    return code_point >= first && code_point <= last;
  };
  if (in(0x41, 0x5A) || in(0x61, 0x7A) || code_point == 0xAA || code_point == 0xBA ||
      in(0xC0, 0x24F) || in(0x250, 0x2AF) || in(0x1D00, 0x1D25) || in(0x1E00, 0x1EFF) ||
      in(0x2C60, 0x2C7F) || in(0xA722, 0xA7FF) || in(0xAB30, 0xAB64) || in(0xFF21, 0xFF3A) ||
      in(0xFF41, 0xFF5A)) {
    return LookAlikeScript::kLatin;
  }
  if ((in(0x370, 0x3FF) && !in(0x3E2, 0x3EF)) || in(0x1D26, 0x1D2A) || in(0x1F00, 0x1FFF) ||
      code_point == 0xAB65) {
    return LookAlikeScript::kGreek;
  }
  if (in(0x400, 0x52F) || in(0x1C80, 0x1C8F) || code_point == 0x1D2B || in(0xA640, 0xA69F)) {
    return LookAlikeScript::kCyrillic;
  }
  return LookAlikeScript::kOther;
}

// At most `max_bytes` of valid UTF-8 `text`, cut at a character boundary.
std::string_view Prefix(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  std::size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

std::string U(utf8proc_int32_t code_point) {
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "U+%04X", static_cast<unsigned>(code_point));
  return buffer;
}

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
constexpr std::array<std::pair<ContextMode, std::string_view>, 2> kContextModes = {{
    {ContextMode::kEvidence, "evidence"},
    {ContextMode::kChat, "chat"},
}};

std::string_view AnswerPolicyName(AnswerPolicy policy) { return NameOf(kPolicies, policy); }
StatusOr<AnswerPolicy> ParseAnswerPolicy(std::string_view name) {
  return ParseName(kPolicies, name, "answer policy");
}
std::string_view ContextModeName(ContextMode mode) { return NameOf(kContextModes, mode); }
StatusOr<ContextMode> ParseContextMode(std::string_view name) {
  return ParseName(kContextModes, name, "context mode");
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
    // Per look-alike script: its letters in the name, and the first one and where it is.
    struct ScriptLetters {
      std::size_t count = 0;
      utf8proc_int32_t first = 0;
      std::size_t first_pos = 0;
    };
    std::array<ScriptLetters, 4> scripts{};
    for (std::size_t pos = 0; pos < name.size();) {
      const auto [code_point, length] = CodePointAt(name, pos);
      if (IsInvisible(code_point)) {
        return Status::InvalidArgument(
            "scope name contains the invisible character " + U(code_point) +
            " (zero-width, bidirectional control or other default-ignorable characters make "
            "names that look alike)");
      }
      ScriptLetters& script = scripts[static_cast<std::size_t>(LookAlikeScriptOf(code_point))];
      if (script.count++ == 0) {
        script.first = code_point;
        script.first_pos = pos;
      }
      pos += length;
    }
    // Two look-alike scripts in one name: the error names the first letter of the script with
    // fewer letters (the later one on a tie), the one most likely standing in for another.
    std::vector<LookAlikeScript> present;
    for (const LookAlikeScript script :
         {LookAlikeScript::kLatin, LookAlikeScript::kGreek, LookAlikeScript::kCyrillic}) {
      if (scripts[static_cast<std::size_t>(script)].count > 0) present.push_back(script);
    }
    if (present.size() > 1) {
      const auto letters_of = [&scripts](LookAlikeScript script) -> const ScriptLetters& {
        return scripts[static_cast<std::size_t>(script)];
      };
      // A strict order (two scripts never start at one position): odder first.
      const auto odder = [&letters_of](LookAlikeScript a, LookAlikeScript b) {
        const ScriptLetters& left = letters_of(a);
        const ScriptLetters& right = letters_of(b);
        return left.count != right.count ? left.count < right.count
                                         : left.first_pos > right.first_pos;
      };
      const LookAlikeScript odd = *std::min_element(present.begin(), present.end(), odder);
      const LookAlikeScript usual = *std::max_element(present.begin(), present.end(), odder);
      const std::string odd_name(LookAlikeScriptName(odd));
      return Status::InvalidArgument(
          "scope \"" + std::string(Prefix(ToString(), 128)) + "\": the name mixes " +
          std::string(LookAlikeScriptName(usual)) + " and " + odd_name + " letters (" +
          U(letters_of(odd).first) + " is " + odd_name +
          "); letters of these scripts look alike, so a name keeps to one of them");
    }
    if (TrimSpace(name).size() != name.size()) {
      return Status::InvalidArgument("scope name \"" + name.substr(0, 64) +
                                     "\" begins or ends with white space");
    }
    if (ToNfkc(name) != name) {
      return Status::InvalidArgument("scope name \"" + name.substr(0, 64) +
                                     "\" is not in Unicode NFKC (Scope::Parse normalises names)");
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
    StatusOr<ScopeKind> kind = ParseScopeKind(TrimSpace(segment.substr(0, colon)));
    if (!kind.ok()) return kind.status().WithContext("scope \"" + std::string(text.substr(0, 64)) + "\"");
    // Trimmed again after NFKC, which may turn a compatibility space (U+2007) into a plain one.
    scope.path_.push_back(
        {*kind, std::string(TrimSpace(ToNfkc(TrimSpace(segment.substr(colon + 1)))))});
    if (end == text.size()) break;
    start = end + 1;
  }
  RETURN_IF_ERROR(scope.Validate());
  return scope;
}

}  // namespace engram

// Encoding and strict decoding of export lines (see format.h).
#include "archive/format.h"

#include "archive/archive.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/ids.h"
#include "core/json_depth.h"
#include "store/journal.h"
#include "store/merkle.h"

namespace engram::archive {
namespace {

using nlohmann::json;

// A line is one flat object whose strings hold any nested JSON (contents, metadata, attributes),
// so deeper nesting than this is not an export.
constexpr std::size_t kMaxLineDepth = 4;

constexpr std::string_view kBase64 =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Little-endian float32 values, base64 with padding.
std::string EncodeVector(const std::vector<float>& values) {
  std::string bytes;
  bytes.reserve(values.size() * 4);
  for (const float value : values) {
    const auto bits = std::bit_cast<std::uint32_t>(value);
    for (int shift = 0; shift < 32; shift += 8) bytes += static_cast<char>((bits >> shift) & 0xFF);
  }
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    std::uint32_t chunk = static_cast<std::uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) chunk |= static_cast<std::uint8_t>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) chunk |= static_cast<std::uint8_t>(bytes[i + 2]);
    out += kBase64[(chunk >> 18) & 63];
    out += kBase64[(chunk >> 12) & 63];
    out += i + 1 < bytes.size() ? kBase64[(chunk >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kBase64[chunk & 63] : '=';
  }
  return out;
}

// The decoded floats, or an error message.
std::optional<std::string> DecodeVector(std::string_view text, std::vector<float>* values) {
  if (text.size() % 4 != 0) return "base64 length is not a multiple of 4";
  std::string bytes;
  for (std::size_t i = 0; i < text.size(); i += 4) {
    std::uint32_t chunk = 0;
    int padding = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      const char c = text[i + j];
      std::uint32_t sextet = 0;
      if (c == '=' && i + 4 == text.size() && j >= 2) {
        ++padding;
      } else {
        if (padding > 0) return "character after base64 padding";
        const std::size_t found = kBase64.find(c);
        if (found == std::string_view::npos) return "not base64";
        sextet = static_cast<std::uint32_t>(found);
      }
      chunk = chunk << 6 | sextet;
    }
    bytes += static_cast<char>((chunk >> 16) & 0xFF);
    if (padding < 2) bytes += static_cast<char>((chunk >> 8) & 0xFF);
    if (padding < 1) bytes += static_cast<char>(chunk & 0xFF);
  }
  if (bytes.size() % 4 != 0) return "not a whole number of float32 values";
  values->clear();
  for (std::size_t i = 0; i < bytes.size(); i += 4) {
    std::uint32_t bits = 0;
    for (int k = 3; k >= 0; --k) bits = bits << 8 | static_cast<std::uint8_t>(bytes[i + k]);
    const float value = std::bit_cast<float>(bits);
    if (!std::isfinite(value)) return "value " + std::to_string(i / 4) + " is not finite";
    values->push_back(value);
  }
  return std::nullopt;
}

json TimeJson(const std::optional<Timestamp>& time) {
  return time.has_value() ? json(time->micros) : json(nullptr);
}

// The fields of one line, read strictly: every error names the line and the field.
class Fields {
 public:
  Fields(const json& object, std::string where) : object_(object), where_(std::move(where)) {}

  Status Error(std::string_view key, std::string_view problem) const {
    return Status::InvalidArgument(where_ + "field \"" + std::string(key) + "\": " +
                                   std::string(problem));
  }
  Status LineError(std::string_view problem) const {
    return Status::InvalidArgument(where_ + std::string(problem));
  }

  StatusOr<std::string> Text(std::string_view key) {
    const json* value = Find(key);
    if (value == nullptr) return Error(key, "missing");
    if (!value->is_string()) return Error(key, "expected a string");
    return value->get<std::string>();
  }
  StatusOr<std::int64_t> Int(std::string_view key) {
    const json* value = Find(key);
    if (value == nullptr) return Error(key, "missing");
    if (!value->is_number_integer()) return Error(key, "expected a whole number");
    return value->get<std::int64_t>();
  }
  StatusOr<std::optional<Timestamp>> OptionalTime(std::string_view key) {
    const json* value = Find(key);
    if (value == nullptr) return Error(key, "missing");
    if (value->is_null()) return std::optional<Timestamp>();
    if (!value->is_number_integer()) {
      return Error(key, "expected microseconds since the epoch (a whole number) or null");
    }
    return std::optional<Timestamp>(Timestamp{value->get<std::int64_t>()});
  }
  StatusOr<Timestamp> Time(std::string_view key) {
    ASSIGN_OR_RETURN(const std::optional<Timestamp> time, OptionalTime(key));
    if (!time.has_value()) return Error(key, "must not be null");
    return *time;
  }
  StatusOr<std::string> Id(std::string_view key) {
    ASSIGN_OR_RETURN(std::string id, Text(key));
    if (!core::LooksLikeId(id)) return Error(key, "expected an id of 32 lowercase hex digits");
    return id;
  }
  StatusOr<std::string> Hash(std::string_view key) {
    ASSIGN_OR_RETURN(std::string hash, Text(key));
    if (!store::merkle::FromHex(hash, key).ok()) {
      return Error(key, "expected a hash of 64 lowercase hex digits");
    }
    return hash;
  }
  const json* Find(std::string_view key) {
    seen_.insert(std::string(key));
    const auto found = object_.find(key);
    return found == object_.end() ? nullptr : &*found;
  }
  // After every expected field was read: refuses any other.
  Status NoOthers() const {
    for (const auto& [key, unused] : object_.items()) {
      if (!seen_.contains(key)) return Error(key, "unknown field");
    }
    return Status::Ok();
  }

 private:
  const json& object_;
  std::string where_;
  std::set<std::string> seen_;
};

json HeaderJson(const Archive& archive) {
  json header = {{"format", kFormatName},
                 {"version", kFormatVersion},
                 {"scope", archive.scope},
                 {"root", archive.root},
                 {"scopes", archive.scopes.size()},
                 {"nodes", archive.nodes},
                 {"edges", archive.edges},
                 {"vectors", archive.vectors}};
  header["embedder"] = archive.embedder.has_value()
                           ? json{{"model_id", archive.embedder->model_id},
                                  {"dimension", archive.embedder->dimension}}
                           : json(nullptr);
  return header;
}

}  // namespace

std::string ParentPath(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string() : std::string(path.substr(0, slash));
}

std::string EncodeArchive(const Archive& archive) {
  std::string out = HeaderJson(archive).dump() + "\n";
  for (const ArchivedScope& scope : archive.scopes) {
    out += json{{"type", "scope"},
                {"path", scope.path},
                {"created_at", scope.created_at.micros},
                {"last_sequence", scope.last_sequence}}
               .dump() +
           "\n";
  }
  for (const ArchivedScope& scope : archive.scopes) {
    for (const ArchivedNode& node : scope.nodes) {
      const store::NodeRecord& r = node.record;
      json line = {{"type", "node"},
                   {"scope", scope.path},
                   {"id", r.id},
                   {"kind", NodeKindName(r.kind)},
                   {"content", r.content_json},
                   {"text", r.text},
                   {"role", RoleName(r.role)},
                   {"speaker", r.speaker},
                   {"session_id", r.session_id},
                   {"sequence", r.sequence},
                   {"event_time", TimeJson(r.event_time)},
                   {"metadata", r.metadata_json},
                   {"idempotency_key", r.idempotency_key},
                   {"status", NodeStatusName(r.status)},
                   {"valid_from", TimeJson(r.valid_from)},
                   {"valid_to", TimeJson(r.valid_to)},
                   {"ingested_at", r.ingested_at.micros},
                   {"updated_at", r.updated_at.micros},
                   {"leaf", node.leaf}};
      if (node.vector.has_value()) line["vector"] = EncodeVector(*node.vector);
      if (node.analysis.has_value()) {
        line["analysis"] = node.analysis->bytes;
        line["analysis_format"] = node.analysis->format;
      }
      out += line.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    }
  }
  for (const ArchivedScope& scope : archive.scopes) {
    for (const ArchivedEdge& edge : scope.edges) {
      const store::EdgeRecord& r = edge.record;
      out += json{{"type", "edge"},
                  {"scope", scope.path},
                  {"id", r.id},
                  {"edge_type", r.type},
                  {"src", r.src},
                  {"dst", r.dst},
                  {"attrs", r.attrs_json},
                  {"status", r.status},
                  {"valid_from", TimeJson(r.valid_from)},
                  {"valid_to", TimeJson(r.valid_to)},
                  {"ingested_at", r.ingested_at.micros},
                  {"updated_at", r.updated_at.micros},
                  {"leaf", edge.leaf}}
                 .dump(-1, ' ', false, json::error_handler_t::replace) +
             "\n";
    }
  }
  return out;
}

namespace {

class Decoder {
 public:
  explicit Decoder(std::string_view source) : source_(source) {}

  StatusOr<Archive> Run(std::string_view text) {
    std::size_t line_number = 0;
    std::size_t start = 0;
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      const bool complete = end != std::string_view::npos;
      if (!complete) end = text.size();
      std::string_view line = text.substr(start, end - start);
      start = end + 1;
      ++line_number;
      if (!complete) {
        return Status::InvalidArgument(Where(line_number) +
                                       "the line does not end in a newline (truncated file?)");
      }
      RETURN_IF_ERROR(Line(line, line_number));
    }
    if (line_number == 0) {
      return Status::InvalidArgument(std::string(source_) + ": empty file, not an engram export");
    }
    return Finish();
  }

 private:
  std::string Where(std::size_t line) const {
    return std::string(source_) + " line " + std::to_string(line) + ": ";
  }

  Status Line(std::string_view text, std::size_t line_number) {
    if (core::JsonNestingDepth(text, kMaxLineDepth) > kMaxLineDepth) {
      return Status::InvalidArgument(Where(line_number) + "nests deeper than an export line can");
    }
    const json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded() || !parsed.is_object()) {
      return Status::InvalidArgument(Where(line_number) + "not a JSON object");
    }
    Fields fields(parsed, Where(line_number));
    if (line_number == 1) return Header(fields);
    ASSIGN_OR_RETURN(const std::string type, fields.Text("type"));
    if (type == "scope") return ScopeLine(fields, line_number);
    if (type == "node") return NodeLine(fields, line_number);
    if (type == "edge") return EdgeLine(fields, line_number);
    return fields.Error("type", "expected \"scope\", \"node\" or \"edge\"");
  }

  Status Header(Fields& fields) {
    ASSIGN_OR_RETURN(const std::string format, fields.Text("format"));
    if (format != kFormatName) {
      return fields.Error("format", "expected \"" + std::string(kFormatName) + "\"");
    }
    ASSIGN_OR_RETURN(const std::int64_t version, fields.Int("version"));
    if (version != kFormatVersion) {
      return fields.Error("version", "this engram reads version " +
                                         std::to_string(kFormatVersion) + ", not " +
                                         std::to_string(version));
    }
    ASSIGN_OR_RETURN(archive_.scope, fields.Text("scope"));
    RETURN_IF_ERROR(CanonicalPath(fields, "scope", archive_.scope));
    ASSIGN_OR_RETURN(archive_.root, fields.Hash("root"));
    ASSIGN_OR_RETURN(declared_scopes_, fields.Int("scopes"));
    ASSIGN_OR_RETURN(archive_.nodes, fields.Int("nodes"));
    ASSIGN_OR_RETURN(archive_.edges, fields.Int("edges"));
    ASSIGN_OR_RETURN(archive_.vectors, fields.Int("vectors"));
    const json* embedder = fields.Find("embedder");
    if (embedder == nullptr) return fields.Error("embedder", "missing");
    if (!embedder->is_null()) {
      Fields inner(*embedder, Where(1) + "field \"embedder\": ");
      if (!embedder->is_object()) return fields.Error("embedder", "expected an object or null");
      store::EmbedderRecord record;
      ASSIGN_OR_RETURN(record.model_id, inner.Text("model_id"));
      ASSIGN_OR_RETURN(const std::int64_t dimension, inner.Int("dimension"));
      if (dimension < 0 || dimension > 65536) return inner.Error("dimension", "out of range");
      record.dimension = static_cast<std::size_t>(dimension);
      RETURN_IF_ERROR(inner.NoOthers());
      archive_.embedder = record;
    }
    return fields.NoOthers();
  }

  static Status CanonicalPath(Fields& fields, std::string_view key, const std::string& path) {
    StatusOr<Scope> parsed = Scope::Parse(path);
    if (!parsed.ok()) return fields.Error(key, parsed.status().message());
    if (parsed->ToString() != path) return fields.Error(key, "scope path is not in canonical form");
    return Status::Ok();
  }

  Status ScopeLine(Fields& fields, std::size_t line_number) {
    if (saw_records_) return fields.LineError("a scope line after node or edge lines");
    ArchivedScope scope;
    scope.line = line_number;
    ASSIGN_OR_RETURN(scope.path, fields.Text("path"));
    RETURN_IF_ERROR(CanonicalPath(fields, "path", scope.path));
    ASSIGN_OR_RETURN(scope.created_at, fields.Time("created_at"));
    ASSIGN_OR_RETURN(scope.last_sequence, fields.Int("last_sequence"));
    if (scope.last_sequence < 0) return fields.Error("last_sequence", "must not be negative");
    RETURN_IF_ERROR(fields.NoOthers());
    if (archive_.scopes.empty()) {
      if (scope.path != archive_.scope) {
        return fields.Error("path", "the first scope must be the exported scope " + archive_.scope);
      }
    } else {
      if (scope.path <= archive_.scopes.back().path) {
        return fields.Error("path", "scopes must come in path order, each once");
      }
      if (!index_.contains(ParentPath(scope.path))) {
        return fields.Error("path", "not nested in a scope listed before it");
      }
    }
    index_[scope.path] = archive_.scopes.size();
    archive_.scopes.push_back(std::move(scope));
    return Status::Ok();
  }

  StatusOr<ArchivedScope*> ScopeOf(Fields& fields) {
    ASSIGN_OR_RETURN(const std::string path, fields.Text("scope"));
    const auto found = index_.find(path);
    if (found == index_.end()) return fields.Error("scope", "not a scope listed in the file");
    return &archive_.scopes[found->second];
  }

  Status NodeLine(Fields& fields, std::size_t line_number) {
    if (saw_edges_) return fields.LineError("a node line after edge lines");
    saw_records_ = true;
    ASSIGN_OR_RETURN(ArchivedScope* const scope, ScopeOf(fields));
    ArchivedNode node;
    node.line = line_number;
    store::NodeRecord& r = node.record;
    ASSIGN_OR_RETURN(r.id, fields.Id("id"));
    ASSIGN_OR_RETURN(const std::string kind, fields.Text("kind"));
    StatusOr<NodeKind> parsed_kind = ParseNodeKind(kind);
    if (!parsed_kind.ok()) return fields.Error("kind", parsed_kind.status().message());
    r.kind = *parsed_kind;
    ASSIGN_OR_RETURN(r.content_json, fields.Text("content"));
    ASSIGN_OR_RETURN(r.text, fields.Text("text"));
    ASSIGN_OR_RETURN(const std::string role, fields.Text("role"));
    StatusOr<Role> parsed_role = ParseRole(role);
    if (!parsed_role.ok()) return fields.Error("role", parsed_role.status().message());
    r.role = *parsed_role;
    ASSIGN_OR_RETURN(r.speaker, fields.Text("speaker"));
    ASSIGN_OR_RETURN(r.session_id, fields.Text("session_id"));
    ASSIGN_OR_RETURN(r.sequence, fields.Int("sequence"));
    ASSIGN_OR_RETURN(r.event_time, fields.OptionalTime("event_time"));
    ASSIGN_OR_RETURN(r.metadata_json, fields.Text("metadata"));
    ASSIGN_OR_RETURN(r.idempotency_key, fields.Text("idempotency_key"));
    ASSIGN_OR_RETURN(const std::string status, fields.Text("status"));
    StatusOr<NodeStatus> parsed_status = ParseNodeStatus(status);
    if (!parsed_status.ok()) return fields.Error("status", parsed_status.status().message());
    r.status = *parsed_status;
    ASSIGN_OR_RETURN(r.valid_from, fields.OptionalTime("valid_from"));
    ASSIGN_OR_RETURN(r.valid_to, fields.OptionalTime("valid_to"));
    ASSIGN_OR_RETURN(r.ingested_at, fields.Time("ingested_at"));
    ASSIGN_OR_RETURN(r.updated_at, fields.Time("updated_at"));
    ASSIGN_OR_RETURN(node.leaf, fields.Hash("leaf"));
    if (const json* vector = fields.Find("vector"); vector != nullptr) {
      if (!vector->is_string()) return fields.Error("vector", "expected base64 text");
      std::vector<float> values;
      if (std::optional<std::string> bad = DecodeVector(vector->get<std::string>(), &values)) {
        return fields.Error("vector", *bad);
      }
      if (!archive_.embedder.has_value() || archive_.embedder->dimension != values.size()) {
        return fields.Error("vector", std::to_string(values.size()) +
                                          " values, but the header's embedder has " +
                                          (archive_.embedder.has_value()
                                               ? std::to_string(archive_.embedder->dimension)
                                               : std::string("none")));
      }
      node.vector = std::move(values);
      ++vectors_;
    }
    const json* analysis = fields.Find("analysis");
    const json* analysis_format = fields.Find("analysis_format");
    if ((analysis == nullptr) != (analysis_format == nullptr)) {
      return fields.Error(analysis == nullptr ? "analysis" : "analysis_format",
                          "missing (\"analysis\" and \"analysis_format\" come together)");
    }
    if (analysis != nullptr) {
      if (r.kind != NodeKind::kTurn) return fields.Error("analysis", "only a turn has one");
      ASSIGN_OR_RETURN(const std::string text, fields.Text("analysis"));
      if (!json::accept(text) || text.empty() || text.front() != '{') {
        return fields.Error("analysis", "expected a JSON object as text");
      }
      ASSIGN_OR_RETURN(const std::int64_t format, fields.Int("analysis_format"));
      if (format <= 0 || format > 1'000'000) {
        return fields.Error("analysis_format", "expected a format number of 1 or more");
      }
      node.analysis = store::TurnAnalysisRecord{.format = static_cast<int>(format), .bytes = text};
    }
    RETURN_IF_ERROR(fields.NoOthers());
    if (!ids_.insert(r.id).second) return fields.Error("id", "a second node with this id");
    const bool is_scope_node = r.kind == NodeKind::kScope;
    if (is_scope_node != scope->nodes.empty()) {
      return fields.LineError(is_scope_node ? "a second scope node in scope " + scope->path
                                            : "the first node of scope " + scope->path +
                                                  " must be its scope node");
    }
    if (is_scope_node && r.text != scope->path) {
      return fields.Error("text", "the scope node of " + scope->path + " names another path");
    }
    scope->nodes.push_back(std::move(node));
    ++nodes_;
    return Status::Ok();
  }

  Status EdgeLine(Fields& fields, std::size_t line_number) {
    saw_records_ = true;
    saw_edges_ = true;
    ASSIGN_OR_RETURN(ArchivedScope* const scope, ScopeOf(fields));
    ArchivedEdge edge;
    edge.line = line_number;
    store::EdgeRecord& r = edge.record;
    ASSIGN_OR_RETURN(r.id, fields.Id("id"));
    ASSIGN_OR_RETURN(r.type, fields.Text("edge_type"));
    if (r.type.empty()) return fields.Error("edge_type", "empty");
    ASSIGN_OR_RETURN(r.src, fields.Id("src"));
    ASSIGN_OR_RETURN(r.dst, fields.Id("dst"));
    ASSIGN_OR_RETURN(r.attrs_json, fields.Text("attrs"));
    ASSIGN_OR_RETURN(r.status, fields.Text("status"));
    if (!store::IsEdgeStatus(r.status)) return fields.Error("status", "not an edge status");
    ASSIGN_OR_RETURN(r.valid_from, fields.OptionalTime("valid_from"));
    ASSIGN_OR_RETURN(r.valid_to, fields.OptionalTime("valid_to"));
    ASSIGN_OR_RETURN(r.ingested_at, fields.Time("ingested_at"));
    ASSIGN_OR_RETURN(r.updated_at, fields.Time("updated_at"));
    ASSIGN_OR_RETURN(edge.leaf, fields.Hash("leaf"));
    RETURN_IF_ERROR(fields.NoOthers());
    if (!edge_ids_.insert(r.id).second) return fields.Error("id", "a second edge with this id");
    scope->edges.push_back(std::move(edge));
    ++edges_;
    return Status::Ok();
  }

  StatusOr<Archive> Finish() {
    const std::string where = std::string(source_) + ": ";
    const auto count_error = [&](std::string_view what, std::int64_t declared,
                                 std::int64_t found) {
      return Status::InvalidArgument(where + "the header declares " + std::to_string(declared) +
                                     " " + std::string(what) + " but the file holds " +
                                     std::to_string(found) + " (truncated or edited)");
    };
    if (declared_scopes_ != static_cast<std::int64_t>(archive_.scopes.size())) {
      return count_error("scopes", declared_scopes_,
                         static_cast<std::int64_t>(archive_.scopes.size()));
    }
    if (archive_.nodes != nodes_) return count_error("nodes", archive_.nodes, nodes_);
    if (archive_.edges != edges_) return count_error("edges", archive_.edges, edges_);
    if (archive_.vectors != vectors_) return count_error("vectors", archive_.vectors, vectors_);
    for (const ArchivedScope& scope : archive_.scopes) {
      if (scope.nodes.empty()) {
        return Status::InvalidArgument(Where(scope.line) + "scope " + scope.path +
                                       " has no scope node line");
      }
    }
    return std::move(archive_);
  }

  std::string_view source_;
  Archive archive_;
  std::map<std::string, std::size_t> index_;  // scope path -> index in archive_.scopes
  std::set<std::string> ids_;
  std::set<std::string> edge_ids_;
  std::int64_t declared_scopes_ = 0;
  std::int64_t nodes_ = 0;
  std::int64_t edges_ = 0;
  std::int64_t vectors_ = 0;
  bool saw_records_ = false;
  bool saw_edges_ = false;
};

}  // namespace

StatusOr<Archive> DecodeArchive(std::string_view text, std::string_view source) {
  return Decoder(source).Run(text);
}

std::string ArchiveRoot(const Archive& archive) {
  namespace merkle = store::merkle;
  std::map<std::string, merkle::Hash> roots;  // by path, filled children first
  std::map<std::string, std::vector<merkle::ChildRoot>> children;
  for (auto it = archive.scopes.rbegin(); it != archive.scopes.rend(); ++it) {
    merkle::LogFrontier nodes;
    for (const ArchivedNode& node : it->nodes) nodes.Append(merkle::NodeLeafHash(node.record));
    merkle::LogFrontier edges;
    for (const ArchivedEdge& edge : it->edges) edges.Append(merkle::EdgeLeafHash(edge.record));
    std::vector<merkle::ChildRoot>& mine = children[it->path];
    std::sort(mine.begin(), mine.end(),
              [](const merkle::ChildRoot& a, const merkle::ChildRoot& b) { return a.path < b.path; });
    const merkle::Hash root =
        merkle::ScopeRoot(nodes.Root(), nodes.size(), edges.Root(), edges.size(), mine);
    roots[it->path] = root;
    children[ParentPath(it->path)].push_back({it->path, root});
  }
  const auto top = roots.find(archive.scope);
  return top == roots.end() ? std::string() : merkle::ToHex(top->second);
}

}  // namespace engram::archive

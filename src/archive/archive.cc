// Export and import of a scope (see archive.h).
#include "archive/archive.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "archive/format.h"
#include "core/ids.h"
#include "core/json_depth.h"
#include "store/audit.h"
#include "store/merkle.h"
#include "store/turn_analysis.h"
#include "write/capture.h"

namespace engram::archive {
namespace {

using nlohmann::json;

// Content JSON that an import under another name parses to rewrite ids: as deep as the write path
// lets metadata nest, and more.
constexpr std::size_t kMaxContentDepth = 64;

StatusOr<Archive> ReadStore(store::Store& store, const store::ScopeRecord& top) {
  Archive archive;
  archive.scope = top.path;
  ASSIGN_OR_RETURN(archive.embedder, store.GetEmbedder());
  ASSIGN_OR_RETURN(std::vector<store::ScopeRecord> tree, store.ScopeTree(top.scope_id));
  std::sort(tree.begin(), tree.end(), [](const store::ScopeRecord& a, const store::ScopeRecord& b) {
    return a.path < b.path;
  });
  for (const store::ScopeRecord& scope : tree) {
    ArchivedScope archived;
    archived.path = scope.path;
    archived.created_at = scope.created_at;
    archived.last_sequence = scope.last_sequence;
    std::map<std::int64_t, std::size_t> by_row;
    RETURN_IF_ERROR(store.ScanNodes(scope.scope_id, std::nullopt, [&](const store::NodeRecord& node) {
      ArchivedNode entry;
      entry.record = node;
      entry.leaf = store::merkle::ToHex(store::merkle::NodeLeafHash(node));
      by_row[node.row] = archived.nodes.size();
      archived.nodes.push_back(std::move(entry));
      return true;
    }));
    std::vector<std::int64_t> turn_rows;
    for (const ArchivedNode& node : archived.nodes) {
      if (node.record.kind == NodeKind::kTurn) turn_rows.push_back(node.record.row);
    }
    ASSIGN_OR_RETURN(std::vector<store::TurnAnalysisRecord> analyses,
                     store.GetTurnAnalyses(turn_rows));
    for (store::TurnAnalysisRecord& analysis : analyses) {
      ArchivedNode& node = archived.nodes[by_row.at(analysis.turn_row)];
      // The archive carries the JSON form: a compact row goes out as the JSON it stands for.
      if (analysis.format == store::kTurnAnalysisCompactFormat) {
        ASSIGN_OR_RETURN(analysis.bytes, store::TurnAnalysisJson(analysis, node.record.text));
        analysis.format = store::kTurnAnalysisJsonFormat;
      }
      node.analysis = std::move(analysis);
    }
    RETURN_IF_ERROR(store.ScanVectors(
        scope.scope_id, [&](std::int64_t row, std::span<const float> values) {
          const auto found = by_row.find(row);
          if (found != by_row.end()) {
            archived.nodes[found->second].vector = std::vector<float>(values.begin(), values.end());
            ++archive.vectors;
          }
          return true;
        }));
    RETURN_IF_ERROR(store.ScanEdges(scope.scope_id, [&](const store::EdgeRecord& edge) {
      ArchivedEdge entry;
      entry.record = edge;
      entry.leaf = store::merkle::ToHex(store::merkle::EdgeLeafHash(edge));
      archived.edges.push_back(std::move(entry));
      return true;
    }));
    archive.nodes += static_cast<std::int64_t>(archived.nodes.size());
    archive.edges += static_cast<std::int64_t>(archived.edges.size());
    archive.scopes.push_back(std::move(archived));
  }
  archive.root = ArchiveRoot(archive);
  return archive;
}

std::string At(const std::string& source, std::size_t line) {
  return source + " line " + std::to_string(line) + ": ";
}

// Checks every record against its own hashes: node ids against their content, edge ids against
// their endpoints and time, each line's leaf against its record; then the root against the
// header's.
Status VerifyArchive(const Archive& archive, const std::string& source) {
  for (const ArchivedScope& scope : archive.scopes) {
    const std::string scope_node_id = core::ScopeNodeId(scope.path);
    for (const ArchivedNode& node : scope.nodes) {
      if (!store::NodeCreationTime(node.record, scope_node_id).has_value()) {
        return Status::Corruption(At(source, node.line) + "node " + node.record.id +
                                ": field \"id\" does not match the node's kind, content, scope "
                                "and time (the line was changed)");
      }
      if (store::merkle::ToHex(store::merkle::NodeLeafHash(node.record)) != node.leaf) {
        return Status::Corruption(At(source, node.line) + "node " + node.record.id +
                                ": field \"leaf\" does not match the line's fields (the line was "
                                "changed)");
      }
    }
    for (const ArchivedEdge& edge : scope.edges) {
      const store::EdgeRecord& r = edge.record;
      if (core::EdgeId(r.type, r.src, r.dst, r.ingested_at.micros) != r.id) {
        return Status::Corruption(At(source, edge.line) + "edge " + r.id +
                                ": field \"id\" does not match the edge's type, endpoints and "
                                "time (the line was changed)");
      }
      if (store::merkle::ToHex(store::merkle::EdgeLeafHash(r)) != edge.leaf) {
        return Status::Corruption(At(source, edge.line) + "edge " + r.id +
                                ": field \"leaf\" does not match the line's fields (the line was "
                                "changed)");
      }
    }
  }
  const std::string root = ArchiveRoot(archive);
  if (root != archive.root) {
    return Status::Corruption(source + ": the records recompute to root " + root +
                            " but the header names " + archive.root +
                            " (lines were added, removed, reordered or changed)");
  }
  return Status::Ok();
}

// Import under another name (archive.h): new paths, and new ids for every node and edge, the old
// ids inside contents, metadata and attributes replaced by the new ones.
class Renamer {
 public:
  Renamer(std::string from, std::string to, std::string source)
      : from_(std::move(from)), to_(std::move(to)), source_(std::move(source)) {}

  Status Run(Archive& archive) {
    for (const ArchivedScope& scope : archive.scopes) {
      for (const ArchivedNode& node : scope.nodes) all_ids_.insert(node.record.id);
    }
    for (ArchivedScope& scope : archive.scopes) {
      const std::string old_scope_node = core::ScopeNodeId(scope.path);
      scope.path = to_ + scope.path.substr(from_.size());
      StatusOr<Scope> parsed = Scope::Parse(scope.path);
      if (!parsed.ok()) {
        return Status::InvalidArgument("import under " + to_ + ": nested scope " + scope.path +
                                       ": " + parsed.status().message());
      }
      const std::string new_scope_node = core::ScopeNodeId(scope.path);
      for (ArchivedNode& node : scope.nodes) {
        RETURN_IF_ERROR(RenameNode(node, scope.path, old_scope_node, new_scope_node));
      }
    }
    for (ArchivedScope& scope : archive.scopes) {
      for (ArchivedEdge& edge : scope.edges) RETURN_IF_ERROR(RenameEdge(edge));
    }
    archive.scope = to_;
    archive.root = ArchiveRoot(archive);
    return Status::Ok();
  }

 private:
  Status RenameNode(ArchivedNode& node, const std::string& path, const std::string& old_scope_node,
                    const std::string& new_scope_node) {
    store::NodeRecord& r = node.record;
    const std::string old_id = r.id;
    if (r.kind == NodeKind::kScope) {
      r.id = new_scope_node;
      r.content_json = json{{"path", path}}.dump();
      r.text = path;
    } else {
      const std::optional<std::int64_t> created = store::NodeCreationTime(r, old_scope_node);
      if (!created.has_value()) {
        return Status::Corruption(At(source_, node.line) + "node " + old_id +
                                ": its id does not match its content");
      }
      const bool metadata_is_content = r.metadata_json == r.content_json;
      ASSIGN_OR_RETURN(r.content_json, Rewrite(r.content_json, node.line, "content"));
      if (metadata_is_content) {
        r.metadata_json = r.content_json;
      } else {
        ASSIGN_OR_RETURN(r.metadata_json, Rewrite(r.metadata_json, node.line, "metadata"));
      }
      r.id = core::NodeId(NodeKindName(r.kind), r.content_json, new_scope_node, *created);
    }
    node.leaf = store::merkle::ToHex(store::merkle::NodeLeafHash(r));
    if (!renamed_.emplace(old_id, r.id).second) {
      return Status::InvalidArgument(At(source_, node.line) + "node " + old_id + " appears twice");
    }
    return Status::Ok();
  }

  Status RenameEdge(ArchivedEdge& edge) {
    store::EdgeRecord& r = edge.record;
    for (std::string* endpoint : {&r.src, &r.dst}) {
      const auto found = renamed_.find(*endpoint);
      if (found == renamed_.end()) {
        return Status::InvalidArgument(
            At(source_, edge.line) + "edge " + r.id + " links node " + *endpoint +
            ", which is not in the file: it cannot be imported under another name");
      }
      *endpoint = found->second;
    }
    ASSIGN_OR_RETURN(r.attrs_json, Rewrite(r.attrs_json, edge.line, "attrs"));
    r.id = core::EdgeId(r.type, r.src, r.dst, r.ingested_at.micros);
    edge.leaf = store::merkle::ToHex(store::merkle::EdgeLeafHash(r));
    return Status::Ok();
  }

  // `text` with every string equal to an already renamed node id replaced by the new id. Left
  // byte for byte as it is when it holds no such id.
  StatusOr<std::string> Rewrite(const std::string& text, std::size_t line, std::string_view field) {
    bool mentions = false;
    for (std::size_t at = text.find('"'); at != std::string::npos && !mentions;
         at = text.find('"', at + 1)) {
      mentions = all_ids_.contains(text.substr(at + 1, core::kIdHexDigits));
    }
    if (!mentions) return text;
    if (core::JsonNestingDepth(text, kMaxContentDepth) > kMaxContentDepth) {
      return Status::InvalidArgument(At(source_, line) + "field \"" + std::string(field) +
                                     "\": nests too deep");
    }
    json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded()) {
      return Status::InvalidArgument(At(source_, line) + "field \"" + std::string(field) +
                                     "\": not valid JSON");
    }
    Status status = Status::Ok();
    const auto visit = [&](auto&& self, json& value) -> void {
      if (value.is_string()) {
        const std::string& s = value.get_ref<const std::string&>();
        if (!all_ids_.contains(s)) return;
        const auto found = renamed_.find(s);
        if (found == renamed_.end()) {
          status = Status::InvalidArgument(
              At(source_, line) + "field \"" + std::string(field) + "\" refers to node " + s +
              ", which comes later in the file: it cannot be imported under another name");
          return;
        }
        value = found->second;
      } else if (value.is_structured()) {
        for (json& child : value) self(self, child);
      }
    };
    visit(visit, parsed);
    RETURN_IF_ERROR(status);
    return parsed.dump(-1, ' ', false, json::error_handler_t::replace);
  }

  std::string from_;
  std::string to_;
  std::string source_;
  std::set<std::string> all_ids_;
  std::map<std::string, std::string> renamed_;
};

Status Write(store::Transaction& txn, const write::EdgeRegistry& registry, const Archive& archive,
             const ImportRequest& request, const std::string& source) {
  const auto describe = [](const store::EmbedderRecord& embedder) {
    return embedder.model_id + " (" + std::to_string(embedder.dimension) + " dimensions)";
  };
  if (archive.embedder.has_value() && *archive.embedder != request.embedder) {
    return Status::FailedPrecondition(source + ": the file was exported with the embedder " +
                                      describe(*archive.embedder) + " but this engine uses " +
                                      describe(request.embedder) +
                                      "; import with the same [embedder] configuration");
  }
  ASSIGN_OR_RETURN(const std::optional<store::EmbedderRecord> current, txn.GetEmbedder());
  if (!current.has_value()) {
    RETURN_IF_ERROR(txn.SetEmbedder(request.embedder, archive.scopes.front().created_at));
  } else if (*current != request.embedder) {
    return Status::FailedPrecondition("this store holds vectors of " + describe(*current) +
                                      ", not of " + describe(request.embedder) +
                                      " (run engram reembed first)");
  }
  const ArchivedScope& top = archive.scopes.front();
  ASSIGN_OR_RETURN(const std::optional<store::ScopeRecord> existing, txn.FindScope(top.path));
  if (existing.has_value()) {
    return Status::AlreadyExists("scope " + top.path +
                                 " already exists in this store; import under another name with "
                                 "--scope, or erase it first");
  }
  ASSIGN_OR_RETURN(const Scope top_scope, Scope::Parse(top.path));
  std::map<std::string, store::ScopeRecord> records;
  ASSIGN_OR_RETURN(records[top.path], write::EnsureScope(txn, registry, top_scope, top.created_at));
  for (std::size_t i = 1; i < archive.scopes.size(); ++i) {
    const ArchivedScope& scope = archive.scopes[i];
    const store::ScopeRecord& parent = records.at(ParentPath(scope.path));
    ASSIGN_OR_RETURN(records[scope.path],
                     txn.CreateScope(scope.path, core::ScopeNodeId(scope.path), parent.scope_id,
                                     scope.created_at));
  }
  for (const ArchivedScope& scope : archive.scopes) {
    const store::ScopeRecord& record = records.at(scope.path);
    RETURN_IF_ERROR(txn.AdvanceSequence(record.scope_id, scope.last_sequence));
    for (const ArchivedNode& node : scope.nodes) {
      if (node.record.kind == NodeKind::kScope) continue;  // CreateScope wrote it
      store::NodeRecord r = node.record;
      r.scope_id = record.scope_id;
      const StatusOr<std::int64_t> inserted = txn.InsertNode(r);
      if (!inserted.ok()) {
        return inserted.status().WithContext(At(source, node.line) + "node " + r.id);
      }
      if (node.analysis.has_value()) {
        store::TurnAnalysisRecord analysis = *node.analysis;
        analysis.turn_row = *inserted;
        if (analysis.format == store::kTurnAnalysisJsonFormat) {
          analysis = store::TurnAnalysisRow(*inserted, std::move(analysis.bytes), r.text);
        }
        const Status put = txn.PutTurnAnalysis(analysis);
        if (!put.ok()) return put.WithContext(At(source, node.line) + "field \"analysis\"");
      }
      if (node.vector.has_value()) {
        const Status put = txn.PutVector(r.id, request.embedder.model_id, *node.vector);
        if (!put.ok()) return put.WithContext(At(source, node.line) + "field \"vector\"");
      }
    }
  }
  for (const ArchivedScope& scope : archive.scopes) {
    const store::ScopeRecord& record = records.at(scope.path);
    for (const ArchivedEdge& edge : scope.edges) {
      store::EdgeRecord r = edge.record;
      r.scope_id = record.scope_id;
      const Status restored = registry.Restore(txn, r).status();
      if (!restored.ok()) return restored.WithContext(At(source, edge.line) + "edge " + r.id);
    }
  }
  return Status::Ok();
}

}  // namespace

StatusOr<ExportSummary> ExportScope(store::Store& store, const store::ScopeRecord& scope,
                                    std::string* out) {
  ASSIGN_OR_RETURN(const std::int64_t before, store.LastJournalSeq());
  ASSIGN_OR_RETURN(const Archive archive, ReadStore(store, scope));
  ASSIGN_OR_RETURN(const store::MerkleState stored, store.GetMerkleState(scope.scope_id));
  ASSIGN_OR_RETURN(const std::int64_t after, store.LastJournalSeq());
  if (after != before) {
    return Status::Unavailable("export " + scope.path +
                           ": the store changed while it was read; run the export again");
  }
  if (archive.root != stored.root) {
    return Status::Corruption("export " + scope.path + ": the stored records recompute to root " +
                            archive.root + " but the store's root is " + stored.root +
                            "; run engram audit --scope " + scope.path);
  }
  *out = EncodeArchive(archive);
  return ExportSummary{.scope = scope.path,
                       .root = archive.root,
                       .scopes = static_cast<std::int64_t>(archive.scopes.size()),
                       .nodes = archive.nodes,
                       .edges = archive.edges,
                       .vectors = archive.vectors};
}

StatusOr<ImportSummary> ImportScope(store::Store& store, const write::EdgeRegistry& registry,
                                    const ImportRequest& request) {
  const std::string source = request.source_name.empty() ? "import" : request.source_name;
  ASSIGN_OR_RETURN(Archive archive, DecodeArchive(request.text, source));
  RETURN_IF_ERROR(VerifyArchive(archive, source));
  ImportSummary summary;
  summary.source_scope = archive.scope;
  summary.file_root = archive.root;
  if (request.scope.has_value() && request.scope->ToString() != archive.scope) {
    RETURN_IF_ERROR(Renamer(archive.scope, request.scope->ToString(), source).Run(archive));
    summary.renamed = true;
  }
  summary.scope = archive.scope;
  summary.scopes = static_cast<std::int64_t>(archive.scopes.size());
  summary.nodes = archive.nodes;
  summary.edges = archive.edges;
  summary.vectors = archive.vectors;

  ASSIGN_OR_RETURN(std::unique_ptr<store::Transaction> txn, store.BeginWrite());
  RETURN_IF_ERROR(Write(*txn, registry, archive, request, source));
  ASSIGN_OR_RETURN(const std::optional<store::ScopeRecord> top, txn->FindScope(archive.scope));
  if (!top.has_value()) return Status::Internal("import: the imported scope vanished");
  ASSIGN_OR_RETURN(const store::MerkleState state, txn->GetMerkleState(top->scope_id));
  if (state.root != archive.root) {
    return Status::Corruption(source + ": the imported records give root " + state.root +
                            " instead of " + archive.root + "; nothing was imported");
  }
  RETURN_IF_ERROR(txn->Commit());
  summary.root = state.root;
  return summary;
}

}  // namespace engram::archive

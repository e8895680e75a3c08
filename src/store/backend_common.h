// What every store backend does the same way: the checks of a write's arguments (so SQLite and
// PostgreSQL refuse the same calls with the same messages), the byte layout of a stored vector,
// the embedder record kept in `meta`, and the quoting of the canonical dump.
//
//   RETURN_IF_ERROR(CheckEmbedderRecord(embedder));            // in Transaction::SetEmbedder
//   const std::string bytes = EncodeVector(values);             // the blob / bytea column
#ifndef ENGRAM_STORE_BACKEND_COMMON_H_
#define ENGRAM_STORE_BACKEND_COMMON_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "store/store.h"

namespace engram::store {

// Transaction::SetEmbedder's argument check: kInvalidArgument for an empty model id, or a
// dimension of 0 with a model other than "none" (or not 0 with "none").
Status CheckEmbedderRecord(const EmbedderRecord& embedder);

// Transaction::PutVector's checks against the recorded embedder: kFailedPrecondition when none is
// recorded (or "none"), or the model id or length differ; kInvalidArgument for a non-finite value.
Status CheckVector(const std::optional<EmbedderRecord>& recorded, std::string_view model_id,
                   std::span<const float> values);

// Transaction::PutTurnAnalysis's argument checks (kInvalidArgument): a format > 0 and bytes of
// that format (store/turn_analysis.h CheckTurnAnalysisBytes).
Status CheckTurnAnalysis(const TurnAnalysisRecord& record);

// Transaction::PutProjectionSnapshot's argument checks (kInvalidArgument): a projection name of
// 1 to 64 bytes, a key of at most 1024 bytes, no negative count or journal seq.
Status CheckProjectionSnapshot(const ProjectionSnapshot& snapshot);

// The meta keys the engine may read and write (Transaction::GetMeta / SetMeta, Store::ListMeta):
// kInvalidArgument unless `key` starts with "engine." and is at most 256 bytes.
Status CheckEngineMetaKey(std::string_view key);

// Transaction::InsertEdge's and UpdateEdgeState's argument checks (kInvalidArgument).
Status CheckNewEdge(const EdgeRecord& record);
Status CheckEdgeStatus(std::string_view status);

// The recorded embedder from the meta values `embedder_model_id` and `embedder_dimension`
// (unset when no model id is stored). kCorruption naming `where` for a bad dimension.
StatusOr<std::optional<EmbedderRecord>> EmbedderFromMeta(const std::optional<std::string>& model_id,
                                                         const std::optional<std::string>& dimension,
                                                         std::string_view where);

// A stored vector, little-endian whatever the machine: `dimension` IEEE-754 float32 values;
// with kFloat16 IEEE-754 half floats (each rounded to nearest, ties to even); with kInt8 the
// scale (the largest magnitude, float32), one signed code a value (round to nearest of
// code × scale / 127, ties away from zero) and, for an even dimension, one zero byte so the
// length is odd (4 + dimension, or 5 + dimension): never the length of the other two forms.
std::string EncodeVector(std::span<const float> values,
                         VectorPrecision precision = VectorPrecision::kFloat32);
// The inverse, telling the three forms apart by the length; kCorruption naming `backend` and the
// node row for any other length.
Status DecodeVector(std::string_view bytes, std::int64_t dimension, std::int64_t row,
                    std::string_view backend, std::vector<float>* out);

// A node's content_json as stored (schema 6). A turn's content repeats its columns (role,
// speaker, text, session, event time, sequence, metadata), so when TurnContentFromColumns
// rebuilds it byte for byte it is stored as "" and rebuilt on read: the text is stored once. Any
// other content is stored as it is, behind one space when it is empty or starts with a space, so
// the stored value always says which it is.
//
//   stmt.BindText(4, StoredContentJson(record));                      // on insert
//   RETURN_IF_ERROR(RestoreContentJson(node, "sqlite"));              // after reading a row
std::string StoredContentJson(const NodeRecord& node);
// Sets node.content_json from the stored value in it (and the node's columns, when ""):
// kCorruption naming `backend` and the node when a stored "" cannot be rebuilt.
Status RestoreContentJson(NodeRecord& node, std::string_view backend);
// The content the write path gives a turn, rebuilt from the node's columns (unset for a node that
// is no turn, has no event time or holds metadata that is not a JSON object).
std::optional<std::string> TurnContentFromColumns(const NodeRecord& node);

// A text value of the canonical dump: in double quotes, with quotes, backslashes and control
// bytes escaped (\" \\ \n \t \r \xNN).
std::string QuoteDumpText(std::string_view text);
// Bytes as x'<lowercase hex>'.
std::string HexDumpBytes(std::string_view bytes);

}  // namespace engram::store

#endif  // ENGRAM_STORE_BACKEND_COMMON_H_

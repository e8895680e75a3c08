// Loading and validating engram's configuration (include/engram/config.h) from TOML.
//
// The schema is explicit: every section and key is listed here, and anything else in the file
// is an error naming the key, so a misspelt constant never silently keeps its default.
#define TOML_EXCEPTIONS 0
#include "engram/config.h"

#include <toml++/toml.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace engram {
namespace {

std::string Where(const toml::node& node, std::string_view source) {
  const toml::source_region& region = node.source();
  return std::string(source) + ":" + std::to_string(region.begin.line);
}

class TableReader {
 public:
  TableReader(const toml::table& table, std::string section, std::string_view source)
      : table_(table), section_(std::move(section)), source_(source) {}

  Status Double(std::string_view key, double* out) {
    seen_.emplace_back(key);
    const toml::node* node = table_.get(key);
    if (node == nullptr) return Status::Ok();
    if (auto value = node->value<double>()) {
      *out = *value;
      return Status::Ok();
    }
    return Status::InvalidArgument(Where(*node, source_) + ": " + Key(key) + " must be a number");
  }

  Status Size(std::string_view key, std::size_t* out) {
    seen_.emplace_back(key);
    const toml::node* node = table_.get(key);
    if (node == nullptr) return Status::Ok();
    auto value = node->value<std::int64_t>();
    if (!value || *value < 0) {
      return Status::InvalidArgument(Where(*node, source_) + ": " + Key(key) +
                                     " must be a non-negative integer");
    }
    *out = static_cast<std::size_t>(*value);
    return Status::Ok();
  }

  Status Bool(std::string_view key, bool* out) {
    seen_.emplace_back(key);
    const toml::node* node = table_.get(key);
    if (node == nullptr) return Status::Ok();
    // as_boolean, not value<bool>: toml++ converts an integer to bool ("enabled = 3").
    if (const toml::value<bool>* value = node->as_boolean()) {
      *out = value->get();
      return Status::Ok();
    }
    return Status::InvalidArgument(Where(*node, source_) + ": " + Key(key) +
                                   " must be true or false");
  }

  Status String(std::string_view key, std::string* out) {
    seen_.emplace_back(key);
    const toml::node* node = table_.get(key);
    if (node == nullptr) return Status::Ok();
    if (auto value = node->value<std::string>()) {
      *out = *value;
      return Status::Ok();
    }
    return Status::InvalidArgument(Where(*node, source_) + ": " + Key(key) + " must be a string");
  }

  Status WeightMap(std::string_view key, std::map<std::string, double>* out) {
    seen_.emplace_back(key);
    const toml::node* node = table_.get(key);
    if (node == nullptr) return Status::Ok();
    const toml::table* weights = node->as_table();
    if (weights == nullptr) {
      return Status::InvalidArgument(Where(*node, source_) + ": " + Key(key) +
                                     " must be a table of route = weight");
    }
    for (const auto& [route, weight_node] : *weights) {
      auto weight = weight_node.value<double>();
      if (!weight) {
        return Status::InvalidArgument(Where(weight_node, source_) + ": " + Key(key) + "." +
                                       std::string(route.str()) + " must be a number");
      }
      (*out)[std::string(route.str())] = *weight;
    }
    return Status::Ok();
  }

  // Every other key of the section must be a table named in `allowed`, holding numbers; they
  // are merged into (*out)[name] (planner rule tables).
  Status NumberTables(std::span<const std::string_view> allowed,
                      std::map<std::string, std::map<std::string, double>>* out) {
    for (const auto& [key, node] : table_) {
      bool seen = false;
      for (const std::string& name : seen_) seen = seen || name == key.str();
      if (seen) continue;
      bool known = false;
      for (const std::string_view name : allowed) known = known || name == key.str();
      const toml::table* values = node.as_table();
      if (!known || values == nullptr) {
        std::string names;
        for (const std::string_view name : allowed) names += (names.empty() ? "" : ", ") + std::string(name);
        return Status::InvalidArgument(Where(node, source_) + ": unknown key " +
                                       Key(key.str()) + " (a table per shape: " + names + ")");
      }
      seen_.emplace_back(key.str());
      for (const auto& [entry, value_node] : *values) {
        auto value = value_node.value<double>();
        if (!value) {
          return Status::InvalidArgument(Where(value_node, source_) + ": " + Key(key.str()) +
                                         "." + std::string(entry.str()) + " must be a number");
        }
        (*out)[std::string(key.str())][std::string(entry.str())] = *value;
      }
    }
    return Status::Ok();
  }

  // Call after reading every known key.
  Status NoUnknownKeys() const {
    for (const auto& [key, node] : table_) {
      bool known = false;
      for (const std::string& seen : seen_) known = known || seen == key.str();
      if (!known) {
        return Status::InvalidArgument(Where(node, source_) + ": unknown key " +
                                       Key(key.str()) + " (see docs/CONFIG.md)");
      }
    }
    return Status::Ok();
  }

 private:
  std::string Key(std::string_view key) const { return "[" + section_ + "] " + std::string(key); }

  const toml::table& table_;
  std::string section_;
  std::string_view source_;
  std::vector<std::string> seen_;
};

Status Section(const toml::table& root, std::string_view name, std::string_view source,
               const std::function<Status(TableReader&)>& read) {
  const toml::node* node = root.get(name);
  if (node == nullptr) return Status::Ok();
  const toml::table* table = node->as_table();
  if (table == nullptr) {
    return Status::InvalidArgument(Where(*node, source) + ": [" + std::string(name) +
                                   "] must be a table");
  }
  TableReader reader(*table, std::string(name), source);
  RETURN_IF_ERROR(read(reader));
  return reader.NoUnknownKeys();
}

// toml++ 3.3 reaches __builtin_unreachable (undefined behaviour) when it asks whether one of the
// characters U+00A1..U+0499, U+2C5E..U+3057 (but U+3000) or U+FB26..U+FEFE is white space, which
// it does wherever it records text (keys, table headers, values): found by fuzzing ParseConfig.
// Such characters are refused before parsing; inside a string a \u escape still writes them.
Status RefuseCharactersTomlMishandles(std::string_view text, std::string_view source_name) {
  std::size_t line = 1;
  for (std::size_t byte_idx = 0; byte_idx < text.size(); ++byte_idx) {
    const auto lead = static_cast<unsigned char>(text[byte_idx]);
    if (lead == '\n') ++line;
    char32_t code_point = 0;
    if (lead >= 0xC2 && lead <= 0xDF && byte_idx + 1 < text.size()) {
      code_point =
          (char32_t{lead} & 0x1F) << 6 | (static_cast<unsigned char>(text[byte_idx + 1]) & 0x3F);
    } else if (lead >= 0xE0 && lead <= 0xEF && byte_idx + 2 < text.size()) {
      code_point = (char32_t{lead} & 0x0F) << 12 |
                   (char32_t{static_cast<unsigned char>(text[byte_idx + 1])} & 0x3F) << 6 |
                   (static_cast<unsigned char>(text[byte_idx + 2]) & 0x3F);
    }
    const bool mishandled =
        (code_point >= 0xA1 && code_point <= 0x499) ||
        (code_point >= 0x2C5E && code_point <= 0x3057 && code_point != 0x3000) ||
        (code_point >= 0xFB26 && code_point <= 0xFEFE);
    if (mishandled) {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "%04X", static_cast<unsigned>(code_point));
      return Status::InvalidArgument(std::string(source_name) + ":" + std::to_string(line) +
                                     ": character U+" + hex +
                                     " is not supported in a config file (inside a string, write "
                                     "it as \\u" +
                                     hex + ")");
    }
  }
  return Status::Ok();
}

}  // namespace

Status Config::Validate() const {
  if (!(bm25.k1 >= 0 && bm25.k1 <= 10)) {
    return Status::InvalidArgument("[bm25] k1 must be in [0, 10]");
  }
  if (!(bm25.b >= 0 && bm25.b <= 1)) return Status::InvalidArgument("[bm25] b must be in [0, 1]");
  if (!(recall.rrf_k > 0 && std::isfinite(recall.rrf_k))) {
    return Status::InvalidArgument("[recall] rrf_k must be positive");
  }
  // Keys that size loops of every recall: bounded so that no value makes a recall run for
  // minutes ([key, min, max]).
  const struct {
    std::string_view key;
    std::size_t value, min, max;
  } kSizeBounds[] = {
      {"[recall] token_budget", recall.token_budget, 1, 1'000'000},
      {"[recall] max_items", recall.max_items, 1, 10'000},
      {"[recall] route_candidates", recall.route_candidates, 1, 10'000},
      {"[recall] fragment_window", recall.fragment_window, 1, 100},
      {"[recall] session_turns", recall.session_turns, 0, 100'000},
      {"[recall] neighbour_seeds", recall.neighbour_seeds, 0, 1'000},
      {"[recall] neighbour_radius", recall.neighbour_radius, 0, 100},
      {"[vector] exact_threshold", vector.exact_threshold, 0, 100'000'000},
      {"[vector] hnsw_construction_expansion", vector.hnsw_construction_expansion, 1, 10'000},
      {"[vector] hnsw_search_expansion", vector.hnsw_search_expansion, 1, 10'000},
  };
  for (const auto& bound : kSizeBounds) {
    if (bound.value < bound.min || bound.value > bound.max) {
      return Status::InvalidArgument(std::string(bound.key) + " is " + std::to_string(bound.value) +
                                     "; it must be in [" + std::to_string(bound.min) + ", " +
                                     std::to_string(bound.max) + "]");
    }
  }
  for (const auto& [route, weight] : recall.route_weights) {
    if (!(weight >= 0 && std::isfinite(weight))) {
      return Status::InvalidArgument("[recall.route_weights] " + route +
                                     " must be a non-negative number");
    }
  }
  if (!(recall.fragment_own_weight >= 0 && recall.fragment_own_weight <= 10)) {
    return Status::InvalidArgument("[recall] fragment_own_weight must be in [0, 10]");
  }
  if (!(recall.fragment_soft_match == 0 ||
        (recall.fragment_soft_match >= 0.5 && recall.fragment_soft_match < 1))) {
    return Status::InvalidArgument("[recall] fragment_soft_match must be 0 (off) or in [0.5, 1)");
  }
  if (!(recall.keyword_synonym_weight >= 0 && recall.keyword_synonym_weight <= 1)) {
    return Status::InvalidArgument("[recall] keyword_synonym_weight must be in [0, 1]");
  }
  if (!(recall.question_penalty >= 0 && recall.question_penalty <= 1)) {
    return Status::InvalidArgument("[recall] question_penalty must be in [0, 1]");
  }
  if (!(recall.answer_type_boost >= 1 && recall.answer_type_boost <= 10)) {
    return Status::InvalidArgument("[recall] answer_type_boost must be in [1, 10]");
  }
  if (recall.answer_type_depth > 1000) {
    return Status::InvalidArgument("[recall] answer_type_depth must be at most 1000");
  }
  if (!(recall.bridge_weight >= 0 && recall.bridge_weight <= 10)) {
    return Status::InvalidArgument("[recall] bridge_weight must be in [0, 10]");
  }
  if (recall.bridge_seeds > 100 || recall.bridge_max_turns > 100000) {
    return Status::InvalidArgument(
        "[recall] bridge_seeds must be at most 100 and bridge_max_turns at most 100000");
  }
  if (!(recall.neighbour_answer_weight >= 0 && recall.neighbour_answer_weight <= 1)) {
    return Status::InvalidArgument("[recall] neighbour_answer_weight must be in [0, 1]");
  }
  for (const double value : {recall.neighbour_weight, recall.neighbour_decay}) {
    if (!(value >= 0 && value <= 1)) {
      return Status::InvalidArgument(
          "[recall] neighbour_weight and neighbour_decay must be in [0, 1]");
    }
  }
  if (!(recall.person_boost > 0 && recall.person_boost <= 10)) {
    return Status::InvalidArgument("[recall] person_boost must be in (0, 10]");
  }
  if (!(recall.first_person_boost > 0 && recall.first_person_boost <= 10)) {
    return Status::InvalidArgument("[recall] first_person_boost must be in (0, 10]");
  }
  if (recall.excerpt_bytes < 64 || recall.excerpt_bytes > 65536) {
    return Status::InvalidArgument("[recall] excerpt_bytes must be in [64, 65536]");
  }
  for (const auto& [shape, values] : planner.shapes) {
    for (const auto& [key, value] : values) {
      if (!(value >= 0 && std::isfinite(value)) || (key == "budget_scale" && value == 0)) {
        return Status::InvalidArgument("[planner." + shape + "] " + key +
                                       " must be a non-negative number (budget_scale positive)");
      }
    }
  }
  if (embedder.kind != "use-lite" && embedder.kind != "openai" && embedder.kind != "hashing" &&
      embedder.kind != "none") {
    return Status::InvalidArgument("[embedder] kind must be one of use-lite, openai, hashing, none (not \"" +
                                   embedder.kind + "\")");
  }
  if (!(write.min_entity_confidence >= 0 && write.min_entity_confidence <= 1)) {
    return Status::InvalidArgument("[write] min_entity_confidence must be in [0, 1]");
  }
  if (!(write.resolve_accept > 0 && write.resolve_accept <= 1)) {
    return Status::InvalidArgument("[write] resolve_accept must be in (0, 1]");
  }
  if (!(write.resolve_propose > 0 && write.resolve_propose <= write.resolve_accept)) {
    return Status::InvalidArgument("[write] resolve_propose must be in (0, resolve_accept]");
  }
  if (!(write.resolve_embed_propose >= 0 && write.resolve_embed_propose <= 1)) {
    return Status::InvalidArgument("[write] resolve_embed_propose must be in [0, 1]");
  }
  if (write.entity_cap == 0 || write.entity_cap > 1000) {
    return Status::InvalidArgument("[write] entity_cap must be in [1, 1000]");
  }
  if (write.reference_ttl_turns == 0 || write.reference_ttl_turns > 1000) {
    return Status::InvalidArgument("[write] reference_ttl_turns must be in [1, 1000]");
  }
  if (write.divergence_window == 0 || write.divergence_window > 1000) {
    return Status::InvalidArgument("[write] divergence_window must be in [1, 1000]");
  }
  if (write.max_signals_per_turn == 0 || write.max_signals_per_turn > 100000) {
    return Status::InvalidArgument("[write] max_signals_per_turn must be in [1, 100000]");
  }
  if (!(write.fact_min_support >= 0 && write.fact_min_support <= 1)) {
    return Status::InvalidArgument("[write] fact_min_support must be in [0, 1]");
  }
  if (write.foresight_days == 0 || write.foresight_days > 36500) {
    return Status::InvalidArgument("[write] foresight_days must be in [1, 36500]");
  }
  if (write.llm_facts && write.llm_model.empty()) {
    return Status::InvalidArgument("[write] llm_model is required when llm_facts = true");
  }
  if (write.llm_facts && write.llm_timeout_ms == 0) {
    return Status::InvalidArgument("[write] llm_timeout_ms must be positive");
  }
  if (embedder.kind == "use-lite" && (embedder.threads == 0 || embedder.threads > 64)) {
    return Status::InvalidArgument("[embedder] threads must be in [1, 64]");
  }
  if (embedder.kind == "openai") {
    if (embedder.model.empty()) {
      return Status::InvalidArgument("[embedder] model is required with kind = \"openai\"");
    }
    if (embedder.dimension == 0) {
      return Status::InvalidArgument("[embedder] dimension is required with kind = \"openai\"");
    }
    if (embedder.batch_size == 0) {
      return Status::InvalidArgument("[embedder] batch_size must be positive");
    }
    if (embedder.timeout_ms == 0) {
      return Status::InvalidArgument("[embedder] timeout_ms must be positive");
    }
  }
  if (embedder.kind == "hashing" &&
      (embedder.hashing_dimension == 0 || embedder.hashing_dimension > 65536)) {
    return Status::InvalidArgument("[embedder] hashing_dimension must be in [1, 65536]");
  }
  if (vector.hnsw_max_neighbors < 2 || vector.hnsw_max_neighbors > 256) {
    return Status::InvalidArgument("[vector] hnsw_max_neighbors must be in [2, 256]");
  }
  {
    const ConsolidateConfig& c = consolidate;
    if (c.episode_gap_minutes == 0 || c.episode_gap_minutes > 5256000) {
      return Status::InvalidArgument("[consolidate] episode_gap_minutes must be in [1, 5256000]");
    }
    if (c.episode_min_turns == 0 || c.episode_max_turns == 0 || c.topic_window == 0 ||
        c.topic_min_terms == 0 || c.narrative_sentences == 0 || c.scene_max_gap_days == 0 ||
        c.scene_keywords == 0 || c.scene_summary_sentences == 0) {
      return Status::InvalidArgument(
          "[consolidate] episode_min_turns, episode_max_turns, topic_window, topic_min_terms, "
          "narrative_sentences, scene_max_gap_days, scene_keywords and scene_summary_sentences "
          "must be at least 1");
    }
    if (!(c.topic_divergence >= 0 && c.topic_divergence <= 2)) {
      return Status::InvalidArgument("[consolidate] topic_divergence must be in [0, 2]");
    }
    if (!(c.topic_overlap >= 0 && c.topic_overlap <= 1)) {
      return Status::InvalidArgument("[consolidate] topic_overlap must be in [0, 1]");
    }
    if (!(c.scene_threshold >= -1 && c.scene_threshold <= 1)) {
      return Status::InvalidArgument("[consolidate] scene_threshold must be in [-1, 1]");
    }
  }
  if (limits.max_turn_bytes == 0 || limits.max_batch_turns == 0 || limits.max_query_bytes == 0) {
    return Status::InvalidArgument("[limits] values must be positive");
  }
  return Status::Ok();
}

StatusOr<Config> ParseConfig(std::string_view toml_text, std::string_view source_name) {
  RETURN_IF_ERROR(RefuseCharactersTomlMishandles(toml_text, source_name));
  toml::parse_result parsed = toml::parse(toml_text, source_name);
  if (!parsed) {
    const toml::parse_error& error = parsed.error();
    return Status::InvalidArgument(std::string(source_name) + ":" +
                                   std::to_string(error.source().begin.line) + ": " +
                                   std::string(error.description()));
  }
  const toml::table& root = parsed.table();
  Config config;
  for (const auto& [key, node] : root) {
    const std::string_view name = key.str();
    if (name != "bm25" && name != "recall" && name != "planner" && name != "embedder" && name != "vector" &&
        name != "write" && name != "consolidate" && name != "limits") {
      return Status::InvalidArgument(Where(node, source_name) + ": unknown section [" +
                                     std::string(name) + "] (see docs/CONFIG.md)");
    }
  }
  RETURN_IF_ERROR(Section(root, "bm25", source_name, [&](TableReader& reader) -> Status {
    RETURN_IF_ERROR(reader.Double("k1", &config.bm25.k1));
    RETURN_IF_ERROR(reader.Double("b", &config.bm25.b));
    return reader.Bool("stem", &config.bm25.stem);
  }));
  RETURN_IF_ERROR(Section(root, "recall", source_name, [&](TableReader& reader) -> Status {
    RETURN_IF_ERROR(reader.Size("token_budget", &config.recall.token_budget));
    RETURN_IF_ERROR(reader.Size("max_items", &config.recall.max_items));
    RETURN_IF_ERROR(reader.Double("rrf_k", &config.recall.rrf_k));
    RETURN_IF_ERROR(reader.Size("route_candidates", &config.recall.route_candidates));
    RETURN_IF_ERROR(reader.Size("fragment_window", &config.recall.fragment_window));
    RETURN_IF_ERROR(reader.Double("fragment_own_weight", &config.recall.fragment_own_weight));
    RETURN_IF_ERROR(reader.Double("fragment_soft_match", &config.recall.fragment_soft_match));
    RETURN_IF_ERROR(reader.Size("session_turns", &config.recall.session_turns));
    RETURN_IF_ERROR(
        reader.Double("keyword_synonym_weight", &config.recall.keyword_synonym_weight));
    RETURN_IF_ERROR(reader.Size("neighbour_seeds", &config.recall.neighbour_seeds));
    RETURN_IF_ERROR(reader.Size("neighbour_radius", &config.recall.neighbour_radius));
    RETURN_IF_ERROR(reader.Double("neighbour_weight", &config.recall.neighbour_weight));
    RETURN_IF_ERROR(reader.Double("neighbour_decay", &config.recall.neighbour_decay));
    RETURN_IF_ERROR(reader.Double("question_penalty", &config.recall.question_penalty));
    RETURN_IF_ERROR(reader.Double("answer_type_boost", &config.recall.answer_type_boost));
    RETURN_IF_ERROR(reader.Size("answer_type_depth", &config.recall.answer_type_depth));
    RETURN_IF_ERROR(reader.Bool("drop_frame_words", &config.recall.drop_frame_words));
    RETURN_IF_ERROR(reader.Bool("answer_type_tense", &config.recall.answer_type_tense));
    RETURN_IF_ERROR(reader.Double("bridge_weight", &config.recall.bridge_weight));
    RETURN_IF_ERROR(reader.Size("bridge_seeds", &config.recall.bridge_seeds));
    RETURN_IF_ERROR(reader.Size("bridge_max_turns", &config.recall.bridge_max_turns));
    RETURN_IF_ERROR(
        reader.Double("neighbour_answer_weight", &config.recall.neighbour_answer_weight));
    RETURN_IF_ERROR(reader.Double("person_boost", &config.recall.person_boost));
    RETURN_IF_ERROR(reader.Double("first_person_boost", &config.recall.first_person_boost));
    RETURN_IF_ERROR(reader.Size("excerpt_bytes", &config.recall.excerpt_bytes));
    return reader.WeightMap("route_weights", &config.recall.route_weights);
  }));
  RETURN_IF_ERROR(Section(root, "planner", source_name, [&](TableReader& reader) -> Status {
    RETURN_IF_ERROR(reader.Bool("enabled", &config.planner.enabled));
    static constexpr std::string_view kShapes[] = {
        "factoid",   "list",    "count",     "boolean", "when",
        "ordering",  "recommendation", "inference", "summary", "current_state"};
    return reader.NumberTables(kShapes, &config.planner.shapes);
  }));
  RETURN_IF_ERROR(Section(root, "embedder", source_name, [&](TableReader& reader) -> Status {
    EmbedderConfig& embedder = config.embedder;
    RETURN_IF_ERROR(reader.String("kind", &embedder.kind));
    RETURN_IF_ERROR(reader.Size("threads", &embedder.threads));
    RETURN_IF_ERROR(reader.Bool("verify_checksums", &embedder.verify_checksums));
    RETURN_IF_ERROR(reader.String("base_url", &embedder.base_url));
    RETURN_IF_ERROR(reader.String("model", &embedder.model));
    RETURN_IF_ERROR(reader.Size("dimension", &embedder.dimension));
    RETURN_IF_ERROR(reader.String("api_key_env", &embedder.api_key_env));
    RETURN_IF_ERROR(reader.Size("timeout_ms", &embedder.timeout_ms));
    RETURN_IF_ERROR(reader.Size("max_retries", &embedder.max_retries));
    RETURN_IF_ERROR(reader.Size("batch_size", &embedder.batch_size));
    return reader.Size("hashing_dimension", &embedder.hashing_dimension);
  }));
  RETURN_IF_ERROR(Section(root, "vector", source_name, [&](TableReader& reader) -> Status {
    RETURN_IF_ERROR(reader.Size("exact_threshold", &config.vector.exact_threshold));
    RETURN_IF_ERROR(reader.Size("hnsw_max_neighbors", &config.vector.hnsw_max_neighbors));
    RETURN_IF_ERROR(reader.Size("hnsw_construction_expansion",
                                &config.vector.hnsw_construction_expansion));
    return reader.Size("hnsw_search_expansion", &config.vector.hnsw_search_expansion);
  }));
  RETURN_IF_ERROR(Section(root, "write", source_name, [&](TableReader& reader) -> Status {
    RETURN_IF_ERROR(reader.Bool("signals", &config.write.signals));
    RETURN_IF_ERROR(reader.Bool("entities", &config.write.entities));
    RETURN_IF_ERROR(reader.Bool("references", &config.write.references));
    RETURN_IF_ERROR(reader.Double("min_entity_confidence", &config.write.min_entity_confidence));
    RETURN_IF_ERROR(reader.Double("resolve_accept", &config.write.resolve_accept));
    RETURN_IF_ERROR(reader.Double("resolve_propose", &config.write.resolve_propose));
    RETURN_IF_ERROR(reader.Double("resolve_embed_propose", &config.write.resolve_embed_propose));
    RETURN_IF_ERROR(reader.Size("entity_cap", &config.write.entity_cap));
    RETURN_IF_ERROR(reader.Size("reference_ttl_turns", &config.write.reference_ttl_turns));
    RETURN_IF_ERROR(reader.Size("divergence_window", &config.write.divergence_window));
    RETURN_IF_ERROR(reader.Size("max_signals_per_turn", &config.write.max_signals_per_turn));
    RETURN_IF_ERROR(reader.Bool("facts", &config.write.facts));
    RETURN_IF_ERROR(reader.Double("fact_min_support", &config.write.fact_min_support));
    RETURN_IF_ERROR(reader.Size("foresight_days", &config.write.foresight_days));
    RETURN_IF_ERROR(reader.Bool("llm_facts", &config.write.llm_facts));
    RETURN_IF_ERROR(reader.String("llm_base_url", &config.write.llm_base_url));
    RETURN_IF_ERROR(reader.String("llm_model", &config.write.llm_model));
    RETURN_IF_ERROR(reader.String("llm_api_key_env", &config.write.llm_api_key_env));
    return reader.Size("llm_timeout_ms", &config.write.llm_timeout_ms);
  }));
  RETURN_IF_ERROR(Section(root, "consolidate", source_name, [&](TableReader& reader) -> Status {
    ConsolidateConfig& consolidate = config.consolidate;
    RETURN_IF_ERROR(reader.Size("every_turns", &consolidate.every_turns));
    RETURN_IF_ERROR(reader.Size("episode_gap_minutes", &consolidate.episode_gap_minutes));
    RETURN_IF_ERROR(reader.Size("episode_min_turns", &consolidate.episode_min_turns));
    RETURN_IF_ERROR(reader.Size("episode_max_turns", &consolidate.episode_max_turns));
    RETURN_IF_ERROR(reader.Double("topic_divergence", &consolidate.topic_divergence));
    RETURN_IF_ERROR(reader.Double("topic_overlap", &consolidate.topic_overlap));
    RETURN_IF_ERROR(reader.Size("topic_window", &consolidate.topic_window));
    RETURN_IF_ERROR(reader.Size("topic_min_terms", &consolidate.topic_min_terms));
    RETURN_IF_ERROR(reader.Size("narrative_sentences", &consolidate.narrative_sentences));
    RETURN_IF_ERROR(reader.Double("scene_threshold", &consolidate.scene_threshold));
    RETURN_IF_ERROR(reader.Size("scene_max_gap_days", &consolidate.scene_max_gap_days));
    RETURN_IF_ERROR(reader.Size("scene_keywords", &consolidate.scene_keywords));
    return reader.Size("scene_summary_sentences", &consolidate.scene_summary_sentences);
  }));
  RETURN_IF_ERROR(Section(root, "limits", source_name, [&](TableReader& reader) -> Status {
    RETURN_IF_ERROR(reader.Size("max_turn_bytes", &config.limits.max_turn_bytes));
    RETURN_IF_ERROR(reader.Size("max_batch_turns", &config.limits.max_batch_turns));
    RETURN_IF_ERROR(reader.Size("max_query_bytes", &config.limits.max_query_bytes));
    return reader.Size("max_metadata_bytes", &config.limits.max_metadata_bytes);
  }));
  RETURN_IF_ERROR(config.Validate().WithContext(std::string(source_name)));
  return config;
}

StatusOr<Config> LoadConfigFile(std::string_view path) {
  std::error_code error;
  if (std::filesystem::is_directory(std::string(path), error)) {
    return Status::InvalidArgument("config file " + std::string(path) +
                                   " is a directory, not a TOML file");
  }
  std::ifstream in{std::string(path)};
  if (!in) return Status::NotFound("config file " + std::string(path) + " cannot be read");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return ParseConfig(buffer.str(), path);
}

}  // namespace engram

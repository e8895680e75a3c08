// Analysis stage (see analysis.h).
#include "write/analysis.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/ids.h"
#include "store/journal.h"
#include "store/turn_analysis.h"
#include "text/normalize.h"
#include "text/signals.h"
#include "text/temporal.h"
#include "write/analysis_content.h"
#include "write/entities.h"
#include "write/references.h"

namespace engram::write {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 10> kRoleSpeakers = {
    "user", "assistant", "system", "tool", "human", "ai", "bot", "agent", "me", "you"};

double Round4(double value) { return std::round(value * 10000.0) / 10000.0; }

bool IsTime(const text::Signal& signal) {
  return signal.kind == text::SignalKind::kDate || signal.kind == text::SignalKind::kTime;
}

// The speaker's normalised name when it names someone (not empty, not a role word), else "".
std::string SpeakerKey(std::string_view speaker) {
  std::string key = text::NormalizeForIndex(speaker);
  if (std::find(kRoleSpeakers.begin(), kRoleSpeakers.end(), key) != kRoleSpeakers.end()) {
    return "";
  }
  return key;
}

std::optional<text::EntityKind> EntityKindOf(text::SignalKind kind) {
  switch (kind) {
    case text::SignalKind::kPerson:
      return text::EntityKind::kPerson;
    case text::SignalKind::kPlace:
      return text::EntityKind::kPlace;
    case text::SignalKind::kOrganization:
      return text::EntityKind::kOrganization;
    default:
      return std::nullopt;
  }
}

StatusOr<text::EntityKind> ParseEntityKind(std::string_view name) {
  if (name == "person") return text::EntityKind::kPerson;
  if (name == "place") return text::EntityKind::kPlace;
  if (name == "organization") return text::EntityKind::kOrganization;
  return Status::Corruption("entity roster: unknown entity kind \"" + std::string(name) + "\"");
}

Gender GenderOf(const lexicon::Lexicons& lexicons, std::string_view key) {
  const std::uint32_t classes = lexicons.NameClasses(key.substr(0, key.find(' ')));
  const bool male = (classes & lexicon::kMaleFirstName) != 0;
  const bool female = (classes & lexicon::kFemaleFirstName) != 0;
  if (male && !female) return Gender::kMale;
  if (female && !male) return Gender::kFemale;
  return Gender::kUnknown;
}

// A signal's fields (text/signals.h): a time anchor's node content and metadata, and, reshaped by
// store::TurnAnalysisFromSignals, an entry of the turn's analysis row; see analysis.h.
json SignalContent(const store::NodeRecord& turn, const text::Signal& signal) {
  json content = {{"turn", turn.id},
                  {"kind", text::SignalKindName(signal.kind)},
                  {"surface", signal.surface},
                  {"begin", signal.begin},
                  {"end", signal.end}};
  if (!signal.value.empty()) content["value"] = signal.value;
  if (!signal.topic.empty()) content["topic"] = signal.topic;
  if (!signal.previous_value.empty()) content["previous_value"] = signal.previous_value;
  if (signal.polarity != text::Polarity::kNone) {
    content["polarity"] = text::PolarityName(signal.polarity);
  }
  if (signal.uncertain) content["uncertain"] = true;
  if (signal.confidence != 1.0f) {
    content["confidence"] = Round4(static_cast<double>(signal.confidence));
  }
  if (IsTime(signal)) {
    const std::size_t slash = signal.value.find('/');
    if (slash != std::string::npos) {
      content["from"] = signal.value.substr(0, slash);
      content["to"] = signal.value.substr(slash + 1);
      content["granularity"] = signal.topic;
    }
  }
  return content;
}

// A date or time whose interval was resolved: a node, the target of at_time edges (from its
// turn, from facts naming it) and of time references.
bool IsTimeAnchor(const json& content) {
  const std::string kind = content.value("kind", std::string());
  return (kind == "date" || kind == "time") && content.contains("from");
}

// The time a derived node of `turn` is stamped with: its event time, else when it was ingested
// (the batch's `now`, which InsertDerived used).
Timestamp TurnTime(const store::NodeRecord& turn) {
  return turn.event_time.value_or(turn.ingested_at);
}

// DMF eq. 7: 1 - cos(v, mean of `window`), 0 when v or the window has no vector.
double Divergence(const std::vector<float>* vector, const std::deque<std::vector<float>>& window) {
  if (vector == nullptr || vector->empty()) return 0.0;
  std::vector<double> centroid(vector->size(), 0.0);
  std::size_t count = 0;
  for (const std::vector<float>& past : window) {
    if (past.size() != vector->size()) continue;
    for (std::size_t dim = 0; dim < past.size(); ++dim) centroid[dim] += past[dim];
    ++count;
  }
  if (count == 0) return 0.0;
  double dot = 0.0, norm_v = 0.0, norm_c = 0.0;
  for (std::size_t dim = 0; dim < vector->size(); ++dim) {
    const double c = centroid[dim] / static_cast<double>(count);
    dot += (*vector)[dim] * c;
    norm_v += static_cast<double>((*vector)[dim]) * (*vector)[dim];
    norm_c += c * c;
  }
  if (norm_v <= 0.0 || norm_c <= 0.0) return 0.0;
  const double cosine = dot / (std::sqrt(norm_v) * std::sqrt(norm_c));
  return Round4(std::clamp(1.0 - cosine, 0.0, 2.0));
}

// The scope's entities, from the has_entity edges of its node.
Status LoadRoster(store::Transaction& txn, const store::ScopeRecord& scope, EntityRoster& roster) {
  ASSIGN_OR_RETURN(const std::vector<store::EdgeRecord> edges,
                   txn.EdgesOf(scope.node_id, store::EdgeDirection::kOutgoing, kHasEntity));
  for (const store::EdgeRecord& edge : edges) {
    if (edge.status != store::kEdgeActive) continue;
    const json attrs = json::parse(edge.attrs_json, nullptr, /*allow_exceptions=*/false);
    if (!attrs.is_object() || !attrs.contains("kind") || !attrs["kind"].is_string() ||
        !attrs.contains("key") || !attrs["key"].is_string()) {
      return Status::Corruption("entity roster edge " + edge.id + " has no kind and key");
    }
    ASSIGN_OR_RETURN(const text::EntityKind kind,
                     ParseEntityKind(attrs["kind"].get<std::string>()));
    RosterEntry entry;
    entry.id = edge.dst;
    entry.kind = kind;
    entry.key = attrs["key"].get<std::string>();
    entry.name = attrs.value("name", entry.key);
    roster.Add(std::move(entry));
  }
  return Status::Ok();
}

// Everything one derivation call shares.
class Analyzer {
 public:
  Analyzer(store::Transaction& txn, const EdgeRegistry& registry, const WriteConfig& config,
           const lexicon::Lexicons& lexicons, NameVectorCache* name_vectors,
           const DeriveContext& context)
      : txn_(txn),
        registry_(registry),
        config_(config),
        lexicons_(lexicons),
        name_vectors_(name_vectors),
        context_(context),
        focus_(FocusOptions{.ttl_turns = config.reference_ttl_turns,
                            .entity_limit = config.reference_person_stack,
                            .place_limit = config.reference_place_stack,
                            .time_limit = config.reference_time_stack}) {
    signal_options_.gazetteer = &lexicons.gazetteer();
    resolver_options_.accept = config.resolve_accept;
    resolver_options_.propose = config.resolve_propose;
    resolver_options_.embed_propose = config.resolve_embed_propose;
  }

  // Loads the scope's roster and rebuilds the state earlier turns left (focus stacks, the
  // divergence window) from the turns stored before `first`, so that batching changes nothing.
  Status Begin(const store::NodeRecord& first) {
    if (config_.entities) RETURN_IF_ERROR(LoadRoster(txn_, *context_.scope, roster_));
    if (config_.entities && config_.references) RETURN_IF_ERROR(ReplayFocus(first));
    if (config_.signals && !context_.turn_vectors.empty()) RETURN_IF_ERROR(LoadWindow(first));
    return Status::Ok();
  }

  // `vector`: the turn's embedding, or null; `shared`: its text analysis, or null (computed).
  Status AnalyseTurn(const store::NodeRecord& turn, const std::vector<float>* vector,
                     const TurnText* shared);

 private:
  // The turn's signals, the first max_signals_per_turn of them in text order: every signal goes
  // into the analysis row and every resolved date into a node, so the cap bounds a turn's
  // derivation cost and size.
  std::vector<text::Signal> DetectTurnSignals(std::string_view text, Timestamp event_time) const {
    return CapSignals(text::DetectSignals(text, event_time, signal_options_));
  }
  std::vector<text::Signal> CapSignals(std::vector<text::Signal> signals) const {
    if (signals.size() > config_.max_signals_per_turn) {
      signals.resize(config_.max_signals_per_turn);
    }
    return signals;
  }
  // A derived node of `turn` with the given content (also its metadata).
  StatusOr<std::string> InsertDerived(const store::NodeRecord& turn, NodeKind kind,
                                      std::string_view type, const json& content, std::string text,
                                      bool carry_speaker);
  Status Edge(std::string_view type, const std::string& src, const std::string& dst,
              const json& attrs, std::int64_t scope_id = 0);
  // The entity a mention means, creating it (and its proposal) when new.
  StatusOr<std::pair<std::string, Resolution>> ResolveEntity(const store::NodeRecord& turn,
                                                             text::EntityKind kind,
                                                             std::string_view name);
  // Tier 6 of the resolver: a proposal by name embedding when the string tiers found none.
  Status ProposeByEmbedding(text::EntityKind kind, const std::string& key, Resolution& resolution);
  // The last `count` turns stored before `first` (fewer at the start of the scope).
  StatusOr<std::vector<store::NodeRecord>> TurnsBefore(const store::NodeRecord& first,
                                                       std::size_t count);
  // Replays the focus stacks over the reference_ttl_turns turns before `first` (older items
  // have expired): their mentions as AnalyseTurn built them, from the stored mentions edges.
  Status ReplayFocus(const store::NodeRecord& first);
  // The embeddings of the divergence_window turns before `first`.
  Status LoadWindow(const store::NodeRecord& first);

  store::Transaction& txn_;
  const EdgeRegistry& registry_;
  const WriteConfig& config_;
  const lexicon::Lexicons& lexicons_;
  NameVectorCache* name_vectors_;  // may be null: no embedding tier
  const DeriveContext& context_;
  text::SignalOptions signal_options_;
  ResolverOptions resolver_options_;
  EntityRoster roster_;
  // Name vectors of the roster's first roster_vectors_.size() entries (filled on first need).
  std::vector<NameVector> roster_vectors_;
  FocusState focus_;
  // Embeddings of the last divergence_window turns (empty: a turn without one), oldest first.
  std::deque<std::vector<float>> window_;
};

StatusOr<std::vector<store::NodeRecord>> Analyzer::TurnsBefore(const store::NodeRecord& first,
                                                               std::size_t count) {
  const auto wanted = static_cast<std::int64_t>(count);
  if (first.sequence <= 1 || wanted == 0) return std::vector<store::NodeRecord>();
  store::NodeFilter filter;
  filter.kind = NodeKind::kTurn;
  filter.after_sequence = std::max<std::int64_t>(0, first.sequence - 1 - wanted);
  filter.limit = count;
  ASSIGN_OR_RETURN(std::vector<store::NodeRecord> turns,
                   txn_.ListNodes(context_.scope->scope_id, filter));
  std::erase_if(turns,
                [&](const store::NodeRecord& turn) { return turn.sequence >= first.sequence; });
  return turns;
}

Status Analyzer::ReplayFocus(const store::NodeRecord& first) {
  ASSIGN_OR_RETURN(const std::vector<store::NodeRecord> turns,
                   TurnsBefore(first, config_.reference_ttl_turns));
  for (const store::NodeRecord& turn : turns) {
    std::string speaker_id;
    if (const std::string key = SpeakerKey(turn.speaker); !key.empty()) {
      const Resolution resolution =
          roster_.Resolve(text::EntityKind::kPerson, key, resolver_options_);
      if (resolution.match >= 0) {
        speaker_id = roster_.at(static_cast<std::size_t>(resolution.match)).id;
      }
    }
    // The entity each mention span resolved to.
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::string> entity_at;
    ASSIGN_OR_RETURN(const std::vector<store::EdgeRecord> mentions,
                     txn_.EdgesOf(turn.id, store::EdgeDirection::kOutgoing, kMentions));
    for (const store::EdgeRecord& edge : mentions) {
      const json attrs = json::parse(edge.attrs_json, nullptr, /*allow_exceptions=*/false);
      if (!attrs.is_object() || !attrs.contains("spans") || !attrs["spans"].is_array()) continue;
      for (const json& span : attrs["spans"]) {
        if (!span.is_array() || span.size() != 2 || !span[0].is_number_unsigned() ||
            !span[1].is_number_unsigned()) {
          continue;
        }
        entity_at[{span[0].get<std::uint32_t>(), span[1].get<std::uint32_t>()}] = edge.dst;
      }
    }
    const Timestamp event_time = TurnTime(turn);
    const std::vector<text::Signal> signals = DetectTurnSignals(turn.text, event_time);
    std::vector<TurnMention> focus_mentions;
    for (const text::Signal& signal : signals) {
      const std::optional<text::EntityKind> kind = EntityKindOf(signal.kind);
      if (!kind.has_value() || *kind == text::EntityKind::kOrganization ||
          signal.confidence < config_.min_entity_confidence) {
        continue;
      }
      const std::string& name = signal.value.empty() ? signal.surface : signal.value;
      const auto found = entity_at.find({signal.begin, signal.end});
      if (text::NormalizeForIndex(name).empty() || found == entity_at.end()) continue;
      focus_mentions.push_back(TurnMention{
          .kind = *kind == text::EntityKind::kPlace ? FocusKind::kPlace : FocusKind::kPerson,
          .target_id = found->second,
          .begin = signal.begin,
          .end = signal.end,
          .gender = *kind == text::EntityKind::kPerson
                        ? GenderOf(lexicons_, text::NormalizeForIndex(name))
                        : Gender::kUnknown});
    }
    if (config_.signals) {
      std::set<std::string> seen;
      for (const text::Signal& signal : signals) {
        const json fields = SignalContent(turn, signal);
        const std::string content = fields.dump();
        if (!seen.insert(content).second || !IsTimeAnchor(fields)) continue;
        focus_mentions.push_back(TurnMention{
            .kind = FocusKind::kTime,
            .target_id =
                core::NodeId("signal", content, context_.scope->node_id, event_time.micros),
            .begin = signal.begin,
            .end = signal.end});
      }
    }
    std::stable_sort(focus_mentions.begin(), focus_mentions.end(),
                     [](const TurnMention& a, const TurnMention& b) { return a.begin < b.begin; });
    focus_.BeginTurn(turn.session_id, speaker_id);
    focus_.Commit(focus_mentions);
  }
  return Status::Ok();
}

Status Analyzer::LoadWindow(const store::NodeRecord& first) {
  ASSIGN_OR_RETURN(const std::vector<store::NodeRecord> turns,
                   TurnsBefore(first, config_.divergence_window));
  std::vector<std::int64_t> rows;
  for (const store::NodeRecord& turn : turns) rows.push_back(turn.row);
  std::map<std::int64_t, std::vector<float>> by_row;
  if (context_.store != nullptr && !rows.empty()) {
    ASSIGN_OR_RETURN(std::vector<store::VectorRecord> vectors,
                     context_.store->GetVectorsByRow(rows));
    for (store::VectorRecord& vector : vectors) by_row[vector.row] = std::move(vector.values);
  }
  for (const std::int64_t row : rows) {
    auto found = by_row.find(row);
    window_.push_back(found == by_row.end() ? std::vector<float>() : std::move(found->second));
  }
  return Status::Ok();
}

StatusOr<std::string> Analyzer::InsertDerived(const store::NodeRecord& turn, NodeKind kind,
                                              std::string_view type, const json& content,
                                              std::string text, bool carry_speaker) {
  const Timestamp event_time = turn.event_time.value_or(context_.now);
  store::NodeRecord node;
  node.kind = kind;
  node.scope_id = turn.scope_id;
  node.content_json = content.dump();
  node.id = core::NodeId(type, node.content_json, context_.scope->node_id, event_time.micros);
  node.text = std::move(text);
  node.role = turn.role;
  if (carry_speaker) {
    node.speaker = turn.speaker;
    node.session_id = turn.session_id;
  }
  node.sequence = turn.sequence;
  node.event_time = event_time;
  node.metadata_json = node.content_json;
  node.status = NodeStatus::kActive;
  node.valid_from = event_time;
  node.ingested_at = context_.now;
  node.updated_at = context_.now;
  RETURN_IF_ERROR(txn_.InsertNode(node).status());
  RETURN_IF_ERROR(Edge(kDerivedFrom, node.id, turn.id, json::object()));
  return node.id;
}

Status Analyzer::Edge(std::string_view type, const std::string& src, const std::string& dst,
                      const json& attrs, std::int64_t scope_id) {
  EdgeRequest request;
  request.type = std::string(type);
  request.src = src;
  request.dst = dst;
  request.scope_id = scope_id;
  request.attrs_json = attrs.dump();
  request.now = context_.now;
  return registry_.Apply(txn_, request).status();
}

StatusOr<std::pair<std::string, Resolution>> Analyzer::ResolveEntity(const store::NodeRecord& turn,
                                                                     text::EntityKind kind,
                                                                     std::string_view name) {
  const std::string key = text::NormalizeForIndex(name);
  Resolution resolution = roster_.Resolve(kind, key, resolver_options_);
  if (resolution.match >= 0) {
    return std::make_pair(roster_.at(static_cast<std::size_t>(resolution.match)).id, resolution);
  }
  RETURN_IF_ERROR(ProposeByEmbedding(kind, key, resolution));
  const json content = {{"kind", EntityKindName(kind)}, {"key", key}, {"name", name}};
  ASSIGN_OR_RETURN(const std::string id,
                   InsertDerived(turn, NodeKind::kEntity, "entity", content, std::string(name),
                                 /*carry_speaker=*/false));
  RETURN_IF_ERROR(Edge(kHasEntity, context_.scope->node_id, id, content, context_.scope->scope_id));
  if (resolution.propose_to >= 0) {
    const RosterEntry& other = roster_.at(static_cast<std::size_t>(resolution.propose_to));
    const json attrs = {
        {"reason", "resolver: " + std::string(ResolveTierName(resolution.propose_tier)) +
                       " match of \"" + std::string(name) + "\" and \"" + other.name + "\""},
        {"tier", ResolveTierName(resolution.propose_tier)},
        {"score", Round4(resolution.propose_score)}};
    RETURN_IF_ERROR(Edge(kSameAs, id, other.id, attrs));
  }
  roster_.Add(RosterEntry{.id = id, .kind = kind, .key = key, .name = std::string(name)});
  return std::make_pair(id, resolution);
}

Status Analyzer::ProposeByEmbedding(text::EntityKind kind, const std::string& key,
                                    Resolution& resolution) {
  if (resolution.propose_to >= 0 || resolver_options_.embed_propose <= 0.0 ||
      context_.embedder == nullptr || name_vectors_ == nullptr) {
    return Status::Ok();
  }
  // The roster entries without a vector yet, and the mention, in one batch.
  std::vector<std::string> keys;
  for (std::size_t index = roster_vectors_.size(); index < roster_.size(); ++index) {
    keys.push_back(roster_.at(index).key);
  }
  keys.push_back(key);
  ASSIGN_OR_RETURN(std::vector<NameVector> vectors, name_vectors_->Get(*context_.embedder, keys));
  const NameVector mention = vectors.back();
  vectors.pop_back();
  roster_vectors_.insert(roster_vectors_.end(), vectors.begin(), vectors.end());
  if (mention == nullptr) return Status::Ok();
  roster_.ProposeByEmbedding(kind, key, *mention, roster_vectors_, resolver_options_, resolution);
  return Status::Ok();
}

Status Analyzer::AnalyseTurn(const store::NodeRecord& turn, const std::vector<float>* vector,
                             const TurnText* shared) {
  const Timestamp event_time = turn.event_time.value_or(context_.now);
  const std::string& text = turn.text;
  const TurnText own =
      shared != nullptr ? TurnText{} : AnalyseTurnText(text, event_time, signal_options_.gazetteer);
  const TurnText& analysed = shared != nullptr ? *shared : own;
  const std::vector<text::Signal> signals = CapSignals(analysed.signals);
  const std::vector<text::Lexeme>& lexemes = analysed.lexemes;

  // The analysis row's signals; time anchors (resolved dates and times) as nodes with at_time
  // edges, the targets of facts' and references' times.
  std::vector<std::string> signal_ids(signals.size());
  std::vector<std::string> row_signals;
  if (config_.signals) {
    std::set<std::string> seen;
    for (std::size_t signal_idx = 0; signal_idx < signals.size(); ++signal_idx) {
      const text::Signal& signal = signals[signal_idx];
      const json content = SignalContent(turn, signal);
      std::string dumped = content.dump();
      if (!seen.insert(dumped).second) continue;
      row_signals.push_back(std::move(dumped));
      if (!IsTimeAnchor(content)) continue;
      ASSIGN_OR_RETURN(signal_ids[signal_idx],
                       InsertDerived(turn, NodeKind::kSignal, "signal", content, signal.surface,
                                     /*carry_speaker=*/true));
      RETURN_IF_ERROR(
          Edge(kAtTime, turn.id, signal_ids[signal_idx], json{{"surface", signal.surface}}));
    }
  }

  // Entities.
  std::size_t entity_mentions = 0;
  std::vector<TurnMention> focus_mentions;
  std::string speaker_id;
  if (config_.entities) {
    // Per entity, in order of first mention: spans and whether it is the speaker.
    std::vector<std::string> order;
    std::map<std::string, json> mention_attrs;
    auto note = [&](const std::string& id) -> json& {
      auto [found, inserted] = mention_attrs.try_emplace(id, json::object());
      if (inserted) order.push_back(id);
      return found->second;
    };
    if (!SpeakerKey(turn.speaker).empty()) {
      ASSIGN_OR_RETURN(auto resolved, ResolveEntity(turn, text::EntityKind::kPerson, turn.speaker));
      speaker_id = resolved.first;
    }
    for (std::size_t signal_idx = 0; signal_idx < signals.size(); ++signal_idx) {
      const text::Signal& signal = signals[signal_idx];
      const std::optional<text::EntityKind> kind = EntityKindOf(signal.kind);
      if (!kind.has_value() || signal.confidence < config_.min_entity_confidence) continue;
      const std::string& name = signal.value.empty() ? signal.surface : signal.value;
      if (text::NormalizeForIndex(name).empty()) continue;
      ++entity_mentions;
      ASSIGN_OR_RETURN(auto resolved, ResolveEntity(turn, *kind, name));
      const auto& [entity_id, resolution] = resolved;
      json& attrs = note(entity_id);
      if (attrs.empty()) {
        attrs["tier"] = ResolveTierName(resolution.tier);
        attrs["score"] = Round4(resolution.score);
      }
      attrs["spans"].push_back(json::array({signal.begin, signal.end}));
      if (*kind != text::EntityKind::kOrganization) {
        focus_mentions.push_back(TurnMention{
            .kind = *kind == text::EntityKind::kPlace ? FocusKind::kPlace : FocusKind::kPerson,
            .target_id = entity_id,
            .begin = signal.begin,
            .end = signal.end,
            .gender = *kind == text::EntityKind::kPerson
                          ? GenderOf(lexicons_, text::NormalizeForIndex(name))
                          : Gender::kUnknown});
      }
    }
    for (const std::string& entity_id : order) {
      RETURN_IF_ERROR(Edge(kMentions, turn.id, entity_id, mention_attrs[entity_id]));
    }
  }

  // DMF content signals.
  if (config_.signals) {
    ContentSignals content_signals =
        ComputeContentSignals(text, lexemes, lexicons_, entity_mentions, config_.entity_cap);
    content_signals.divergence = Divergence(vector, window_);
    window_.push_back(vector != nullptr ? *vector : std::vector<float>());
    while (window_.size() > config_.divergence_window) window_.pop_front();
    const json content = {{"turn", turn.id},
                          {"kind", "content"},
                          {"information_density", content_signals.information_density},
                          {"sentiment", content_signals.sentiment},
                          {"sentiment_compound", content_signals.sentiment_compound},
                          {"entity_count", content_signals.entity_count},
                          {"entity_norm", content_signals.entity_norm},
                          {"divergence", content_signals.divergence},
                          {"tokens", content_signals.tokens}};
    row_signals.push_back(content.dump());
    ASSIGN_OR_RETURN(std::string analysis, store::TurnAnalysisFromSignals(row_signals));
    RETURN_IF_ERROR(
        txn_.PutTurnAnalysis(store::TurnAnalysisRow(turn.row, std::move(analysis), text)));
  }

  // References.
  if (config_.entities && config_.references) {
    for (std::size_t signal_idx = 0; signal_idx < signals.size(); ++signal_idx) {
      const text::Signal& signal = signals[signal_idx];
      if ((signal.kind == text::SignalKind::kDate || signal.kind == text::SignalKind::kTime) &&
          !signal_ids[signal_idx].empty()) {
        focus_mentions.push_back(TurnMention{.kind = FocusKind::kTime,
                                             .target_id = signal_ids[signal_idx],
                                             .begin = signal.begin,
                                             .end = signal.end});
      }
    }
    std::stable_sort(focus_mentions.begin(), focus_mentions.end(),
                     [](const TurnMention& a, const TurnMention& b) { return a.begin < b.begin; });
    focus_.BeginTurn(turn.session_id, speaker_id);
    const std::vector<Reference> references = focus_.Resolve(text, lexemes, focus_mentions);
    std::vector<std::string> order;
    std::map<std::string, json> by_target;
    std::set<std::string> time_targets;
    for (const Reference& reference : references) {
      if (reference.target_id == turn.id) continue;
      auto [found, inserted] = by_target.try_emplace(reference.target_id, json::object());
      if (inserted) order.push_back(reference.target_id);
      found->second["references"].push_back({{"surface", reference.surface},
                                             {"begin", reference.begin},
                                             {"end", reference.end},
                                             {"kind", FocusKindName(reference.kind)}});
      if (reference.kind == FocusKind::kTime) time_targets.insert(reference.target_id);
    }
    for (const std::string& target : order) {
      RETURN_IF_ERROR(Edge(kRefersTo, turn.id, target, by_target[target]));
      if (time_targets.contains(target) &&
          std::find(signal_ids.begin(), signal_ids.end(), target) == signal_ids.end()) {
        RETURN_IF_ERROR(Edge(kAtTime, turn.id, target, json{{"via", "reference"}}));
      }
    }
    focus_.Commit(focus_mentions);
  }
  return Status::Ok();
}

}  // namespace

StatusOr<std::shared_ptr<const AnalysisResources>> LoadAnalysisResources(
    const WriteConfig& config, std::string_view data_dir) {
  auto resources = std::make_shared<AnalysisResources>();
  resources->name_vectors = std::make_shared<NameVectorCache>();
  if (config.signals || config.entities || config.facts) {
    ASSIGN_OR_RETURN(resources->lexicons, lexicon::Lexicons::Load(data_dir));
  }
  return std::shared_ptr<const AnalysisResources>(std::move(resources));
}

Status DeriveAnalysis(store::Transaction& txn, const EdgeRegistry& registry,
                      std::span<const std::string> turn_ids, const WriteConfig& config,
                      const AnalysisResources* resources, const DeriveContext& context) {
  if (!config.signals && !config.entities) return Status::Ok();
  if (resources == nullptr || resources->lexicons == nullptr) {
    return Status::FailedPrecondition("analysis: the lexicons are not loaded");
  }
  if (context.scope == nullptr) return Status::InvalidArgument("analysis needs a scope");
  Analyzer analyzer(txn, registry, config, *resources->lexicons, resources->name_vectors.get(),
                    context);
  for (std::size_t turn_idx = 0; turn_idx < turn_ids.size(); ++turn_idx) {
    const std::string& turn_id = turn_ids[turn_idx];
    ASSIGN_OR_RETURN(const store::NodeRecord turn, txn.GetNode(turn_id));
    if (turn.kind != NodeKind::kTurn) {
      return Status::InvalidArgument("analysis: node " + turn_id + " is not a turn");
    }
    if (turn_idx == 0) RETURN_IF_ERROR(analyzer.Begin(turn));
    const std::vector<float>* vector =
        turn_idx < context.turn_vectors.size() ? &context.turn_vectors[turn_idx] : nullptr;
    const TurnText* shared = turn_idx < context.texts.size() ? &context.texts[turn_idx] : nullptr;
    RETURN_IF_ERROR(analyzer.AnalyseTurn(turn, vector, shared));
  }
  return Status::Ok();
}

}  // namespace engram::write

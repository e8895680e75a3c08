// The consolidation pass (see consolidator.h).
#include "consolidate/consolidator.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "consolidate/episodes.h"
#include "consolidate/profile.h"
#include "consolidate/scenes.h"
#include "core/ids.h"
#include "store/journal.h"
#include "store/turn_analysis.h"
#include "text/tokenizer.h"
#include "write/extractor.h"

namespace engram::consolidate {
namespace {

using json = nlohmann::json;

// Size of the bag-of-terms vector that stands in for embeddings when the store has none.
constexpr std::size_t kHashedTermDimension = 256;
// Digits a centroid component keeps in a scene's content (canonical JSON of a rounded value).
constexpr double kCentroidScale = 1e6;

json Parse(const std::string& text) {
  json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return parsed.is_object() ? parsed : json::object();
}

std::string Str(const json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : "";
}

std::optional<Timestamp> TimeField(const json& object, const char* key) {
  const std::string text = Str(object, key);
  if (text.empty()) return std::nullopt;
  StatusOr<Timestamp> parsed = ParseTimestamp(text);
  if (!parsed.ok()) return std::nullopt;
  return *parsed;
}

// The absolute form of a date signal's interval: "7 May 2023" for a day, "May 2023" for a month,
// "2023" for a year, else "1 May 2023 to 8 May 2023" (the last day included).
std::string DateNote(const json& signal) {
  const std::optional<Timestamp> from = TimeField(signal, "from");
  const std::optional<Timestamp> to = TimeField(signal, "to");
  if (!from.has_value() || !to.has_value() || *to <= *from) return "";
  const std::string granularity = Str(signal, "granularity");
  const std::string first = HumanDate(*from);
  if (granularity == "day") return first;
  if (granularity == "month") return first.substr(first.find(' ') + 1);
  if (granularity == "year") return first.substr(first.rfind(' ') + 1);
  const std::string last = HumanDate(Timestamp{to->micros - 1});
  return first == last ? first : first + " to " + last;
}

// Whether a surface already names its year ("8 May 2023"): its note would repeat it.
bool HasYear(std::string_view surface) {
  std::size_t run = 0;
  for (const char c : surface) {
    run = (c >= '0' && c <= '9') ? run + 1 : 0;
    if (run == 4) return true;
  }
  return false;
}

struct FactInfo {
  FactView view;
  std::string turn;  // the turn it was extracted from
};

// Reads and prepares everything a pass needs from the store.
class ScopeReader {
 public:
  ScopeReader(store::Store& store, store::Transaction& txn, const store::ScopeRecord& scope)
      : store_(store), txn_(txn), scope_(scope) {}

  Status Read() {
    store::NodeFilter filter;
    filter.kind = NodeKind::kTurn;
    filter.include_inactive = false;
    ASSIGN_OR_RETURN(const std::vector<store::NodeRecord> turn_nodes,
                     txn_.ListNodes(scope_.scope_id, filter));
    for (const store::NodeRecord& node : turn_nodes) {
      TurnView turn;
      turn.id = node.id;
      turn.sequence = node.sequence;
      turn.session_id = node.session_id;
      turn.time = node.event_time.value_or(node.ingested_at);
      turn.role = node.role;
      turn.speaker = node.speaker;
      turn.text = node.text;
      std::set<std::string> terms;
      for (text::Token& token : tokenizer_.Tokenize(node.text)) {
        words.try_emplace(token.term, std::move(token.word));
        terms.insert(std::move(token.term));
      }
      turn.terms.assign(terms.begin(), terms.end());
      turns.push_back(std::move(turn));
      rows.push_back(node.row);
    }
    RETURN_IF_ERROR(ReadSignals());
    RETURN_IF_ERROR(ReadEdges());
    RETURN_IF_ERROR(ReadVectors());
    return ReadFacts();
  }

  std::vector<TurnView> turns;
  std::vector<std::int64_t> rows;  // the turns' node rows
  std::vector<std::vector<std::string>> turn_entities;  // per turn, mentioned entity ids
  std::map<std::string, std::string> entity_names;      // entity id -> name
  std::map<std::string, std::string> words;  // term -> the first word it came from (for display)
  std::vector<FactInfo> facts;                          // every fact but rejected ones
  bool has_vectors = false;

 private:
  // The divergence and the year-less dates of every turn, from its analysis row.
  Status ReadSignals() {
    ASSIGN_OR_RETURN(const std::vector<store::TurnAnalysisRecord> records,
                     txn_.GetTurnAnalyses(rows));
    std::map<std::int64_t, std::size_t> by_row;
    for (std::size_t turn_idx = 0; turn_idx < rows.size(); ++turn_idx) {
      by_row[rows[turn_idx]] = turn_idx;
    }
    for (const store::TurnAnalysisRecord& record : records) {
      TurnView& view = turns[by_row.at(record.turn_row)];
      ASSIGN_OR_RETURN(const store::TurnAnalysis analysis,
                       store::ParseTurnAnalysis(record, view.text));
      if (analysis.content.has_value()) view.divergence = analysis.content->divergence;
      for (const store::AnalysedSignal& signal : analysis.signals) {
        if (signal.kind != "date" || HasYear(signal.Surface(view.text))) continue;
        const std::string note = DateNote(
            json{{"from", signal.from}, {"to", signal.to}, {"granularity", signal.topic}});
        if (note.empty()) continue;
        view.annotations.push_back({.begin = signal.begin, .end = signal.end, .note = note});
      }
    }
    return Status::Ok();
  }

  // Mentions and references of every turn.
  Status ReadEdges() {
    turn_entities.resize(turns.size());
    for (std::size_t turn_idx = 0; turn_idx < turns.size(); ++turn_idx) {
      TurnView& turn = turns[turn_idx];
      ASSIGN_OR_RETURN(const std::vector<store::EdgeRecord> edges,
                       txn_.EdgesOf(turn.id, store::EdgeDirection::kOutgoing, ""));
      for (const store::EdgeRecord& edge : edges) {
        if (edge.status != store::kEdgeActive) continue;
        if (edge.type == write::kMentions) {
          RETURN_IF_ERROR(EntityName(edge.dst).status());
          turn_entities[turn_idx].push_back(edge.dst);
        } else if (edge.type == write::kRefersTo) {
          ASSIGN_OR_RETURN(const store::NodeRecord target, txn_.GetNode(edge.dst));
          std::string note;
          if (target.kind == NodeKind::kEntity) {
            note = target.text;
          } else {
            const json content = Parse(target.content_json);
            if (Str(content, "kind") == "date") note = DateNote(content);
          }
          const json attrs = Parse(edge.attrs_json);
          if (note.empty() || !attrs.contains("references") || !attrs["references"].is_array()) {
            continue;
          }
          for (const json& reference : attrs["references"]) {
            if (!reference.is_object()) continue;
            turn.annotations.push_back({.begin = reference.value("begin", 0u),
                                        .end = reference.value("end", 0u),
                                        .note = note});
          }
        }
      }
      // Sorted, the first of overlapping ones kept.
      std::stable_sort(turn.annotations.begin(), turn.annotations.end(),
                       [](const Annotation& a, const Annotation& b) { return a.begin < b.begin; });
      std::vector<Annotation> kept;
      for (Annotation& annotation : turn.annotations) {
        if (annotation.end <= annotation.begin || annotation.end > turn.text.size()) continue;
        if (!kept.empty() && annotation.begin < kept.back().end) continue;
        kept.push_back(std::move(annotation));
      }
      turn.annotations = std::move(kept);
    }
    return Status::Ok();
  }

  StatusOr<std::string> EntityName(const std::string& id) {
    const auto found = entity_names.find(id);
    if (found != entity_names.end()) return found->second;
    ASSIGN_OR_RETURN(const store::NodeRecord node, txn_.GetNode(id));
    entity_names.emplace(id, node.text);
    return node.text;
  }

  Status ReadVectors() {
    ASSIGN_OR_RETURN(const std::vector<store::VectorRecord> vectors, store_.GetVectorsByRow(rows));
    std::map<std::int64_t, std::size_t> by_row;
    for (std::size_t turn_idx = 0; turn_idx < rows.size(); ++turn_idx) {
      by_row.emplace(rows[turn_idx], turn_idx);
    }
    for (const store::VectorRecord& vector : vectors) {
      const auto turn = by_row.find(vector.row);
      if (turn == by_row.end()) continue;
      turns[turn->second].vector = vector.values;
      has_vectors = true;
    }
    return Status::Ok();
  }

  Status ReadFacts() {
    store::NodeFilter filter;
    filter.kind = NodeKind::kFact;
    ASSIGN_OR_RETURN(const std::vector<store::NodeRecord> nodes,
                     txn_.ListNodes(scope_.scope_id, filter));
    for (const store::NodeRecord& node : nodes) {
      if (node.status == NodeStatus::kRejected) continue;
      const json content = Parse(node.content_json);
      FactInfo fact;
      fact.turn = Str(content, "turn");
      FactView& view = fact.view;
      view.id = node.id;
      view.status = node.status;
      view.sequence = node.sequence;
      view.subject = Str(content, "subject");
      view.subject_is_speaker = content.value("subject_is_speaker", false);
      view.predicate = Str(content, "predicate");
      view.object = Str(content, "object");
      view.kind = Str(content, "kind");
      view.negated = Str(content, "polarity") == "-";
      view.past = content.value("past", false);
      view.single_valued = content.value("single_valued", false);
      view.valid_from = node.valid_from;
      view.valid_to = node.valid_to;
      ASSIGN_OR_RETURN(const std::vector<store::EdgeRecord> sources,
                       txn_.EdgesOf(node.id, store::EdgeDirection::kOutgoing, write::kDerivedFrom));
      for (const store::EdgeRecord& edge : sources) {
        if (edge.status == store::kEdgeActive) view.turns.push_back(edge.dst);
      }
      facts.push_back(std::move(fact));
    }
    return Status::Ok();
  }

  store::Store& store_;
  store::Transaction& txn_;
  const store::ScopeRecord& scope_;
  text::Tokenizer tokenizer_;
};

// A node the pass wants active, with the edges it needs and the key that names what it
// continues (an episode: its first turn; a scene: its first episode's key; a profile: the
// person), so an old node with the same key is superseded by it.
struct Desired {
  store::NodeRecord node;
  std::vector<std::pair<std::string_view, std::string>> edges;  // (type, dst)
};

store::NodeRecord DerivedNode(NodeKind kind, std::string_view type, const store::ScopeRecord& scope,
                              const json& content, std::string text, Timestamp created,
                              std::int64_t sequence, Timestamp now) {
  store::NodeRecord node;
  node.kind = kind;
  node.scope_id = scope.scope_id;
  node.content_json = content.dump(-1, ' ', false, json::error_handler_t::replace);
  node.id = core::NodeId(type, node.content_json, scope.node_id, created.micros);
  node.text = std::move(text);
  node.sequence = sequence;
  node.metadata_json = node.content_json;
  node.status = NodeStatus::kActive;
  node.ingested_at = now;
  node.updated_at = now;
  return node;
}

json TimeJson(const std::optional<Timestamp>& time) {
  return time.has_value() ? json(FormatTimestamp(*time)) : json(nullptr);
}

json SentencesJson(const std::vector<NarrativeSentence>& sentences) {
  json out = json::array();
  for (const NarrativeSentence& sentence : sentences) {
    out.push_back({{"turn", sentence.turn_id}, {"text", sentence.text}});
  }
  return out;
}

json SlotValueJson(const SlotValue& value) {
  return {{"fact", value.fact_id},       {"object", value.object},
          {"status", value.status},      {"valid_from", TimeJson(value.valid_from)},
          {"valid_to", TimeJson(value.valid_to)}, {"turns", value.turns}};
}

json ProfileJson(const PersonProfile& profile) {
  json explicit_facts = json::array();
  for (const ProfileSlot& slot : profile.explicit_facts) {
    json history = json::array();
    for (const SlotValue& value : slot.history) history.push_back(SlotValueJson(value));
    explicit_facts.push_back(
        {{"predicate", slot.predicate},
         {"current", slot.current.has_value() ? SlotValueJson(*slot.current) : json(nullptr)},
         {"history", std::move(history)}});
  }
  json traits = json::array();
  for (const ProfileTrait& trait : profile.traits) {
    traits.push_back({{"kind", trait.kind},
                      {"predicate", trait.predicate},
                      {"object", trait.object},
                      {"polarity", trait.negated ? "-" : "+"},
                      {"count", trait.count},
                      {"facts", trait.facts},
                      {"turns", trait.turns}});
  }
  return {{"name", profile.name},
          {"scope_user", profile.scope_user},
          {"speaker", profile.speaker},
          {"explicit", std::move(explicit_facts)},
          {"traits", std::move(traits)}};
}

// "Mia: lives_in Munich (before: Berlin); likes coffee (x3)".
std::string ProfileText(const PersonProfile& profile) {
  std::string text = profile.name + ":";
  std::string separator = " ";
  for (const ProfileSlot& slot : profile.explicit_facts) {
    text += separator + slot.predicate + " " +
            (slot.current.has_value() ? slot.current->object : std::string("(none now)"));
    if (!slot.history.empty()) {
      text += " (before:";
      for (const SlotValue& value : slot.history) text += " " + value.object;
      text += ")";
    }
    separator = "; ";
  }
  for (const ProfileTrait& trait : profile.traits) {
    text += separator + (trait.negated ? "not " : "") + trait.predicate + " " + trait.object +
            " (x" + std::to_string(trait.count) + ")";
    separator = "; ";
  }
  return text;
}

// Makes `desired` the active nodes of `kind` in the scope: inserts the missing ones with their
// edges, supersedes each old active node by the desired node with its key, retires the rest.
Status Sync(store::Transaction& txn, const write::EdgeRegistry& registry,
            const store::ScopeRecord& scope, NodeKind kind, const std::vector<Desired>& desired,
            Timestamp now, ConsolidateResult& result) {
  store::NodeFilter filter;
  filter.kind = kind;
  filter.include_inactive = false;
  ASSIGN_OR_RETURN(const std::vector<store::NodeRecord> existing,
                   txn.ListNodes(scope.scope_id, filter));
  std::set<std::string> existing_ids;
  for (const store::NodeRecord& node : existing) existing_ids.insert(node.id);
  std::map<std::string, std::string> desired_by_key;
  std::set<std::string> desired_ids;
  for (const Desired& wanted : desired) {
    desired_ids.insert(wanted.node.id);
    desired_by_key.emplace(Str(Parse(wanted.node.content_json), "key"), wanted.node.id);
    if (existing_ids.contains(wanted.node.id)) continue;
    StatusOr<store::NodeRecord> stored = txn.GetNode(wanted.node.id);
    if (stored.ok()) continue;  // the same node, once superseded: content-addressed, kept as is
    if (stored.status().code() != StatusCode::kNotFound) return stored.status();
    RETURN_IF_ERROR(txn.InsertNode(wanted.node).status());
    for (const auto& [type, dst] : wanted.edges) {
      write::EdgeRequest request;
      request.type = std::string(type);
      request.src = wanted.node.id;
      request.dst = dst;
      request.scope_id = scope.scope_id;
      request.now = now;
      RETURN_IF_ERROR(registry.Apply(txn, request).status());
    }
    ++result.written;
  }
  for (const store::NodeRecord& old : existing) {
    if (desired_ids.contains(old.id)) continue;
    const auto successor = desired_by_key.find(Str(Parse(old.content_json), "key"));
    if (successor != desired_by_key.end()) {
      write::EdgeRequest request;
      request.type = std::string(write::kSupersedes);
      request.src = successor->second;
      request.dst = old.id;
      request.scope_id = scope.scope_id;
      request.valid_from = now;
      request.now = now;
      RETURN_IF_ERROR(registry.Apply(txn, request).status());
    } else {
      RETURN_IF_ERROR(txn.UpdateNodeState(old.id, NodeStatus::kRetired, now, now,
                                          "consolidation: its evidence is no longer active"));
    }
    ++result.superseded;
  }
  return Status::Ok();
}

}  // namespace

StatusOr<ConsolidateResult> Consolidator::Run(store::Transaction& txn,
                                              const store::ScopeRecord& scope,
                                              Timestamp now) const {
  ConsolidateResult result;
  ScopeReader reader(store_, txn, scope);
  RETURN_IF_ERROR(reader.Read());
  const std::vector<TurnView>& turns = reader.turns;
  result.turns = turns.size();

  // Facts by the turn they came from.
  std::map<std::string, std::vector<const FactInfo*>> facts_of_turn;
  for (const FactInfo& fact : reader.facts) facts_of_turn[fact.turn].push_back(&fact);

  // Episodes.
  const std::vector<EpisodeSpan> spans =
      SegmentEpisodes(turns, config_, /*use_divergence=*/reader.has_vectors);
  std::vector<Desired> episodes;
  std::vector<SceneEpisode> scene_inputs;
  for (const EpisodeSpan& span : spans) {
    const std::span<const TurnView> members =
        std::span<const TurnView>(turns).subspan(span.begin, span.size());
    const Narrative narrative = RenderNarrative(members, config_.narrative_sentences);
    json turn_ids = json::array();
    std::vector<std::string> speakers;
    std::vector<std::string> entity_order;
    json facts = json::array();
    json foresight = json::array();
    std::map<std::string, std::size_t> term_counts;
    for (std::size_t turn_idx = span.begin; turn_idx < span.end; ++turn_idx) {
      const TurnView& turn = turns[turn_idx];
      turn_ids.push_back(turn.id);
      const std::string speaker = SpeakerName(turn);
      if (std::find(speakers.begin(), speakers.end(), speaker) == speakers.end()) {
        speakers.push_back(speaker);
      }
      for (const std::string& entity : reader.turn_entities[turn_idx]) {
        if (std::find(entity_order.begin(), entity_order.end(), entity) == entity_order.end()) {
          entity_order.push_back(entity);
        }
      }
      for (const FactInfo* fact : facts_of_turn[turn.id]) {
        (fact->view.kind == "foresight" ? foresight : facts).push_back(fact->view.id);
      }
      for (const std::string& term : turn.terms) ++term_counts[term];
    }
    json entities = json::array();
    for (const std::string& entity : entity_order) {
      entities.push_back({{"id", entity}, {"name", reader.entity_names[entity]}});
    }
    const TurnView& first = members.front();
    const TurnView& last = members.back();
    const json content = {{"key", first.id},
                          {"turns", std::move(turn_ids)},
                          {"first_sequence", first.sequence},
                          {"last_sequence", last.sequence},
                          {"start", FormatTimestamp(first.time)},
                          {"end", FormatTimestamp(last.time)},
                          {"session", first.session_id},
                          {"boundary", BoundaryName(span.boundary)},
                          {"speakers", speakers},
                          {"entities", std::move(entities)},
                          {"facts", std::move(facts)},
                          {"foresight", std::move(foresight)},
                          {"narrative", narrative.text},
                          {"sentences", SentencesJson(narrative.sentences)}};
    Desired episode;
    episode.node = DerivedNode(NodeKind::kEpisode, "episode", scope, content, narrative.text,
                               first.time, last.sequence, now);
    episode.node.session_id = first.session_id;
    episode.node.event_time = first.time;
    episode.node.valid_from = first.time;
    for (const TurnView& turn : members) episode.edges.emplace_back(write::kDerivedFrom, turn.id);
    for (const std::string& entity : entity_order) episode.edges.emplace_back(write::kMentions, entity);

    SceneEpisode scene_input;
    scene_input.start = first.time;
    scene_input.end = last.time;
    scene_input.terms = term_counts;
    scene_input.sentences.assign(narrative.sentences.begin() + 1, narrative.sentences.end());
    if (reader.has_vectors) {
      // The mean of the turns' embeddings (turns without one are left out).
      for (const TurnView& turn : members) {
        if (turn.vector.empty()) continue;
        if (scene_input.vector.empty()) scene_input.vector.assign(turn.vector.size(), 0.0f);
        if (turn.vector.size() != scene_input.vector.size()) continue;
        for (std::size_t idx = 0; idx < turn.vector.size(); ++idx) {
          scene_input.vector[idx] += turn.vector[idx];
        }
      }
    } else {
      scene_input.vector = HashedTermVector(term_counts, kHashedTermDimension);
    }
    scene_inputs.push_back(std::move(scene_input));
    episodes.push_back(std::move(episode));
  }
  RETURN_IF_ERROR(Sync(txn, registry_, scope, NodeKind::kEpisode, episodes, now, result));
  result.episodes = episodes.size();

  // Scenes.
  std::vector<Desired> scenes;
  for (const SceneCluster& cluster : ClusterScenes(scene_inputs, config_)) {
    const std::vector<std::string> keywords =
        SceneKeywords(scene_inputs, cluster, config_.scene_keywords);
    const std::vector<NarrativeSentence> summary =
        SceneSummary(scene_inputs, cluster, keywords, config_.scene_summary_sentences);
    // Keywords as words ("really", not the stem "realli"), once each.
    std::vector<std::string> display_keywords;
    for (const std::string& term : keywords) {
      const auto word = reader.words.find(term);
      const std::string& shown = word != reader.words.end() ? word->second : term;
      if (std::find(display_keywords.begin(), display_keywords.end(), shown) ==
          display_keywords.end()) {
        display_keywords.push_back(shown);
      }
    }
    json member_ids = json::array();
    Timestamp start = scene_inputs[cluster.members.front()].start;
    Timestamp end = start;
    std::int64_t sequence = 0;
    for (const std::size_t member : cluster.members) {
      member_ids.push_back(episodes[member].node.id);
      start = std::min(start, scene_inputs[member].start);
      end = std::max(end, scene_inputs[member].end);
      sequence = std::max(sequence, episodes[member].node.sequence);
    }
    json centroid = json::array();
    for (const double value : cluster.centroid) {
      centroid.push_back(std::round(value * kCentroidScale) / kCentroidScale);
    }
    std::string text;
    for (const NarrativeSentence& sentence : summary) {
      text += (text.empty() ? "" : " ") + sentence.text;
    }
    const json content = {
        {"key", Str(Parse(episodes[cluster.members.front()].node.content_json), "key")},
        {"episodes", std::move(member_ids)},
        {"start", FormatTimestamp(start)},
        {"end", FormatTimestamp(end)},
        {"keywords", display_keywords},
        {"summary", SentencesJson(summary)},
        {"centroid", std::move(centroid)}};
    Desired scene;
    scene.node = DerivedNode(NodeKind::kScene, "scene", scope, content, text, start, sequence, now);
    scene.node.event_time = start;
    scene.node.valid_from = start;
    for (const std::size_t member : cluster.members) {
      scene.edges.emplace_back(write::kDerivedFrom, episodes[member].node.id);
    }
    scenes.push_back(std::move(scene));
  }
  RETURN_IF_ERROR(Sync(txn, registry_, scope, NodeKind::kScene, scenes, now, result));
  result.scenes = scenes.size();

  // Profiles.
  std::vector<FactView> fact_views;
  std::int64_t fact_sequence = 0;
  for (const FactInfo& fact : reader.facts) {
    fact_views.push_back(fact.view);
    fact_sequence = std::max(fact_sequence, fact.view.sequence);
  }
  std::string scope_user;
  if (StatusOr<Scope> parsed = Scope::Parse(scope.path);
      parsed.ok() && parsed->kind() == ScopeKind::kUser) {
    scope_user = parsed->name();
  }
  std::vector<Desired> profiles;
  for (const PersonProfile& person : BuildProfiles(fact_views, scope_user)) {
    json content = ProfileJson(person);
    content["key"] = write::NormalizeFactText(person.name);
    Desired profile;
    profile.node = DerivedNode(NodeKind::kProfile, "profile", scope, content, ProfileText(person),
                               Timestamp{0}, fact_sequence, now);
    std::set<std::string> linked;
    auto link = [&](const std::string& fact_id) {
      if (linked.insert(fact_id).second) profile.edges.emplace_back(write::kDerivedFrom, fact_id);
    };
    for (const ProfileSlot& slot : person.explicit_facts) {
      if (slot.current.has_value()) link(slot.current->fact_id);
      for (const SlotValue& value : slot.history) link(value.fact_id);
    }
    for (const ProfileTrait& trait : person.traits) {
      for (const std::string& fact_id : trait.facts) link(fact_id);
    }
    profiles.push_back(std::move(profile));
  }
  RETURN_IF_ERROR(Sync(txn, registry_, scope, NodeKind::kProfile, profiles, now, result));
  result.profiles = profiles.size();
  return result;
}

}  // namespace engram::consolidate

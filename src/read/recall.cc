// The recall pipeline (see recall.h).
#include "read/recall.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <unordered_map>

#include "config/config_table.h"
#include "index/bm25/bm25_index.h"
#include "read/adjust.h"
#include "read/bm25_route.h"
#include "read/bridge.h"
#include "read/chat_context.h"
#include "read/context_routes.h"
#include "read/current_state.h"
#include "read/entity_route.h"
#include "read/fact_route.h"
#include "read/fusion.h"
#include "read/hop.h"
#include "read/keyword_route.h"
#include "read/learned_ranker.h"
#include "read/packing.h"
#include "read/planner.h"
#include "read/rank_features.h"
#include "read/scene_route.h"
#include "read/sufficiency.h"
#include "read/turn_layout.h"
#include "read/vector_route.h"
#include "read/visibility.h"

namespace engram::read {
namespace {

class StageTimer {
 public:
  explicit StageTimer(Diagnostics* diagnostics) : diagnostics_(diagnostics) {}
  void Mark(std::string stage) {
    const auto now = std::chrono::steady_clock::now();
    diagnostics_->timings.push_back(
        {std::move(stage), std::chrono::duration<double, std::milli>(now - last_).count()});
    last_ = now;
  }

 private:
  Diagnostics* diagnostics_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace

Routes Routes::Default() {
  Routes routes;
  routes.routes_.push_back(std::make_unique<Bm25Route>());
  routes.routes_.push_back(std::make_unique<KeywordRoute>());
  routes.routes_.push_back(std::make_unique<VectorRoute>());
  routes.routes_.push_back(std::make_unique<FragmentRoute>());
  routes.routes_.push_back(std::make_unique<SessionRoute>());
  routes.routes_.push_back(std::make_unique<TemporalRoute>());
  auto graphs = std::make_shared<ScopeGraphCache>();  // entity and fact routes share it
  routes.routes_.push_back(std::make_unique<EntityRoute>(graphs));
  routes.routes_.push_back(std::make_unique<FactRoute>(graphs));
  auto structures = std::make_shared<ScopeStructureCache>();  // scene route and chat context
  routes.routes_.push_back(std::make_unique<SceneRoute>(structures));
  routes.graphs_ = graphs;
  routes.structures_ = structures;
  return routes;
}

const Route* Routes::Find(std::string_view name) const {
  for (const auto& route : routes_) {
    if (route->name() == name) return route.get();
  }
  return nullptr;
}

std::vector<std::string> Routes::Names() const {
  std::vector<std::string> names;
  for (const auto& route : routes_) names.emplace_back(route->name());
  return names;
}

RecallItem ItemFromNode(const store::NodeRecord& node, std::string scope_path) {
  RecallItem item;
  item.id = node.id;
  item.kind = node.kind;
  item.scope = std::move(scope_path);
  item.text = node.text;
  item.role = node.role;
  item.speaker = node.speaker;
  item.session_id = node.session_id;
  item.sequence = node.sequence;
  item.event_time = node.event_time;
  item.metadata_json = node.metadata_json;
  item.status = node.status;
  if (node.kind == NodeKind::kTurn) item.provenance.push_back(node.id);
  return item;
}

namespace {

bool SameName(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

// Speakers the question names: a name equal to a speaker or to its first word.
std::vector<std::string> AskedSpeakers(const QueryFrame& frame, const TurnLayout& layout) {
  std::vector<std::string> asked;
  const std::vector<std::string>& speakers = layout.Speakers();
  for (const std::string& name : frame.names) {
    for (const std::string& speaker : speakers) {
      const std::string_view first = std::string_view(speaker).substr(0, speaker.find(' '));
      if ((SameName(name, speaker) || SameName(name, first)) &&
          std::find(asked.begin(), asked.end(), speaker) == asked.end()) {
        asked.push_back(speaker);
      }
    }
  }
  return asked;
}

// "bm25, fragment, ..." for unknown-route errors.
std::string KnownRoutes(const Routes& routes) {
  std::string known;
  for (const std::string& known_name : routes.Names()) {
    known += known.empty() ? known_name : ", " + known_name;
  }
  return known;
}

// RecallOptions::route_weights: known routes, finite weights in config::CallRouteWeightRange().
Status CheckRouteWeights(const std::map<std::string, double>& route_weights, const Routes& routes) {
  const config::Range range = config::CallRouteWeightRange();
  for (const auto& [name, weight] : route_weights) {
    const std::string key = "route_weights \"" + name.substr(0, 64) + "\"";
    if (routes.Find(name) == nullptr) {
      return Status::InvalidArgument(key + ": unknown route (known: " + KnownRoutes(routes) + ")");
    }
    if (!range.Contains(weight)) {
      return Status::InvalidArgument(key + " is " + config::FormatValue(weight) +
                                     "; a route weight must be a finite number in " +
                                     range.ToString());
    }
  }
  return Status::Ok();
}

}  // namespace

StatusOr<ReadResult> RunRecall(const RecallRequest& request, const Routes& routes) {
  const auto started = std::chrono::steady_clock::now();
  RETURN_IF_ERROR(CheckRouteWeights(request.options.route_weights, routes));
  ReadResult result;
  result.query = request.frame.text;
  result.policy = std::string(AnswerPolicyName(request.options.policy));
  result.answer_instructions = AnswerInstructions(request.options.policy);
  Diagnostics& diagnostics = result.diagnostics;
  StageTimer timer(&diagnostics);
  const Config& config = *request.config;

  // The conversation's layout: sessions, neighbours, speakers.
  // The projection's layouts when the caller has them (no store read), else loaded.
  std::optional<TurnLayout> owned_layout;
  const TurnLayout* layout = nullptr;
  if (request.layouts.size() == 1) {
    layout = request.layouts.front();
  } else if (!request.layouts.empty()) {
    owned_layout = TurnLayout::Concat(request.layouts);
    layout = &*owned_layout;
  } else if (request.store != nullptr && !request.scope_ids.empty()) {
    static const text::Tokenizer kDefaultTokenizer;
    ASSIGN_OR_RETURN(owned_layout,
                     TurnLayout::Load(*request.store, request.scope_ids,
                                      request.tokenizer ? *request.tokenizer : kDefaultTokenizer));
    layout = &*owned_layout;
  }
  QueryFrame frame = request.frame;
  if (layout) frame.asked_speakers = AskedSpeakers(frame, *layout);
  diagnostics.frame = DescribeFrame(frame);
  timer.Mark("frame");

  // Plan: route weights and budget from the frame.
  const Plan plan = MakePlan(frame, config, request.options);
  diagnostics.plan = plan.Describe();
  if (!request.word_vectors_missing.empty()) {
    diagnostics.warnings.push_back("word-vector matches off: " + request.word_vectors_missing);
  }
  if (!request.synonyms_missing.empty()) {
    diagnostics.warnings.push_back("synonym matches off: " + request.synonyms_missing);
  }
  const std::size_t token_budget = std::max<std::size_t>(
      1, static_cast<std::size_t>(static_cast<double>(request.options.token_budget) *
                                  plan.budget_scale));
  diagnostics.token_budget = token_budget;

  // The asked routes, or every known route the plan weighs above 0.
  const bool explicit_routes = !request.options.routes.empty();
  const std::vector<std::string> route_names =
      explicit_routes ? request.options.routes : routes.Names();
  std::vector<RouteRun> runs;
  RouteContext context;
  context.frame = &frame;
  context.config = request.config;
  context.text_indexes = request.text_indexes;
  context.vector_indexes = request.vector_indexes;
  context.query_vector = request.query_vector;
  context.layout = layout;
  std::optional<RecallTerms> recall_terms;  // built on a route's first use
  if (layout) {
    recall_terms.emplace(*layout, request.text_indexes, frame.terms, config.bm25);
    context.terms = &*recall_terms;
  }
  context.store = request.store;
  context.scope_ids = request.scope_ids;
  context.limit = config.recall.route_candidates;
  Visibility visibility(request.store, request.options, frame.query_time);
  visibility.KeepExpiredForesight(frame.tense == Tense::kPast);
  context.visibility = &visibility;
  context.word_vectors = request.word_vectors;
  context.word_neighbour_cache = request.word_neighbour_cache;
  for (const std::string& name : route_names) {
    const Route* route = routes.Find(name);
    if (route == nullptr) {
      return Status::InvalidArgument("unknown route \"" + name.substr(0, 64) +
                                     "\" (known: " + KnownRoutes(routes) + ")");
    }
    const double weight = plan.WeightOf(name);
    if (!explicit_routes && weight <= 0) continue;
    RouteDiagnostics route_diagnostics{name, 0, weight, ""};
    StatusOr<std::vector<RouteCandidate>> candidates = route->Run(context);
    if (!candidates.ok()) {
      // A failing route is reported, not fatal: the other routes still answer.
      route_diagnostics.error = candidates.status().ToString();
      diagnostics.warnings.push_back("route " + name +
                                     " failed and was left out: " + route_diagnostics.error);
    } else {
      route_diagnostics.candidates = candidates->size();
      runs.push_back({name, weight, std::move(candidates).value()});
    }
    diagnostics.routes.push_back(std::move(route_diagnostics));
    timer.Mark("route:" + name);
  }

  std::vector<FusedCandidate> fused = FuseWeightedRrf(runs, config.recall.rrf_k);
  diagnostics.fused_candidates = fused.size();
  std::vector<Ranked> ranked;
  ranked.reserve(fused.size());
  for (FusedCandidate& candidate : fused) {
    const double score = candidate.fused_score;
    ranked.push_back({std::move(candidate), score, {}});
  }
  timer.Mark("fusion");

  if (layout) {
    ApplyPersonBoost(ranked, *layout, frame.asked_speakers,
                     frame.first_person && !frame.about_other_party, config.recall.person_boost,
                     config.recall.first_person_boost);
    ApplyAnswerability(ranked, *layout, config.recall, request.tokenizer, frame.terms,
                       request.text_indexes);
    SortRanked(ranked);
    diagnostics.neighbours_added = ExpandNeighbours(ranked, *layout, config.recall);
    SortRanked(ranked);
  }
  if (layout && config.recall.bridge_weight > 0 && request.store != nullptr &&
      routes.graphs() != nullptr && !request.scope_ids.empty()) {
    ASSIGN_OR_RETURN(const std::vector<std::shared_ptr<const ScopeGraph>> graphs,
                     routes.graphs()->Get(*request.store, request.scope_ids, config.bm25.stem));
    diagnostics.bridged = ApplyBridge(ranked, graphs, *layout, config.recall);
    SortRanked(ranked);
  }
  timer.Mark("adjust");

  std::vector<std::int64_t> rows;
  rows.reserve(ranked.size());
  for (const Ranked& candidate : ranked) rows.push_back(candidate.fused.row);
  ASSIGN_OR_RETURN(std::vector<store::NodeRecord> nodes, request.load_nodes(rows));
  std::unordered_map<std::int64_t, const store::NodeRecord*> node_by_row;
  for (const store::NodeRecord& node : nodes) node_by_row[node.row] = &node;
  if (frame.answer_type != AnswerType::kNone) {
    // The stored analyses of the candidate turns the adjustment examines (no re-detection).
    std::unordered_map<std::int64_t, store::TurnAnalysis> analyses;
    if (request.store != nullptr) {
      std::vector<std::int64_t> turn_rows;
      const std::size_t depth = std::min(ranked.size(), config.recall.answer_type_depth);
      for (std::size_t index = 0; index < depth; ++index) {
        const auto found = node_by_row.find(ranked[index].fused.row);
        if (found != node_by_row.end() && found->second->kind == NodeKind::kTurn) {
          turn_rows.push_back(found->first);
        }
      }
      ASSIGN_OR_RETURN(const std::vector<store::TurnAnalysisRecord> records,
                       request.store->GetTurnAnalyses(turn_rows));
      for (const store::TurnAnalysisRecord& record : records) {
        ASSIGN_OR_RETURN(store::TurnAnalysis analysis,
                         store::ParseTurnAnalysis(record, node_by_row.at(record.turn_row)->text));
        analyses.emplace(record.turn_row, std::move(analysis));
      }
    }
    // What the question gives is not what it asks: its names and the conversation's speakers.
    std::vector<std::string> given_names = frame.names;
    if (layout) {
      given_names.insert(given_names.end(), layout->Speakers().begin(), layout->Speakers().end());
    }
    ApplyAnswerType(
        ranked, frame.answer_type,
        [&](std::int64_t row, std::string_view* text, Timestamp* time) {
          const auto found = node_by_row.find(row);
          if (found == node_by_row.end() || found->second->kind != NodeKind::kTurn) return false;
          *text = found->second->text;
          *time = found->second->event_time.value_or(frame.query_time);
          return true;
        },
        config.recall, config.recall.answer_type_tense ? frame.tense : Tense::kUnknown,
        [&](std::int64_t row) -> const store::TurnAnalysis* {
          const auto found = analyses.find(row);
          return found == analyses.end() ? nullptr : &found->second;
        },
        given_names);
    SortRanked(ranked);
    timer.Mark("answer_type");
  }
  // The question's terms with their idf, for coverage, the ranking features and sufficiency.
  const std::vector<index::Bm25QueryTerm> query_weights =
      index::WeighQueryTerms(frame.terms, request.text_indexes);
  if (config.recall.coverage_weight > 0 && layout) {
    ApplyCoverage(ranked, query_weights, *layout, request.text_indexes, config.recall);
    SortRanked(ranked);
    timer.Mark("coverage");
  }

  // The learned ranker (read/learned_ranker.h) re-orders the best candidates by their ranking
  // features; the features are also what a training trace asks for.
  diagnostics.ranker = "fusion";
  if (!request.ranker_missing.empty()) {
    diagnostics.warnings.push_back("learned ranker off, the fused order kept: " +
                                   request.ranker_missing);
  }
  std::unordered_map<std::int64_t, FeatureVector> features_by_row;
  // The model learned the order of the planner's routes and weights: a call that names its own
  // routes or weights gets the fused order of those.
  const bool planned_routes =
      request.options.routes.empty() && request.options.route_weights.empty();
  // Nor has it seen pools smaller than its training's smallest: there too the fused order stays.
  const bool in_range =
      request.ranker != nullptr && diagnostics.fused_candidates >= request.ranker->min_pool();
  const LearnedRanker* ranker = planned_routes && in_range ? request.ranker : nullptr;
  if (request.ranker != nullptr && !planned_routes) {
    diagnostics.ranker = "fusion (the call named its routes or route weights)";
  } else if (request.ranker != nullptr && !in_range) {
    diagnostics.ranker = "fusion (" + std::to_string(diagnostics.fused_candidates) +
                         " fused candidates, fewer than the learned ranker was trained on: " +
                         std::to_string(request.ranker->min_pool()) + ")";
  }
  if (ranker != nullptr || request.options.features) {
    std::map<std::string, double> plan_weights;
    for (const RouteRun& run : runs) plan_weights[run.route] = run.weight;
    const FeatureInput input{.frame = &frame,
                             .layout = layout,
                             .route_weights = &plan_weights,
                             .text_indexes = request.text_indexes,
                             .query_terms = query_weights,
                             .nodes = &node_by_row};
    std::vector<FeatureVector> features =
        ExtractFeatures(ranked, config.recall.ranker_depth, input);
    if (request.options.features) {
      diagnostics.feature_names = FeatureNames();
      for (std::size_t index = 0; index < features.size(); ++index) {
        features_by_row.emplace(ranked[index].fused.row, features[index]);
      }
    }
    if (ranker != nullptr) {
      ApplyLearnedRanker(*ranker, features, ranked, request.options.k);
      diagnostics.ranker = "learned " + ranker->description();
    }
    timer.Mark("ranker");
  }

  // The follow-up recall (read/hop.h), for the shapes the planner turns it on for: the best
  // candidates so far lead a second search; what it adds is loaded like the rest.
  if (plan.hop > 0 && layout && !request.vector_indexes.empty()) {
    ASSIGN_OR_RETURN(const std::size_t hopped,
                     ApplyHop(ranked, request.vector_indexes, request.query_vector, *layout,
                              {.weight = plan.hop,
                               .seeds = config.recall.hop_seeds,
                               .candidates = config.recall.hop_candidates}));
    SortRanked(ranked);
    if (hopped > 0) {
      std::vector<std::int64_t> new_rows;
      for (const Ranked& candidate : ranked) {
        if (!node_by_row.contains(candidate.fused.row)) new_rows.push_back(candidate.fused.row);
      }
      ASSIGN_OR_RETURN(std::vector<store::NodeRecord> hop_nodes, request.load_nodes(new_rows));
      for (store::NodeRecord& node : hop_nodes) nodes.push_back(std::move(node));
      node_by_row.clear();
      for (const store::NodeRecord& node : nodes) node_by_row[node.row] = &node;
    }
    timer.Mark("hop");
  }

  std::vector<RecallItem> items;
  items.reserve(ranked.size());
  for (Ranked& candidate : ranked) {
    const auto found = node_by_row.find(candidate.fused.row);
    Verdict verdict;
    if (found == node_by_row.end()) {
      verdict.filter = kFilterMissing;
      verdict.reason = "row " + std::to_string(candidate.fused.row) + " is no longer stored";
    } else {
      ASSIGN_OR_RETURN(verdict, visibility.CheckWithEvidence(*found->second));
    }
    if (!verdict.shown()) {
      ++diagnostics.filtered_out;
      ++diagnostics.filtered_by[verdict.filter];
      diagnostics.filtered.push_back(
          {found == node_by_row.end() ? "" : found->second->id, verdict.filter, verdict.reason});
      continue;
    }
    RecallItem item = ItemFromNode(*found->second, request.scope_path(found->second->scope_id));
    item.status = verdict.status;  // as recorded at known_at
    item.fused_score = candidate.fused.fused_score;
    item.score = candidate.score;
    item.routes = std::move(candidate.fused.routes);
    item.adjustments = std::move(candidate.adjustments);
    if (const auto found_features = features_by_row.find(candidate.fused.row);
        found_features != features_by_row.end()) {
      item.features = std::move(found_features->second);
    }
    items.push_back(std::move(item));
  }
  if (request.store != nullptr) RETURN_IF_ERROR(ExpandFactProvenance(*request.store, items));
  timer.Mark("filter");

  // Current state (read/current_state.h): superseded claims marked, and in a recall about the
  // present demoted with their successors brought in; contradicted claims shown.
  if (request.store != nullptr && !request.scope_ids.empty() && routes.graphs() != nullptr) {
    ASSIGN_OR_RETURN(const std::vector<std::shared_ptr<const ScopeGraph>> graphs,
                     routes.graphs()->Get(*request.store, request.scope_ids, config.bm25.stem));
    CurrentStateOptions current;
    current.mark_superseded = !request.options.known_at.has_value();
    current.holds = [&visibility](const GraphFact& fact) -> StatusOr<bool> {
      ASSIGN_OR_RETURN(const Verdict verdict, visibility.Check(ViewOfFact(fact)));
      return verdict.shown();
    };
    current.superseded_factor = frame.tense == Tense::kPast ? 1.0 : config.recall.superseded_factor;
    current.visible = [&visibility](const store::NodeRecord& node) -> StatusOr<bool> {
      ASSIGN_OR_RETURN(const Verdict verdict, visibility.CheckWithEvidence(node));
      return verdict.shown();
    };
    current.scope_path = request.scope_path;
    ASSIGN_OR_RETURN(const CurrentStateReport report,
                     ApplyCurrentState(items, graphs, *request.store, request.load_nodes, current));
    diagnostics.superseded = report.superseded;
    diagnostics.successors_added = report.successors_added;
    diagnostics.conflicted = report.conflicts;
    timer.Mark("current_state");
  }

  // Chat mode: the profile and foresight lines come first, within their share of the budget;
  // the evidence gets the rest (read/chat_context.h).
  std::optional<ChatContext> chat;
  std::size_t evidence_budget = token_budget;
  if (request.options.mode == ContextMode::kChat) {
    result.mode = std::string(ContextModeName(ContextMode::kChat));
    if (request.store != nullptr && !request.scope_ids.empty() && routes.graphs() != nullptr &&
        routes.structures() != nullptr) {
      ASSIGN_OR_RETURN(const std::vector<std::shared_ptr<const ScopeGraph>> graphs,
                       routes.graphs()->Get(*request.store, request.scope_ids, config.bm25.stem));
      ASSIGN_OR_RETURN(
          const std::vector<std::shared_ptr<const ScopeStructure>> structures,
          routes.structures()->Get(*request.store, request.scope_ids, ScopeStructureSettings{}));
      const std::size_t chat_budget = std::max<std::size_t>(
          1,
          static_cast<std::size_t>(static_cast<double>(token_budget) * config.recall.chat_share));
      ASSIGN_OR_RETURN(
          chat, BuildChatContext(graphs, structures, frame, visibility,
                                 request.options.valid_at.value_or(frame.query_time), chat_budget));
      evidence_budget = std::max<std::size_t>(1, token_budget - chat->tokens);
      diagnostics.chat = chat->explanation;
    } else {
      diagnostics.chat = "no store to read profiles and foresight from";
    }
    timer.Mark("chat");
  }

  PackOptions pack_options;
  // A question about several people: the context groups each one's evidence.
  if (frame.asked_speakers.size() >= 2) pack_options.group_speakers = frame.asked_speakers;
  // A long turn is excerpted around the words that carry the question's index terms.
  pack_options.excerpt_bytes = config.recall.excerpt_bytes;
  const std::set<std::string> terms(frame.terms.begin(), frame.terms.end());
  if (request.tokenizer != nullptr) {
    pack_options.match_spans = [&terms, &request](std::string_view text) {
      std::vector<std::pair<std::size_t, std::size_t>> spans;
      for (const text::Token& token : request.tokenizer->Tokenize(text)) {
        if (terms.contains(token.term)) spans.emplace_back(token.begin, token.end);
      }
      return spans;
    };
  }
  // Value packing (issue 22): by value per token above a score floor, k an upper bound; the
  // planner's rule for the shape may spread it over sessions.
  if (request.options.pack_by_value.value_or(false)) {
    pack_options.by_value = true;
    pack_options.floor = config.recall.pack_floor;
    pack_options.session_discount = plan.session_discount;
    pack_options.adjacent_share = config.recall.pack_adjacent_share;
    pack_options.min_tokens = config.recall.pack_min_tokens;
    pack_options.score_power = config.recall.pack_score_power;
  }
  PackResult packed = Pack(std::move(items), evidence_budget, request.options.k, pack_options);
  result.items = std::move(packed.items);
  result.context = std::move(packed.context);
  diagnostics.context_tokens = packed.context_tokens;
  if (chat.has_value() && !chat->lines.empty()) {
    result.context = chat->text + (result.context.empty() ? "" : "\n\n" + result.context);
    diagnostics.context_tokens += chat->tokens;
    result.chat = std::move(chat->lines);
  }
  // Does the context hold what the question asks for (read/sufficiency.h)? The strict policy
  // tells the answer model what the check found.
  {
    static const std::vector<std::string> kNoSpeakers;
    result.sufficiency =
        JudgeSufficiency(frame, result.items, query_weights,
                         layout ? layout->Speakers() : kNoSpeakers, request.tokenizer);
    if (request.options.policy == AnswerPolicy::kStrict &&
        result.sufficiency.verdict != "sufficient") {
      std::string reasons;
      for (const std::string& reason : result.sufficiency.reasons) {
        reasons += (reasons.empty() ? "" : "; ") + reason;
      }
      result.answer_instructions += " The memory's own check found the context " +
                                    result.sufficiency.verdict + " (" + reasons +
                                    "): unless the memories state the answer, say that you do "
                                    "not know.";
    }
  }
  diagnostics.dropped_by_budget = packed.dropped_by_budget;
  diagnostics.deduplicated = packed.deduplicated;
  diagnostics.unpacked = std::move(packed.unpacked);
  timer.Mark("pack");

  result.latency_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace engram::read

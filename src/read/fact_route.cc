// The fact-symbolic route and fact provenance (see fact_route.h).
#include "read/fact_route.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <string_view>

#include "index/bm25/bm25.h"
#include "read/visibility.h"
#include "text/normalize.h"

namespace engram::read {
namespace {

// Words that ask about change or history (superseded facts are then proposed too).
constexpr std::array<std::string_view, 12> kHistoryWords = {
    "change",   "changed", "changes", "previous", "previously", "former",
    "formerly", "anymore", "history", "switched", "originally", "before"};

std::vector<std::string> LowerWords(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  for (const char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '\'') {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!word.empty()) {
      words.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

bool AsksHistory(const QueryFrame& frame) {
  if (frame.shape == QueryShape::kOrdering) return true;
  const std::vector<std::string> words = LowerWords(frame.text);
  for (std::size_t index = 0; index < words.size(); ++index) {
    if (std::find(kHistoryWords.begin(), kHistoryWords.end(), words[index]) !=
        kHistoryWords.end()) {
      return true;
    }
    if (words[index] == "used" && index + 1 < words.size() && words[index + 1] == "to") {
      return true;
    }
  }
  return false;
}

}  // namespace

StatusOr<std::vector<RouteCandidate>> FactRoute::Run(const RouteContext& context) const {
  std::vector<RouteCandidate> candidates;
  const QueryFrame& frame = *context.frame;
  if (context.store == nullptr || context.scope_ids.empty() || frame.terms.empty()) {
    return candidates;
  }
  ASSIGN_OR_RETURN(std::vector<std::shared_ptr<const ScopeGraph>> graphs,
                   cache_->Get(*context.store, context.scope_ids, context.config->bm25.stem));

  // Query terms (distinct, in query order) with their BM25 idf over the searched turns.
  const std::vector<index::Bm25QueryTerm> terms =
      index::WeighQueryTerms(frame.terms, context.text_indexes);

  // The persons asked about: the names of the question and the speakers it names (each also by
  // its first word), and "user" for a question in the first person.
  std::vector<std::string> asked;
  for (const std::string& name : frame.names) asked.push_back(NameKey(name));
  for (const std::string& speaker : frame.asked_speakers) {
    const std::string key = NameKey(speaker);
    asked.push_back(key);
    asked.emplace_back(text::FirstKeyWord(key));
  }
  if (frame.first_person) asked.emplace_back("user");
  const bool names_someone = !frame.names.empty() || !frame.asked_speakers.empty();
  const bool history = AsksHistory(frame);
  const bool when = frame.shape == QueryShape::kWhen;

  struct Scored {
    std::int64_t row;
    double score;
    std::string explanation;
  };
  std::vector<Scored> scored;
  // An as-of recall proposes the facts its filters show (valid at valid_at, known by known_at,
  // with the status recorded then); "current" then means at valid_at.
  const Visibility* as_of =
      context.visibility != nullptr && context.visibility->as_of() ? context.visibility : nullptr;
  const Timestamp current_time =
      as_of != nullptr ? as_of->valid_at().value_or(frame.query_time) : frame.query_time;
  for (const auto& graph : graphs) {
    for (const GraphFact& fact : graph->facts) {
      NodeStatus status = fact.status;
      std::optional<Timestamp> valid_to = fact.valid_to;
      if (as_of != nullptr) {
        ASSIGN_OR_RETURN(const Verdict verdict,
                         as_of->Check({.id = fact.id,
                                       .kind = NodeKind::kFact,
                                       .status = fact.status,
                                       .valid_from = fact.valid_from,
                                       .valid_to = fact.valid_to,
                                       .ingested_at = fact.ingested_at,
                                       .updated_at = fact.updated_at}));
        if (!verdict.shown()) continue;
        status = verdict.status;
        valid_to = verdict.valid_to;
      }
      const bool valid_then = as_of != nullptr && as_of->valid_at().has_value();
      if (status == NodeStatus::kSuperseded) {
        if (!history && !valid_then) continue;
      } else if (status != NodeStatus::kActive && !valid_then) {
        continue;
      }
      if (frame.current && ((status != NodeStatus::kActive && !valid_then) ||
                            (valid_to && *valid_to <= current_time) ||
                            (fact.valid_from && current_time < *fact.valid_from))) {
        continue;
      }
      double overlap = 0;
      std::string matched;
      for (const index::Bm25QueryTerm& term : terms) {
        if (!std::binary_search(fact.terms.begin(), fact.terms.end(), term.term)) continue;
        overlap += term.idf;
        char part[96];
        std::snprintf(part, sizeof part, "%s%s(idf %.2f)", matched.empty() ? "" : " + ",
                      term.term.c_str(), term.idf);
        matched += part;
      }
      if (overlap <= 0) continue;
      double subject = 1.0;
      std::string subject_note;
      const bool subject_asked =
          std::find(asked.begin(), asked.end(), fact.subject_key) != asked.end() ||
          std::find(asked.begin(), asked.end(), text::FirstKeyWord(fact.subject_key)) !=
              asked.end();
      if (subject_asked) {
        subject = context.config->recall.facts_asked_subject;
        subject_note = "; subject asked";
      } else if (names_someone || frame.first_person) {
        subject = context.config->recall.facts_other_subject;
        subject_note = "; subject not asked";
      }
      double fit = 1.0;
      std::string fit_note;
      if (when && !fact.has_time) {
        fit = context.config->recall.facts_untimed_when;
        fit_note = "; when without a time";
      }
      if (status == NodeStatus::kSuperseded) {
        fit_note +=
            valid_then ? "; superseded since, valid at valid_at" : "; superseded (history asked)";
      }
      const double score = overlap * subject * fit;
      char head[64];
      std::snprintf(head, sizeof head, "%.2f = (", score);
      char factors[64];
      std::snprintf(factors, sizeof factors, ") x %g x %g", subject, fit);
      scored.push_back({fact.row, score,
                        "fact " + fact.subject + " " + fact.predicate + " \"" + fact.object +
                            "\": " + head + matched + factors + subject_note + fit_note});
    }
  }
  std::sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
    if (a.score != b.score) return a.score > b.score;
    return a.row < b.row;
  });
  if (scored.size() > context.limit) scored.resize(context.limit);
  candidates.reserve(scored.size());
  for (Scored& entry : scored) {
    candidates.push_back({entry.row, entry.score, std::move(entry.explanation)});
  }
  return candidates;
}

Status ExpandFactProvenance(store::Store& store, std::vector<RecallItem>& items) {
  for (RecallItem& item : items) {
    if (item.kind != NodeKind::kFact || !item.provenance.empty()) continue;
    ASSIGN_OR_RETURN(std::vector<store::EdgeRecord> edges,
                     store.EdgesOf(item.id, store::EdgeDirection::kOutgoing, "derived_from"));
    std::vector<std::pair<std::int64_t, std::string>> turns;  // (sequence, id)
    for (const store::EdgeRecord& edge : edges) {
      if (edge.status != "active" || edge.src != item.id) continue;
      StatusOr<store::NodeRecord> node = store.GetNode(edge.dst);
      if (!node.ok()) {
        if (node.status().code() == StatusCode::kNotFound) continue;
        return node.status();
      }
      if (node->kind == NodeKind::kTurn) turns.emplace_back(node->sequence, node->id);
    }
    std::sort(turns.begin(), turns.end());
    turns.erase(std::unique(turns.begin(), turns.end()), turns.end());
    for (auto& [sequence, id] : turns) item.provenance.push_back(std::move(id));
  }
  return Status::Ok();
}

}  // namespace engram::read

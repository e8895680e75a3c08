// Keyword route (see keyword_route.h).
#include "read/keyword_route.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <unordered_map>

#include "index/bm25/bm25.h"

namespace engram::read {
namespace {

// One form of a keyword: its own term (synonym = false) or one of its synonyms.
struct Form {
  std::string term;
  bool synonym = false;
  double idf = 0;
  double contribution = 0;  // idf, × keyword_synonym_weight for a synonym
};

struct KeywordNode {
  std::string term;  // the keyword's own term, for the explanation
  std::vector<Form> forms;
};

void AppendNumber(std::string& out, double value) {
  char buffer[64];
  const auto result =
      std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::fixed, 2);
  out.append(buffer, result.ptr);
}

// Better form for a turn: higher contribution; ties: the earlier form (own term first).
bool Better(const KeywordNode& node, int candidate, int current) {
  if (current < 0) return true;
  const double a = node.forms[candidate].contribution;
  const double b = node.forms[current].contribution;
  return a > b || (a == b && candidate < current);
}

}  // namespace

StatusOr<std::vector<RouteCandidate>> KeywordRoute::Run(const RouteContext& context) const {
  std::vector<RouteCandidate> candidates;
  const QueryFrame& frame = *context.frame;
  if (frame.keywords.empty() || context.text_indexes.empty() || context.limit == 0) {
    return candidates;
  }
  const double synonym_weight = context.config->recall.keyword_synonym_weight;

  std::uint64_t doc_count = 0;
  for (const index::Bm25Index* index : context.text_indexes) {
    if (index != nullptr) doc_count += index->doc_count();
  }
  if (doc_count == 0) return candidates;
  auto document_frequency = [&](const std::string& term) {
    std::uint64_t df = 0;
    for (const index::Bm25Index* index : context.text_indexes) {
      if (index != nullptr) df += index->DocumentFrequency(term);
    }
    return df;
  };

  // The keyword graph's nodes: each form belongs to the first keyword that has it.
  std::vector<KeywordNode> nodes;
  std::set<std::string> taken;
  for (const Keyword& keyword : frame.keywords) taken.insert(keyword.term);
  for (const Keyword& keyword : frame.keywords) {
    KeywordNode node;
    node.term = keyword.term;
    node.forms.push_back({keyword.term, false, 0, 0});
    for (const std::string& synonym : keyword.synonyms) {
      if (taken.insert(synonym).second) node.forms.push_back({synonym, true, 0, 0});
    }
    for (Form& form : node.forms) {
      form.idf = index::Bm25Idf(doc_count, document_frequency(form.term));
      form.contribution = form.synonym ? synonym_weight * form.idf : form.idf;
    }
    nodes.push_back(std::move(node));
  }
  const std::size_t required = std::min<std::size_t>(2, nodes.size());

  // Edges keyword -> turn: for every turn, the best matched form of each keyword (-1: none).
  std::unordered_map<std::uint64_t, std::vector<int>> matches;  // lookups only, never iterated
  std::vector<std::uint64_t> docs;                              // in order of first match
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const KeywordNode& node = nodes[k];
    for (std::size_t f = 0; f < node.forms.size(); ++f) {
      for (const index::Bm25Index* index : context.text_indexes) {
        if (index == nullptr) continue;
        for (const index::Bm25Posting& posting : index->Postings(node.forms[f].term)) {
          auto [it, inserted] = matches.try_emplace(posting.doc);
          if (inserted) {
            it->second.assign(nodes.size(), -1);
            docs.push_back(posting.doc);
          }
          int& best = it->second[k];
          if (Better(node, static_cast<int>(f), best)) best = static_cast<int>(f);
        }
      }
    }
  }

  // Intersection filter and scores.
  struct Scored {
    std::uint64_t doc = 0;
    double score = 0;
  };
  std::vector<Scored> scored;
  for (std::uint64_t doc : docs) {
    const std::vector<int>& best = matches.at(doc);
    std::size_t matched = 0;
    double score = 0;
    for (std::size_t k = 0; k < nodes.size(); ++k) {
      if (best[k] < 0) continue;
      ++matched;
      score += nodes[k].forms[best[k]].contribution;
    }
    if (matched >= required) scored.push_back({doc, score});
  }
  std::sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
    return a.score > b.score || (a.score == b.score && a.doc < b.doc);
  });
  if (scored.size() > context.limit) scored.resize(context.limit);

  candidates.reserve(scored.size());
  for (const Scored& hit : scored) {
    const std::vector<int>& best = matches.at(hit.doc);
    std::string explanation = "keyword ";
    AppendNumber(explanation, hit.score);
    explanation += " =";
    std::size_t matched = 0;
    for (std::size_t k = 0; k < nodes.size(); ++k) {
      if (best[k] < 0) continue;
      const Form& form = nodes[k].forms[best[k]];
      explanation += matched++ ? " + " : " ";
      if (form.synonym) {
        explanation += form.term + "~" + nodes[k].term + "(synonym, idf ";
        AppendNumber(explanation, form.idf);
        explanation += " x ";
        AppendNumber(explanation, synonym_weight);
        explanation += ", ";
        AppendNumber(explanation, form.contribution);
        explanation += ")";
      } else {
        explanation += form.term + "(idf ";
        AppendNumber(explanation, form.idf);
        explanation += ")";
      }
    }
    explanation +=
        " [" + std::to_string(matched) + " of " + std::to_string(nodes.size()) + " keywords]";
    candidates.push_back({static_cast<std::int64_t>(hit.doc), hit.score, std::move(explanation)});
  }
  return candidates;
}

}  // namespace engram::read

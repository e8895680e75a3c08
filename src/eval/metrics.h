// metrics: the retrieval-quality arithmetic of `engram bench` (DESIGN §11, bench/README.md), kept
// free of I/O so each formula can be tested against hand-computed values.
//
// Everything is computed on a *turn ranking*: the provenance turns of a recall's items, in item
// rank order, duplicates removed (TurnRanking). A fact or episode citing five turns fills five
// slots, so no route can win by returning huge items. Turns are then named by a benchmark key
// (LoCoMo dia_id "D1:3", LongMemEval "<session_id>:<turn_index>") before the metrics see them.
//
//   std::vector<std::string> turns = TurnRanking(result.items);         // turn ids
//   std::vector<std::string> keys = ...map each id to its dia_id...;
//   double r10 = RecallAtK(keys, gold, 10);
//
// Conventions: ranks are 1-based; gold lists are treated as sets (duplicates ignored); a gold
// id that never appears in the ranking (not retrieved, or absent from the data) still counts in
// the denominators. An empty gold set gives 0 for every metric (callers skip such questions).
#ifndef ENGRAM_EVAL_METRICS_H_
#define ENGRAM_EVAL_METRICS_H_

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engram/read_result.h"

namespace engram::eval {

// The provenance turn ids of `items` in item order, each kept at its first appearance.
std::vector<std::string> TurnRanking(std::span<const RecallItem> items);

// `ranking` with each element replaced by key_of(element) and later repeats of a key removed;
// an element for which key_of returns nullopt keeps its own text (it still occupies a slot).
std::vector<std::string> MapRanking(
    std::span<const std::string> ranking,
    const std::function<std::optional<std::string>(const std::string&)>& key_of);

// 1-based rank of the first element of `ranking` that is in `gold`, or nullopt.
std::optional<std::size_t> FirstRelevantRank(std::span<const std::string> ranking,
                                             std::span<const std::string> gold);

// |gold ∩ top-k| / |gold|.
double RecallAtK(std::span<const std::string> ranking, std::span<const std::string> gold,
                 std::size_t k);
// 1 if any gold id is in the top k, else 0.
double HitAtK(std::span<const std::string> ranking, std::span<const std::string> gold,
              std::size_t k);
// 1 / rank of the first gold id if it is within the top k, else 0.
double MrrAtK(std::span<const std::string> ranking, std::span<const std::string> gold,
              std::size_t k);
// LongMemEval's recall_any@k (== HitAtK) and recall_all@k: 1 if every gold id is in the top k.
double RecallAnyAtK(std::span<const std::string> ranking, std::span<const std::string> gold,
                    std::size_t k);
double RecallAllAtK(std::span<const std::string> ranking, std::span<const std::string> gold,
                    std::size_t k);

// Binary-relevance NDCG@k as LongMemEval's official eval_utils.py computes it:
//   DCG@k  = rel_1 + Σ_{i=2..k} rel_i / log2(i)        (i = 1-based rank; rel_i ∈ {0, 1})
//   IDCG@k = the same sum for a ranking that puts every gold id first, i.e. over
//            min(|gold|, k) relevant positions
//   NDCG@k = DCG@k / IDCG@k.
// Note the discount: ranks 1 and 2 both weigh 1 (the official code's `rel[0] + Σ rel[1:] /
// log2(arange(2, n + 1))`), unlike the textbook 1 / log2(i + 1).
double NdcgAnyAtK(std::span<const std::string> ranking, std::span<const std::string> gold,
                  std::size_t k);

// Order in which groups (sessions) first appear in a ranking of turns: element i of the result
// is the group of the i-th distinct group met. Turns whose group_of is nullopt are skipped.
std::vector<std::string> GroupRanking(
    std::span<const std::string> ranking,
    const std::function<std::optional<std::string>(const std::string&)>& group_of);

// Evidence in the context (issue 22): what the answering model sees is the packed context, not
// the ranking. Given the benchmark keys of the turns a context holds (`packed`, any order) and
// the gold evidence keys: `all` = 1 when every distinct gold key is packed, `any` = 1 when at
// least one is. An empty gold set gives 0 for both (callers skip such questions).
struct EvidenceInContext {
  double all = 0;
  double any = 0;
};
EvidenceInContext EvidenceIn(std::span<const std::string> packed,
                             std::span<const std::string> gold);

// The answer normalisation of LoCoMo's scorer (task_eval/evaluation.py normalize_answer):
// commas removed, ASCII lowercase, ASCII punctuation removed, the words "a", "an", "the" and
// "and" removed, whitespace runs collapsed to one space and trimmed. Bytes outside ASCII are
// kept as they are (the scorer's Python lower() also folds non-ASCII letters; the dev answers
// are ASCII).
std::string NormalizeAnswer(std::string_view text);

// True when the normalised `answer` is not empty and occurs in the normalised `text` as a run
// of whole words: the proxy "the gold answer string is in the context".
bool AnswerInText(std::string_view answer, std::string_view text);

// Percentile p (0..100) of `values` with linear interpolation between closest ranks (numpy's
// default): position p/100 · (n − 1) of the sorted values. 0 for an empty input.
double Percentile(std::vector<double> values, double p);
double Mean(std::span<const double> values);

}  // namespace engram::eval

#endif  // ENGRAM_EVAL_METRICS_H_

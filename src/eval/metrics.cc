// Retrieval metrics (see metrics.h).
#include "eval/metrics.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>
#include <set>

namespace engram::eval {
namespace {

std::set<std::string> AsSet(std::span<const std::string> ids) {
  return std::set<std::string>(ids.begin(), ids.end());
}

// How many distinct gold ids are among the first k elements of the ranking.
std::size_t GoldInTopK(std::span<const std::string> ranking, const std::set<std::string>& gold,
                       std::size_t k) {
  std::set<std::string> found;
  const std::size_t depth = std::min(k, ranking.size());
  for (std::size_t rank_idx = 0; rank_idx < depth; ++rank_idx) {
    if (gold.contains(ranking[rank_idx])) found.insert(ranking[rank_idx]);
  }
  return found.size();
}

// Discount of 1-based rank i in LongMemEval's DCG: 1 for ranks 1 and 2, 1 / log2(i) after.
double Discount(std::size_t rank) {
  return rank <= 2 ? 1.0 : 1.0 / std::log2(static_cast<double>(rank));
}

}  // namespace

std::vector<std::string> TurnRanking(std::span<const RecallItem> items) {
  std::vector<std::string> ranking;
  std::set<std::string> seen;
  for (const RecallItem& item : items) {
    for (const std::string& turn_id : item.provenance) {
      if (seen.insert(turn_id).second) ranking.push_back(turn_id);
    }
  }
  return ranking;
}

std::vector<std::string> MapRanking(
    std::span<const std::string> ranking,
    const std::function<std::optional<std::string>(const std::string&)>& key_of) {
  std::vector<std::string> keys;
  std::set<std::string> seen;
  for (const std::string& element : ranking) {
    std::string key = key_of(element).value_or(element);
    if (seen.insert(key).second) keys.push_back(std::move(key));
  }
  return keys;
}

std::optional<std::size_t> FirstRelevantRank(std::span<const std::string> ranking,
                                             std::span<const std::string> gold) {
  const std::set<std::string> gold_set = AsSet(gold);
  for (std::size_t rank_idx = 0; rank_idx < ranking.size(); ++rank_idx) {
    if (gold_set.contains(ranking[rank_idx])) return rank_idx + 1;
  }
  return std::nullopt;
}

double RecallAtK(std::span<const std::string> ranking, std::span<const std::string> gold,
                 std::size_t k) {
  const std::set<std::string> gold_set = AsSet(gold);
  if (gold_set.empty()) return 0;
  return static_cast<double>(GoldInTopK(ranking, gold_set, k)) /
         static_cast<double>(gold_set.size());
}

double HitAtK(std::span<const std::string> ranking, std::span<const std::string> gold,
              std::size_t k) {
  const std::set<std::string> gold_set = AsSet(gold);
  return GoldInTopK(ranking, gold_set, k) > 0 ? 1.0 : 0.0;
}

double MrrAtK(std::span<const std::string> ranking, std::span<const std::string> gold,
              std::size_t k) {
  const std::optional<std::size_t> rank = FirstRelevantRank(ranking, gold);
  if (!rank.has_value() || *rank > k) return 0;
  return 1.0 / static_cast<double>(*rank);
}

double RecallAnyAtK(std::span<const std::string> ranking, std::span<const std::string> gold,
                    std::size_t k) {
  return HitAtK(ranking, gold, k);
}

double RecallAllAtK(std::span<const std::string> ranking, std::span<const std::string> gold,
                    std::size_t k) {
  const std::set<std::string> gold_set = AsSet(gold);
  if (gold_set.empty()) return 0;
  return GoldInTopK(ranking, gold_set, k) == gold_set.size() ? 1.0 : 0.0;
}

double NdcgAnyAtK(std::span<const std::string> ranking, std::span<const std::string> gold,
                  std::size_t k) {
  const std::set<std::string> gold_set = AsSet(gold);
  if (gold_set.empty() || k == 0) return 0;
  double dcg = 0;
  std::set<std::string> counted;  // a gold id counts once, at its first position
  const std::size_t depth = std::min(k, ranking.size());
  for (std::size_t rank_idx = 0; rank_idx < depth; ++rank_idx) {
    if (gold_set.contains(ranking[rank_idx]) && counted.insert(ranking[rank_idx]).second) {
      dcg += Discount(rank_idx + 1);
    }
  }
  double ideal_dcg = 0;
  const std::size_t ideal_depth = std::min(k, gold_set.size());
  for (std::size_t rank = 1; rank <= ideal_depth; ++rank) ideal_dcg += Discount(rank);
  return dcg / ideal_dcg;
}

std::vector<std::string> GroupRanking(
    std::span<const std::string> ranking,
    const std::function<std::optional<std::string>(const std::string&)>& group_of) {
  std::vector<std::string> groups;
  std::set<std::string> seen;
  for (const std::string& element : ranking) {
    std::optional<std::string> group = group_of(element);
    if (!group.has_value()) continue;
    if (seen.insert(*group).second) groups.push_back(std::move(*group));
  }
  return groups;
}

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double position =
      std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(values.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(position));
  const std::size_t upper = std::min(lower + 1, values.size() - 1);
  const double fraction = position - static_cast<double>(lower);
  return values[lower] + (values[upper] - values[lower]) * fraction;
}

double Mean(std::span<const double> values) {
  if (values.empty()) return 0;
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

EvidenceInContext EvidenceIn(std::span<const std::string> packed,
                             std::span<const std::string> gold) {
  const std::set<std::string> gold_set = AsSet(gold);
  if (gold_set.empty()) return {};
  const std::set<std::string> packed_set = AsSet(packed);
  std::size_t found = 0;
  for (const std::string& key : gold_set) found += packed_set.contains(key) ? 1 : 0;
  return {.all = found == gold_set.size() ? 1.0 : 0.0, .any = found > 0 ? 1.0 : 0.0};
}

std::string NormalizeAnswer(std::string_view text) {
  // lower, then punctuation out (commas included), then articles out, then whitespace fixed:
  // the scorer's order. Words are split on ASCII whitespace.
  std::vector<std::string> words;
  std::string word;
  const auto flush = [&] {
    if (!word.empty() && word != "a" && word != "an" && word != "the" && word != "and") {
      words.push_back(word);
    }
    word.clear();
  };
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x80 && std::isspace(byte)) {
      flush();
    } else if (byte < 0x80 && std::ispunct(byte)) {
      continue;  // removed without splitting the word ("don't" -> "dont", "1:56" -> "156")
    } else {
      word += byte < 0x80 ? static_cast<char>(std::tolower(byte)) : c;
    }
  }
  flush();
  std::string out;
  for (const std::string& normalized : words) {
    if (!out.empty()) out += ' ';
    out += normalized;
  }
  return out;
}

bool AnswerInText(std::string_view answer, std::string_view text) {
  const std::string needle = NormalizeAnswer(answer);
  if (needle.empty()) return false;
  const std::string haystack = " " + NormalizeAnswer(text) + " ";
  return haystack.find(" " + needle + " ") != std::string::npos;
}

}  // namespace engram::eval

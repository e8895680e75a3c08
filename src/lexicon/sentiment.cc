// VADER-style compound sentiment (see sentiment.h).
#include "lexicon/sentiment.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

namespace engram::lexicon {
namespace {

constexpr double kCapsEmphasis = 0.733;
constexpr double kDegreeShift = 0.293;
constexpr double kNegationScale = -0.74;
constexpr double kExclamationShift = 0.292;
constexpr double kNormalizationAlpha = 15.0;

constexpr std::array<std::string_view, 40> kIncreasers = {
    "absolutely", "amazingly",   "awfully",     "completely", "considerably", "decidedly",
    "deeply",     "enormously",  "entirely",    "especially", "exceptionally", "extremely",
    "fabulously", "greatly",     "highly",      "hugely",     "incredibly",   "intensely",
    "majorly",    "more",        "most",        "particularly", "purely",     "quite",
    "really",     "remarkably",  "so",          "substantially", "thoroughly", "totally",
    "tremendously", "uber",      "unbelievably", "unusually", "utterly",      "very",
    "super",      "truly",       "insanely",    "seriously"};
constexpr std::array<std::string_view, 14> kDecreasers = {
    "almost", "barely",  "hardly",   "just",     "less",      "little",    "marginally",
    "occasionally", "partly", "scarcely", "slightly", "somewhat", "sorta", "kinda"};
constexpr std::array<std::string_view, 24> kNegations = {
    "not",     "no",      "never",   "none",    "nope",     "nor",     "nothing", "nowhere",
    "neither", "without", "cannot",  "cant",    "dont",     "doesnt",  "didnt",   "isnt",
    "wasnt",   "arent",   "werent",  "wont",    "wouldnt",  "shouldnt", "couldnt", "aint"};

template <std::size_t N>
bool In(const std::array<std::string_view, N>& list, std::string_view word) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

bool IsPunct(char c) {
  return c != '\'' && std::ispunct(static_cast<unsigned char>(c)) != 0;
}

std::string Lower(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return lower;
}

bool IsAllCaps(std::string_view word) {
  bool letter = false;
  for (const char c : word) {
    if (c >= 'a' && c <= 'z') return false;
    if (c >= 'A' && c <= 'Z') letter = true;
  }
  return letter;
}

struct Token {
  std::string lower;  // lexicon key
  bool all_caps = false;
};

bool IsNegation(std::string_view lower) {
  if (In(kNegations, lower)) return true;
  return lower.size() > 3 && lower.ends_with("n't");
}

}  // namespace

double SentimentCompound(const Lexicons& lexicons, std::string_view text) {
  std::vector<Token> tokens;
  std::size_t start = 0;
  while (start < text.size()) {
    while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start])) != 0) {
      ++start;
    }
    std::size_t end = start;
    while (end < text.size() && std::isspace(static_cast<unsigned char>(text[end])) == 0) ++end;
    if (end == start) break;
    std::string_view raw = text.substr(start, end - start);
    start = end;
    std::string lower = Lower(raw);
    if (!lexicons.Valence(lower).has_value()) {
      while (!raw.empty() && IsPunct(raw.front())) raw.remove_prefix(1);
      while (!raw.empty() && IsPunct(raw.back())) raw.remove_suffix(1);
      lower = Lower(raw);
    }
    if (lower.size() <= 1) continue;
    tokens.push_back({std::move(lower), IsAllCaps(raw)});
  }
  const bool mixed_case =
      std::any_of(tokens.begin(), tokens.end(), [](const Token& t) { return !t.all_caps; });

  std::size_t but_index = tokens.size();
  for (std::size_t index = 0; index < tokens.size(); ++index) {
    if (tokens[index].lower == "but") {
      but_index = index;
      break;
    }
  }

  double sum = 0.0;
  for (std::size_t index = 0; index < tokens.size(); ++index) {
    const Token& token = tokens[index];
    if (In(kIncreasers, token.lower) || In(kDecreasers, token.lower)) continue;
    const std::optional<float> found = lexicons.Valence(token.lower);
    if (!found.has_value()) continue;
    double valence = *found;
    if (token.all_caps && mixed_case) valence += valence > 0 ? kCapsEmphasis : -kCapsEmphasis;
    for (std::size_t back = 1; back <= 3 && back <= index; ++back) {
      const Token& before = tokens[index - back];
      double shift = 0.0;
      if (In(kIncreasers, before.lower)) shift = kDegreeShift;
      if (In(kDecreasers, before.lower)) shift = -kDegreeShift;
      if (shift != 0.0) {
        if (valence < 0) shift = -shift;
        if (before.all_caps && mixed_case) shift += shift > 0 ? kCapsEmphasis : -kCapsEmphasis;
        const double scale = back == 1 ? 1.0 : back == 2 ? 0.95 : 0.9;
        valence += shift * scale;
      }
    }
    for (std::size_t back = 1; back <= 3 && back <= index; ++back) {
      if (IsNegation(tokens[index - back].lower)) {
        valence *= kNegationScale;
        break;
      }
    }
    if (but_index < tokens.size()) {
      if (index < but_index) valence *= 0.5;
      if (index > but_index) valence *= 1.5;
    }
    sum += valence;
  }
  if (sum != 0.0) {
    const auto exclamations =
        std::min<std::ptrdiff_t>(4, std::count(text.begin(), text.end(), '!'));
    const double emphasis = kExclamationShift * static_cast<double>(exclamations);
    sum += sum > 0 ? emphasis : -emphasis;
  }
  const double compound = sum / std::sqrt(sum * sum + kNormalizationAlpha);
  return std::clamp(compound, -1.0, 1.0);
}

}  // namespace engram::lexicon

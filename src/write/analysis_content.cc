// DMF content signals (see analysis_content.h).
#include "write/analysis_content.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "lexicon/sentiment.h"

namespace engram::write {
namespace {

constexpr std::array<std::string_view, 16> kAuxiliaries = {
    "be",  "am",   "is",   "are",    "was", "were", "been", "being",
    "have", "has", "had", "having", "do",  "does", "did",  "doing"};

// Phatic words DMF's parser tags INTJ, whatever the POS lexicon's first tag says ("thanks" NNS).
constexpr std::array<std::string_view, 27> kInterjections = {
    "ok",  "okay", "thanks", "thank", "yes",  "yeah", "yep",  "yup",     "no",
    "nope", "hi",  "hello",  "hey",   "bye",  "goodbye", "wow", "oh",    "ah",
    "aw",  "haha", "lol",    "hmm",   "um",   "uh",   "please", "alright", "sure"};

bool IsContent(const text::Lexeme& lexeme, std::string_view surface,
               const lexicon::Lexicons& lexicons) {
  using lexicon::WordClass;
  if (lexeme.kind == text::LexemeKind::kNumber) return false;
  if (lexeme.kind == text::LexemeKind::kAlnum) return true;
  std::string_view word = lexeme.lower;
  if (std::find(kAuxiliaries.begin(), kAuxiliaries.end(), word) != kAuxiliaries.end() ||
      std::find(kInterjections.begin(), kInterjections.end(), word) != kInterjections.end()) {
    return false;
  }
  lexicon::PosInfo info = lexicons.Pos(surface);
  if (!info.found) {
    if (const std::size_t apostrophe = word.find('\''); apostrophe != std::string_view::npos) {
      // Possessives count as their noun ("Caroline's"); other contractions are function words.
      if (word.substr(apostrophe) != "'s") return false;
      surface = surface.substr(0, apostrophe);
      info = lexicons.Pos(surface);
      if (!info.found) return true;
    } else {
      return true;  // unknown: a noun or a name
    }
  }
  switch (info.primary) {
    case WordClass::kNoun:
    case WordClass::kProperNoun:
    case WordClass::kVerb:
    case WordClass::kAdjective:
      return true;
    default:
      return false;
  }
}

double Round4(double value) { return std::round(value * 10000.0) / 10000.0; }

}  // namespace

ContentSignals ComputeContentSignals(std::string_view text,
                                     const std::vector<text::Lexeme>& lexemes,
                                     const lexicon::Lexicons& lexicons, std::size_t entity_count,
                                     std::size_t entity_cap) {
  ContentSignals signals;
  for (const text::Lexeme& lexeme : lexemes) {
    if (lexeme.kind == text::LexemeKind::kPunct) continue;
    ++signals.tokens;
    const std::string_view surface = text.substr(lexeme.begin, lexeme.end - lexeme.begin);
    if (IsContent(lexeme, surface, lexicons)) ++signals.content_tokens;
  }
  if (signals.tokens > 0) {
    signals.information_density = Round4(static_cast<double>(signals.content_tokens) /
                                         static_cast<double>(signals.tokens));
  }
  signals.sentiment_compound = Round4(lexicon::SentimentCompound(lexicons, text));
  signals.sentiment = std::abs(signals.sentiment_compound);
  signals.entity_count = entity_count;
  const std::size_t cap = std::max<std::size_t>(entity_cap, 1);
  signals.entity_norm =
      Round4(static_cast<double>(std::min(entity_count, cap)) / static_cast<double>(cap));
  return signals;
}

}  // namespace engram::write

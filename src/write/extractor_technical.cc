// The technical rule family of the rule extractor (rule_extractor.h): tools and versions in use
// ("I'm using Python 3.11") and settings ("I set the theme to dark").
#include "write/rule_extractor.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace engram::write::rule_extractor {

// "I'm using Python 3.11", "we use Postgres", "I'm not using Docker", "set the timeout to 30s".
void Extractor::Technical() {
  for (std::size_t k = 0; k < words_.size(); ++k) {
    const std::size_t v0 = VerbAfterSubject(k);
    if (v0 == std::string::npos) continue;
    std::size_t v = v0;
    bool negated = false;
    if (In(At(v), {"am", "are"})) ++v;
    if (In(At(v), {"do", "am", "are"}) && Is(v + 1, "not")) {
      negated = true;
      v += 2;
    } else if (Is(v, "not")) {
      negated = true;
      ++v;
    } else if (Is(v, "no") && Is(v + 1, "longer")) {
      negated = true;
      v += 2;
    } else if (Is(v, "stopped") && Is(v + 1, "using")) {
      negated = true;
      v += 1;
    }
    const bool progressive = v > v0 && (In(At(v0), {"am", "are"}));
    if (!(In(At(v), {"use", "using", "run", "running"}) ||
          (progressive && Is(v, "using")))) {
      // "set the X to Y"
      if (!negated && In(At(v), {"set", "changed"}) && v + 1 < words_.size()) {
        std::size_t x = v + 1;
        if (In(At(x), {"the", "my", "our"})) ++x;
        std::size_t to = x;
        while (to < words_.size() && to - x < 3 && !Is(to, "to")) ++to;
        if (!Is(to, "to") || to == x) continue;
        const auto [begin, end] = ObjectFrom(to + 1, {"for", "because"});
        if (begin == end) continue;
        std::string setting = NormalizeFactText(Span(words_[x].begin, words_[to - 1].end));
        Add("setting_" + Snake(setting), begin, end,
                                  FactKind::kTechnical, words_[k].begin);
      }
      continue;
    }
    if (In(At(v), {"use", "run"}) && In(At(v0), {"am", "are"})) continue;
    const auto [begin, end] = ObjectFrom(v + 1, {"for", "to", "with", "on", "at", "in"});
    if (begin == end) continue;
    const std::string object = NormalizeFactText(Span(begin, end));
    if (IsPronounObject(object)) continue;
    // Tools have names: require a capital, a digit or a version signal in the object, so "I
    // use my phone" or "running late" stay out.
    bool named = false;
    for (const Word& word : words_) {
      if (word.begin >= begin && word.end <= end && !word.punct &&
          (word.capitalized || std::isdigit(static_cast<unsigned char>(word.text[0])))) {
        named = true;
      }
    }
    if (!named) continue;
    FactCandidate& fact = Add("uses", begin, end, FactKind::kTechnical, words_[k].begin);
    fact.negated = negated;
    fact.time.reset();
  }
}

}  // namespace engram::write::rule_extractor

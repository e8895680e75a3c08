// The event rule family of the rule extractor (rule_extractor.h): things the speaker did at a
// time ("I went to Rome last week"), with the sentence's resolved time.
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

// First-person subject at k followed by adverbs: the index of the verb, or npos.
// A first-person subject at k that opens a clause ("Yesterday I went", "..., and I went"), not
// one inside a relative clause ("a post I made"): the index of its verb, or npos.
std::size_t Extractor::VerbAfterSubject(std::size_t k) const {
  if (!IsFirstPerson(At(k))) return std::string::npos;
  if (k > 0 && !words_[k - 1].punct && !InTime(words_[k - 1].begin) &&
      !In(words_[k - 1].text,
          {"and", "but", "so", "then", "also", "actually", "recently", "finally", "just",
           "anyway", "well", "oh", "yeah", "yes", "wow", "haha", "lol", "hey", "because",
           "cause", "since", "when", "while", "after", "before", "now", "today", "tonight",
           "yesterday", "tomorrow", "lately", "anyways", "btw", "ok", "okay", "plus", "though",
           "honestly", "basically", "sometimes", "usually", "guess", "think", "hopefully"})) {
    return std::string::npos;
  }
  return SkipAdverbs(k + 1);
}

// "I went to X", "we adopted a puppy", "I graduated from X" (+ a time, checked by the
// validator).
void Extractor::Events() {
  struct EventVerb {
    std::string_view verb;
    std::string_view particle;  // required next word, or empty
    std::string_view predicate;
  };
  static constexpr std::array<EventVerb, 36> kVerbs = {{
      {"went", "to", "went_to"},          {"visited", "", "visited"},
      {"adopted", "", "adopted"},         {"bought", "", "bought"},
      {"started", "", "started"},         {"joined", "", "joined"},
      {"finished", "", "finished"},       {"graduated", "from", "graduated_from"},
      {"attended", "", "attended"},       {"ran", "", "ran"},
      {"met", "", "met"},                 {"traveled", "to", "traveled_to"},
      {"travelled", "to", "traveled_to"}, {"flew", "to", "flew_to"},
      {"married", "", "married"},         {"celebrated", "", "celebrated"},
      {"won", "", "won"},                 {"lost", "", "lost"},
      {"painted", "", "painted"},         {"hosted", "", "hosted"},
      {"volunteered", "at", "volunteered_at"}, {"watched", "", "watched"},
      {"read", "", "read"},               {"saw", "", "saw"},
      {"quit", "", "quit"},               {"left", "", "left"},
      {"completed", "", "completed"},     {"published", "", "published"},
      {"signed", "up", "signed_up"},      {"took", "", "took"},
      {"organized", "", "organized"},     {"launched", "", "launched"},
      {"sold", "", "sold"},               {"received", "", "received"},
      {"gave", "", "gave"},               {"made", "", "made"},
  }};
  for (std::size_t k = 0; k < words_.size(); ++k) {
    const std::size_t v = VerbAfterSubject(k);
    if (v == std::string::npos || v >= words_.size()) continue;
    // Starting a job is the start of an employment: "I started a new job at Siemens last
    // month", "I started working for Bosch", "I got a job with the NHS" -> works_at, a state
    // from the time the sentence gives (write/facts.cc).
    if (In(At(v), {"started", "start", "starting", "began", "got", "landed", "accepted"})) {
      std::size_t at = v + 1;
      if (In(At(at), {"a", "an", "the", "my"})) ++at;
      if (In(At(at), {"new", "first", "full-time", "part-time", "permanent"})) ++at;
      const bool job = In(At(at), {"job", "position", "role", "internship"});
      const bool working = At(v) != "got" && In(At(v + 1), {"working", "work"});
      if (job || working) {
        const std::size_t preposition = job ? at + 1 : v + 2;
        if (In(At(preposition), {"at", "with", "for"})) {
          const auto [begin, end] =
              ObjectFrom(preposition + 1, {"with", "for", "because", "since", "as", "in"});
          if (begin != end) {
            Add("works_at", begin, end, FactKind::kState, words_[k].begin);
            continue;
          }
        }
      }
    }
    for (const EventVerb& event : kVerbs) {
      if (words_[v].text != event.verb) continue;
      std::size_t object = v + 1;
      if (!event.particle.empty()) {
        if (!Is(object, event.particle)) break;
        ++object;
        if (event.particle == "up" && Is(object, "for")) ++object;
      }
      // "we met at uni": a prepositional phrase is where or when, not what.
      if (event.particle.empty() &&
          In(At(object), {"at", "in", "on", "from", "with", "during", "by", "through"})) {
        break;
      }
      const auto [begin, end] = ObjectFrom(object, {"with", "for", "because", "since"});
      if (begin == end) break;
      const std::string what = NormalizeFactText(Span(begin, end));
      if (IsPronounObject(what) ||
          In(what, {"up", "out", "down", "back", "off", "over", "around", "in", "on", "home",
                    "there", "by", "through", "away", "along", "together"})) {
        break;
      }
      Add(std::string(event.predicate), begin, end, FactKind::kEvent, words_[k].begin);
      break;
    }
  }
}

}  // namespace engram::write::rule_extractor

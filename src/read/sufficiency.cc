// Sufficiency of the packed context (see sufficiency.h).
#include "read/sufficiency.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <string_view>

#include "read/scope_graph.h"

namespace engram::read {
namespace {

constexpr double kHalf = 0.5;

std::string Percent(double share) {
  char text[16];
  std::snprintf(text, sizeof text, "%.0f%%", share * 100.0);
  return text;
}

std::string AnswerTypeWord(AnswerType type) {
  switch (type) {
    case AnswerType::kTime:
      return "a time";
    case AnswerType::kNumber:
      return "a number";
    case AnswerType::kPlace:
      return "a place";
    case AnswerType::kPerson:
      return "a person";
    case AnswerType::kNone:
      break;
  }
  return "an answer";
}

}  // namespace

Sufficiency JudgeSufficiency(const QueryFrame& frame, std::span<const RecallItem> packed,
                             std::span<const index::Bm25QueryTerm> weights,
                             std::span<const std::string> speakers,
                             const text::Tokenizer* tokenizer) {
  Sufficiency result;
  if (packed.empty()) {
    result.verdict = "insufficient";
    result.term_share = 0;
    result.best_item_share = 0;
    result.reasons.push_back("nothing in the memory matched the question");
    return result;
  }
  // What each packed item holds: its index terms and its words, its speaker's name included
  // (a turn is about the one who says it, as the BM25 documents index it).
  std::vector<std::set<std::string>> item_terms(packed.size());
  std::set<std::string> words;
  for (std::size_t item_idx = 0; item_idx < packed.size(); ++item_idx) {
    const RecallItem& item = packed[item_idx];
    if (tokenizer != nullptr) {
      for (const std::string_view text :
           {std::string_view(item.text), std::string_view(item.speaker)}) {
        for (const text::Token& token : tokenizer->Tokenize(text)) {
          item_terms[item_idx].insert(token.term);
          words.insert(token.word);
        }
      }
    }
    if (!item.speaker.empty()) words.insert(NameKey(item.speaker));
  }

  // The question's terms by weight: together and in the best single item.
  double total = 0;
  for (const index::Bm25QueryTerm& term : weights) total += std::max(term.idf, 0.0);
  if (total > 0 && tokenizer != nullptr) {
    // The speakers' names are in every turn they said: holding them says nothing of the topic.
    std::set<std::string> speaker_terms;
    for (const std::string& speaker : speakers) {
      for (const text::Token& token : tokenizer->Tokenize(speaker)) {
        speaker_terms.insert(token.term);
      }
    }
    double together = 0;
    bool topic_asked = false;  // a term besides the speakers' names
    bool topic_held = false;
    std::vector<std::string> missing;
    for (const index::Bm25QueryTerm& term : weights) {
      const bool held = std::any_of(
          item_terms.begin(), item_terms.end(),
          [&](const std::set<std::string>& terms) { return terms.contains(term.term); });
      if (!speaker_terms.contains(term.term)) {
        topic_asked = true;
        topic_held = topic_held || held;
      }
      if (held) {
        together += std::max(term.idf, 0.0);
      } else {
        missing.push_back(term.term);
      }
    }
    double best = 0;
    for (const std::set<std::string>& terms : item_terms) {
      double held = 0;
      for (const index::Bm25QueryTerm& term : weights) {
        if (terms.contains(term.term)) held += std::max(term.idf, 0.0);
      }
      best = std::max(best, held);
    }
    result.term_share = together / total;
    result.best_item_share = best / total;
    if (result.term_share < kHalf) {
      std::string list;
      for (std::size_t i = 0; i < missing.size() && i < 5; ++i) {
        list += (i == 0 ? "" : ", ") + missing[i];
      }
      result.reasons.push_back("the context holds " + Percent(result.term_share) +
                               " of the question's words by weight (missing: " + list + ")");
      // None of the question's words but the speakers' names: nothing on the topic was packed.
      result.verdict = topic_asked && !topic_held ? "insufficient" : "partial";
    } else if (result.best_item_share < kHalf) {
      result.reasons.push_back(
          "no single item holds half of the question's words by weight "
          "(the best holds " +
          Percent(result.best_item_share) + "): the evidence is spread");
      result.verdict = "partial";
    }
  }

  // Names the question gives that no packed item mentions (the memory's speakers aside).
  // Without the tokenizer the items' words are unknown: names are not checked then.
  std::set<std::string> speaker_keys;
  for (const std::string& speaker : speakers) {
    const std::string key = NameKey(speaker);
    speaker_keys.insert(key);
    speaker_keys.insert(key.substr(0, key.find(' ')));  // a first name
  }
  const std::span<const std::string> names = tokenizer != nullptr
                                                 ? std::span<const std::string>(frame.names)
                                                 : std::span<const std::string>();
  for (const std::string& name : names) {
    const std::string key = NameKey(name);
    if (key.empty() || speaker_keys.contains(key)) continue;
    // A name of several words is held when each of its words is.
    bool held = true;
    std::string_view rest = key;
    while (!rest.empty() && held) {
      const std::size_t space = rest.find(' ');
      held = words.contains(std::string(rest.substr(0, space)));
      rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
    }
    if (!held) {
      result.reasons.push_back("no packed item mentions " + name);
      result.verdict = "insufficient";
    }
  }

  // Whose evidence: a question about one of the memory's speakers ("What did Caroline paint?")
  // is answered by what that person said. When the best packed turn was said by someone else
  // (Melanie telling of her own painting), the memory holds the event, not about the person asked.
  if (frame.asked_speakers.size() == 1) {
    const auto best_turn = std::find_if(packed.begin(), packed.end(), [](const RecallItem& item) {
      return item.kind == NodeKind::kTurn;
    });
    if (best_turn != packed.end() && !best_turn->speaker.empty() &&
        best_turn->speaker != frame.asked_speakers.front()) {
      result.reasons.push_back("the best evidence was said by " + best_turn->speaker + ", not by " +
                               frame.asked_speakers.front() + ", whom the question asks about");
      result.verdict = "insufficient";
    }
  }

  if (frame.answer_type != AnswerType::kNone && result.verdict == "sufficient") {
    const bool typed = std::any_of(packed.begin(), packed.end(), [](const RecallItem& item) {
      return std::any_of(
          item.adjustments.begin(), item.adjustments.end(),
          [](const Adjustment& adjustment) { return adjustment.name == "answer_type"; });
    });
    if (!typed) {
      result.reasons.push_back("the question asks for " + AnswerTypeWord(frame.answer_type) +
                               "; no packed item was found to hold one");
      result.verdict = "partial";
    }
  }
  if (!packed.front().conflicts.empty() && result.verdict == "sufficient") {
    result.reasons.push_back("the best item's claim is contradicted by another memory");
    result.verdict = "partial";
  }
  return result;
}

}  // namespace engram::read

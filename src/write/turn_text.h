// One turn's text analysis, computed once per derivation (DESIGN §4 step 2, "analyse once") and
// handed to every stage that reads the turn: the analysis stage (its signal row, entities,
// references) and the fact extractor.
//
//   TurnText text = AnalyseTurnText(turn.text, event_time, &lexicons.gazetteer());
//   FactSource source = AnalyzeFactSource(turn.text, turn.speaker, turn.role, event_time, &text);
#ifndef ENGRAM_WRITE_TURN_TEXT_H_
#define ENGRAM_WRITE_TURN_TEXT_H_

#include <string_view>
#include <vector>

#include "engram/types.h"
#include "text/signals.h"
#include "text/temporal.h"

namespace engram::write {

struct TurnText {
  std::vector<text::Lexeme> lexemes;  // text::Lex
  // Every Tier-0 signal in text order, times resolved against the turn's event time, names
  // checked against the gazetteer when one is given (text::DetectSignals).
  std::vector<text::Signal> signals;
};

// `gazetteer` may be null (heuristics only).
inline TurnText AnalyseTurnText(std::string_view text, Timestamp event_time,
                                const text::Gazetteer* gazetteer) {
  text::SignalOptions options;
  options.gazetteer = gazetteer;
  return TurnText{.lexemes = text::Lex(text),
                  .signals = text::DetectSignals(text, event_time, options)};
}

}  // namespace engram::write

#endif  // ENGRAM_WRITE_TURN_TEXT_H_

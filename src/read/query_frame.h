// The query frame (DESIGN §5.1, DMF QueryFrame): what the read path understood of a question,
// by rules only. The planner (planner.h) turns it into route weights and budgets.
//
//   QueryFrame frame = BuildQueryFrame(tokenizer, "How many times did Caroline go hiking "
//                                      "last year?", *ParseTimestamp("2024-05-10T12:00:00Z"));
//   // frame.shape == QueryShape::kCount, frame.names == {"Caroline"},
//   // frame.time_constraints[0]: "last year" = [2023-01-01, 2024-01-01)
//
// Shape rules, first match wins (the reason is kept in shape_reason):
//   count          "how many", "how much", "how often", "number of", "count"
//   when           "when", "what year/month/day/date/time", "how long ago", "since when"
//   recommendation "recommend", "suggest", "any tips/ideas/advice", "what should", "should I"
//   summary        "summarize", "summary", "recap", "overview", "tell me about", "been up to"
//   ordering       "first", "earlier", "before or after", "in what order", "which came", "sooner"
//   current state  "currently", "current", "now", "still", "latest", "most recent", "these days"
//   inference      "would", "could", "might", "likely", "probably", "why", "what if"
//   boolean        starts with an auxiliary verb: is, are, was, were, do, does, did, has, have,
//                  had, can, will, should
//   list           "what are", "what were", "which", "what kind(s)", "what types", "list", "all";
//                  or "what" / "which", up to two modifiers, a plural noun and an auxiliary
//                  ("what books has Tim read?", "what new hobbies did she try?")
//   factoid        everything else
// Currentness (`current`) is set by the current-state cues whatever the shape. Polarity is
// negative when the question holds a negation ("not", "never", "no", "n't", "without").
#ifndef ENGRAM_READ_QUERY_FRAME_H_
#define ENGRAM_READ_QUERY_FRAME_H_

#include <string>
#include <string_view>
#include <vector>

#include "engram/types.h"
#include "lexicon/lexicon.h"
#include "text/tokenizer.h"

namespace engram::read {

enum class QueryShape {
  kFactoid,
  kList,
  kCount,
  kBoolean,
  kWhen,
  kOrdering,
  kRecommendation,
  kInference,
  kSummary,
  kCurrentState,
};
inline constexpr QueryShape kAllShapes[] = {QueryShape::kFactoid,        QueryShape::kList,
                                            QueryShape::kCount,          QueryShape::kBoolean,
                                            QueryShape::kWhen,           QueryShape::kOrdering,
                                            QueryShape::kRecommendation, QueryShape::kInference,
                                            QueryShape::kSummary,        QueryShape::kCurrentState};
// "factoid", "list", "count", "boolean", "when", "ordering", "recommendation", "inference",
// "summary", "current_state".
std::string_view QueryShapeName(QueryShape shape);

// What kind of thing the answer is, from the question word (DMF's answer-type feature):
//   time    the shape is "when", or "how many / much" + a time unit ("how many months have
//           passed since ...": the evidence gives dates)
//   number  "how many", "how much", "how old", "how long", "how far"
//   place   "where"
//   person  "who", "whom"
// none otherwise. The answer-type adjustment (adjust.h) lifts turns that hold such a thing.
enum class AnswerType { kNone, kTime, kNumber, kPlace, kPerson };
std::string_view AnswerTypeName(AnswerType type);  // "none", "time", "number", "place", "person"

// When the asked event lies, from the question's verbs: "did", "was", "ago", "passed", "last"
// → past; "will", "going to", "planning", "upcoming", "next" → future; neither, or both →
// unknown. A time the answer-type adjustment counts must lie on that side of its turn.
enum class Tense { kUnknown, kPast, kFuture };
std::string_view TenseName(Tense tense);  // "unknown", "past", "future"

// A time expression of the question, resolved against the query time (text/temporal.h).
struct TimeConstraint {
  std::string surface;  // "last year"
  Timestamp from;       // half-open [from, to) in UTC
  Timestamp to;
  std::string granularity;  // text::GranularityName
};

// A content word of the question.
struct Keyword {
  std::string word;  // normalised, not stemmed
  std::string term;  // the index term (stemmed)
  // Index terms of the word's WordNet synonyms (filled by AddSynonyms; empty without lexicons):
  // alternative forms of the same keyword for the keyword route (keyword_route.h).
  std::vector<std::string> synonyms;
};

// A time given by an event of the memory instead of a date ("after the accident", "before
// meeting Maria", "since I started collecting"): the temporal route dates it by the turn whose
// words match the event best and searches the turns on the asked side of that turn's time.
struct EventAnchor {
  std::string surface;             // "after the accident", as in the question (lower case)
  bool before = false;             // "before", "until", "prior to"; else "after" / "since"
  std::vector<std::string> terms;  // index terms of the event's words: {"accid"}
};

inline constexpr std::size_t kMaxEventAnchors = 4;

struct QueryFrame {
  std::string text;                // the question as asked
  std::vector<std::string> terms;  // normalised, stemmed, stopwords removed, in query order
  Timestamp query_time;            // "now" for the question
  QueryShape shape = QueryShape::kFactoid;
  std::string shape_reason;  // the cue that decided the shape, e.g. "\"how many\""
  // Capitalised words that look like names (not the first word unless it is no question or
  // auxiliary word; not months, weekdays or "I"), in order, without repeats.
  std::vector<std::string> names;
  // Speakers of the searched scopes that the question names (filled by the recall pipeline,
  // which knows the speakers), in order of first mention.
  std::vector<std::string> asked_speakers;
  std::vector<TimeConstraint> time_constraints;
  // "before / after / since / until / prior to" + up to four words that are no time expression
  // (those are time constraints), ending at a conjunction, "when" / "where" or an auxiliary;
  // the first kMaxEventAnchors of them (each costs the temporal route a pass over the turns).
  std::vector<EventAnchor> event_anchors;
  bool current = false;  // the question asks about the present state
  bool negated = false;  // polarity: the question holds a negation
  // The question speaks in the first person ("I", "my", "me", "I've", ...): the person asked
  // about is the user asking, i.e. the memory's user turns.
  bool first_person = false;
  // The question asks what "you" said or did ("the hotel you recommended"): the other party's
  // (an assistant's) turns are evidence too, so the first-person adjustment does not apply.
  bool about_other_party = false;
  std::vector<Keyword> keywords;  // content words in order, without repeats
  AnswerType answer_type = AnswerType::kNone;
  Tense tense = Tense::kUnknown;
  // Frame words: words that say what kind of answer is wanted, not what it is about. The
  // frame's other parts already use them (shape, currentness, answer type), so the lexical
  // routes need not match them: a turn asking "can you suggest ..." is no evidence for "can you
  // suggest accessories for my camera?", nor one saying "last month" for "how many months have
  // passed since ...". Lower case, in question order, without repeats or stopwords:
  //   - the cue words of a recommendation that is a request ("can you / could you / would you
  //     / will you ...", "any tips / ideas / advice", "should I"; not "what did Tim recommend
  //     to John?", where "recommend" is the topic) and of a summary ("summarize", "recap");
  //   - the currentness cue ("currently", "now", "these days");
  //   - the first word when it is an auxiliary ("can Jon drive?");
  //   - "many" / "much" after "how", and a time unit right after them ("how many months");
  //   - with a time answer type: "passed", "elapsed", "ago", "since", "been".
  // Measured and left as topic words, because the evidence repeats them: "long" / "old" /
  // "often" after "how" ("for a long time", "years old"), "first" / "last" ("the first time"),
  // the words of time expressions ("last summer", "in January"): docs/BENCHMARKS.md.
  // With FrameOptions::drop_frame_words, `terms` and `keywords` leave them out (unless
  // nothing else is left).
  std::vector<std::string> frame_words;
};

struct FrameOptions {
  // Leave the frame words out of `terms` and `keywords`. Default: true ([recall]
  // drop_frame_words).
  bool drop_frame_words = true;
};

QueryFrame BuildQueryFrame(const text::Tokenizer& tokenizer, std::string_view query,
                           Timestamp query_time, const FrameOptions& options = {});

// Fills Keyword::synonyms ("keywords with stems and WordNet synonyms"): for each keyword that
// is no name of the question and holds no digit, its WordNet lemma (Lexicons::Lemma with the
// part of speech the POS lexicon gives first, then noun, verb, adjective, adverb: the first
// that WordNet knows), then that lemma's synonyms (Lexicons::Synonyms: every sense, sorted) that
// are single words, mapped to index terms with `tokenizer`, skipping stopwords, the keyword's
// own term, any other keyword's term and repeats; at most `max_per_keyword` of them, in
// WordNet's sorted order. Deterministic; replaces synonyms already there.
//   "Did she buy a car?" -> keyword car: synonyms {"auto", "automobil", "gondola"} (WordNet 3.0;
//   sorted order, not sense frequency, picks them: "go" gets {"adam", "becom", "belong"})
inline constexpr std::size_t kMaxSynonymsPerKeyword = 3;
void AddSynonyms(QueryFrame& frame, const lexicon::Lexicons& lexicons,
                 const text::Tokenizer& tokenizer,
                 std::size_t max_per_keyword = kMaxSynonymsPerKeyword);

// One line for diagnostics: "shape=count (\"how many\") names=Caroline time=last year[...]
// keywords=time,carolin,hike(tramp)" (a keyword's synonyms in parentheses).
std::string DescribeFrame(const QueryFrame& frame);

}  // namespace engram::read

#endif  // ENGRAM_READ_QUERY_FRAME_H_

// Typed signal detectors: the deterministic Tier-0 anchors over a turn (Eywa §3: dates, money,
// versions, URLs, identifiers, quoted strings, entities) and DMF's conversational cues (memory
// acts: preference, constraint, current / past state, correction, replacement, decision,
// approval, rejection, query-like, ack-like) with a normalised topic identity and value.
//
// Why: signals are the validation substrate of the write path (DESIGN §4.4: a candidate fact's
// hard anchors must appear verbatim among the turn's signals; negation and uncertainty must be
// preserved) and feed DMF's operational salience. No LLM, no network, no lexicon files: every
// rule is a hand-written scanner over the lexemes of text/temporal.h. Entities are capitalisation
// heuristics with a confidence; a Gazetteer (names, cities, organisations from the data
// directory) can be plugged in and takes precedence.
//
//   engram::text::SignalOptions options;
//   for (const engram::text::Signal& signal : engram::text::DetectSignals(
//            "I'm allergic to peanuts. It cost $1,250 yesterday.", reference, options)) {
//     // {constraint "allergic to peanuts" value "peanuts" topic "allergy" polarity -}
//     // {money "$1,250" value "1250 USD"}, {date "yesterday" value "2024-05-09/2024-05-10"}
//   }
//
// Values (what `value` holds per kind):
//   date / time     ISO interval "from/to" (text/temporal.h FormatInterval); topic = granularity
//   money           "<amount> <ISO 4217 code>": "$1,250" -> "1250 USD", "£5k" -> "5000 GBP",
//                   "1.2 million euros" -> "1200000 EUR", "50 cents" -> "0.5 USD". Amounts are
//                   exact decimals with trailing fractional zeros removed ("€3.50" -> "3.5 EUR").
//                   "pounds" alone is a unit of mass (lb), not money; "£" or "GBP" is money.
//   percent         "12%" ("12 percent", "12 per cent", "12.5 %")
//   quantity        "<number> <unit symbol>": "5 km", "10 mi", "3 kg", "2 h", "30 min", "3 d",
//                   "2 wk", "6 mo", "5 yr", "20 °C"
//   number          canonical decimal: "3,500" -> "3500", "three" -> "3", "twenty-five" -> "25",
//                   "3rd" -> "3" (topic "ordinal"). Bare "one", "a" and "an" are not numbers
//                   (too often pronouns / articles) unless a unit or currency follows.
//   version         "v1.2.3" -> "1.2.3", "version 2" -> "2", "Python 3.11" -> "python 3.11"
//   url             as written, scheme and host lower-cased; email: lower-cased
//   ip_address      as written, IPv6 lower-cased; topic "v4" / "v6"
//   identifier      as written ("ABC-123", "#42"), hashes and UUIDs lower-cased; topic "ticket",
//                   "issue", "uuid", "hash", "hex" or "code"
//   quoted_string   the text between the quotes
//   person / place / organization   the name as written (possessive "'s" dropped); confidence:
//                   0.9 gazetteer or title ("Dr. Smith"), 0.8 suffix ("Acme Inc", "Lake Tahoe")
//                   or a known first name and a surname ("Kristin Hannah"),
//                   0.5-0.7 context cue ("my friend Anna", "moved to Berlin", "work at Google"),
//                   0.3 capitalisation alone. A sentence-initial single word is an entity only
//                   through the gazetteer or a cue after it; all-caps words (acronyms) only
//                   through the gazetteer; headline-case sentences are skipped.
//   memory acts     value = the normalised object of the cue (NormalizeForIndex: lower case,
//                   accents stripped), e.g. "I love sushi" -> "sushi"; topic = DMF topic identity
//                   (the slot: "preference", "allergy", "diet", "residence", "employer",
//                   "occupation", "identity", "status", "possession", "instruction", ...);
//                   polarity +/- for preferences and constraints (negation flips: "I don't like
//                   X" is a preference with polarity -); replacement carries previous_value.
// Every signal of a hedged sentence ("I think", "maybe", "probably", "not sure", ...) has
// uncertain = true.
//
// Overlaps: anchors (every kind up to organization) never overlap each other; the first
// detector in this order wins: URL, email, IP, UUID, version, identifier, date/time, money,
// percent, quantity, number, entities. Quoted strings and memory acts may contain anchors.
// Output is sorted by (begin, end, kind) and is identical for identical input.
//
// Thread-safety: DetectSignals is a pure function; a Gazetteer must be safe for concurrent
// Lookup calls when DetectSignals runs on several threads.
#ifndef ENGRAM_TEXT_SIGNALS_H_
#define ENGRAM_TEXT_SIGNALS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/types.h"
#include "text/temporal.h"

namespace engram::text {

enum class SignalKind {
  // Hard anchors.
  kDate,
  kTime,
  kMoney,
  kPercent,
  kQuantity,
  kNumber,
  kVersion,
  kUrl,
  kEmail,
  kIpAddress,
  kIdentifier,
  kQuotedString,
  // Entities (capitalisation heuristics / gazetteer).
  kPerson,
  kPlace,
  kOrganization,
  // Memory acts / DMF conversational signals.
  kPreference,
  kConstraint,
  kCurrentState,
  kPastState,
  kCorrection,
  kReplacement,
  kDecision,
  kApproval,
  kRejection,
  kQueryLike,
  kAckLike,
};
// "date", "time", "money", "percent", "quantity", "number", "version", "url", "email",
// "ip_address", "identifier", "quoted_string", "person", "place", "organization", "preference",
// "constraint", "current_state", "past_state", "correction", "replacement", "decision",
// "approval", "rejection", "query_like", "ack_like".
std::string_view SignalKindName(SignalKind kind);
// kInvalidArgument for an unknown name.
StatusOr<SignalKind> ParseSignalKind(std::string_view name);
// True for the memory-act kinds (kPreference .. kAckLike).
bool IsMemoryAct(SignalKind kind);

enum class Polarity { kNone, kPositive, kNegative };
std::string_view PolarityName(Polarity polarity);  // "", "+", "-"

enum class EntityKind { kPerson, kPlace, kOrganization };

// Known names (first names, cities, countries, organisations), keyed by NormalizeForIndex of the
// whole name ("new york"). Implementations live with the lexicons; the default is none.
class Gazetteer {
 public:
  virtual ~Gazetteer() = default;
  virtual std::optional<EntityKind> Lookup(std::string_view normalized) const = 0;
  // True for a common word that starts sentences but not names: mostly a verb, adverb, modal,
  // interjection or function word ("Both", "While", "Use", "Visit"), and no known first name.
  // A capitalised run that starts a sentence with one loses it ("Both Hakuba Valley" ->
  // "Hakuba Valley"). Default: false (no such knowledge).
  virtual bool IsSentenceStarter(std::string_view /*normalized*/) const { return false; }
  // True for a word that, capitalised and alone, still names no one: an interjection ("Hi",
  // "Wow") or a proper adjective of a language, nationality or cuisine ("Thai", "English",
  // "Swedish"), and no known first name or place. A one-word run that is such a word is no
  // entity. Default: false (no such knowledge).
  virtual bool IsNonNameWord(std::string_view /*normalized*/) const { return false; }
};

struct SignalOptions {
  // Names lookup for entities; not owned, may be null. Default: nullptr (heuristics only).
  const Gazetteer* gazetteer = nullptr;
  // Detect person / place / organisation candidates. Default: true.
  bool detect_entities = true;
  // Detect memory acts (preference ... ack-like). Default: true.
  bool detect_memory_acts = true;
  // Entity candidates below this confidence are dropped. Default: 0 (keep all).
  float min_entity_confidence = 0.0f;
  // At most this many words in a memory act's value. Default: 8.
  std::size_t max_value_words = 8;
  // A turn of at most this many words can be ack-like (DMF social floor). Default: 6.
  std::size_t max_ack_words = 6;
};

struct Signal {
  SignalKind kind = SignalKind::kNumber;
  std::uint32_t begin = 0;  // byte span in the text
  std::uint32_t end = 0;
  std::string surface;         // text[begin, end)
  std::string value;           // normalised value (see the table above); may be empty for acts
  std::string topic;           // memory acts: DMF topic identity; anchors: subtype (may be empty)
  std::string previous_value;  // replacement: what was replaced ("switched from X to Y": X)
  Polarity polarity = Polarity::kNone;
  bool uncertain = false;   // inside a hedged sentence
  float confidence = 1.0f;  // entities: see above; acts from a bare cue word ("currently",
                            // "previously"): 0.6; "actually" inside a clause: 0.7

  friend bool operator==(const Signal&, const Signal&) = default;
};

// All signals of `text` (valid UTF-8 expected; invalid bytes are treated as punctuation) with
// temporal expressions resolved against `reference` (the turn's event time).
std::vector<Signal> DetectSignals(std::string_view text, Timestamp reference,
                                  const SignalOptions& options = {});

}  // namespace engram::text

#endif  // ENGRAM_TEXT_SIGNALS_H_

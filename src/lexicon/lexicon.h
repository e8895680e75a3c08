// The lexicons of the write path (DESIGN §4 step 2): VADER valences, a part-of-speech lexicon,
// WordNet 3.0 (lemmas, parts of speech, synonyms, morphological exceptions) and a gazetteer of
// first names and places, loaded once per data directory and shared by every engine of the
// process.
//
// Why: DMF's content signals need a POS lexicon (information density) and VADER (sentiment
// magnitude); entity mentions need names and places; reference resolution and fact extraction
// need lemmas. scripts/fetch-lexicons installs the sources into <data>/lexicons; the first Load
// compiles them into one compact binary file (<data>/lexicons/compiled.bin: sorted string tables,
// about 12 MB) that later loads map into memory without parsing, so opening an engine stays
// cheap. The cache is rebuilt when SHA256SUMS (what fetch-lexicons installed) changes; when the
// directory is not writable, the compiled tables are kept in memory only.
//
//   ASSIGN_OR_RETURN(std::shared_ptr<const Lexicons> lexicons, Lexicons::Load(data_dir));
//   lexicons->Valence("great");                 // 3.1
//   lexicons->Pos("running").Has(WordClass::kVerb);  // true
//   lexicons->Lemma("went", WordNetPos::kVerb);  // "go"
//   lexicons->gazetteer().Lookup("berlin");      // EntityKind::kPlace
//
// Keys: the POS, WordNet and names tables are keyed by text::NormalizeForIndex of the word
// (lower case, accents stripped); VADER by its own (lower-case) tokens.
//
// Thread-safety: a loaded Lexicons is immutable; every method may be called from any thread.
// Load is safe to call concurrently.
#ifndef ENGRAM_LEXICON_LEXICON_H_
#define ENGRAM_LEXICON_LEXICON_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "text/signals.h"

namespace engram::lexicon {

// Coarse word classes of the Penn tags in the POS lexicon.
enum class WordClass : std::uint8_t {
  kUnknown = 0,
  kNoun,         // NN, NNS
  kProperNoun,   // NNP, NNPS
  kVerb,         // VB, VBD, VBG, VBN, VBP, VBZ
  kAdjective,    // JJ, JJR, JJS
  kAdverb,       // RB, RBR, RBS, WRB
  kNumber,       // CD
  kModal,        // MD
  kFunction,     // DT, IN, CC, PRP, PRP$, WP, WP$, WDT, TO, EX, PDT, POS, RP
  kInterjection, // UH
  kSymbol,       // punctuation, SYM, $, #, emoji, ...
};

struct PosInfo {
  bool found = false;
  WordClass primary = WordClass::kUnknown;  // class of the first (most likely) tag
  std::uint16_t classes = 0;                // bit (1 << WordClass) for every tag of the word
  bool common = false;  // the lexicon has the lower-case word with a tag other than NNP / NNPS

  bool Has(WordClass word_class) const {
    return (classes & (1u << static_cast<unsigned>(word_class))) != 0;
  }
};

enum class WordNetPos : std::uint8_t { kNoun = 0, kVerb = 1, kAdjective = 2, kAdverb = 3 };

// Gazetteer classes of a name (bit set).
enum NameClass : std::uint32_t {
  kMaleFirstName = 1u << 0,
  kFemaleFirstName = 1u << 1,
  kCity = 1u << 2,
  kRegion = 1u << 3,
  kCountry = 1u << 4,
};

// One sorted string table of the compiled file: keys in byte order, a 32-bit value per key and
// an optional list of 32-bit items per key. Views into memory owned by Lexicons.
class StringTable {
 public:
  // Index of `key`, or -1.
  std::int64_t Find(std::string_view key) const;
  std::size_t size() const { return values_.size(); }
  std::string_view Key(std::size_t index) const;
  std::uint32_t Value(std::size_t index) const { return values_[index]; }
  std::span<const std::uint32_t> List(std::size_t index) const;

 private:
  friend class Lexicons;
  friend struct TableReader;
  std::span<const std::uint32_t> key_offsets_;   // size + 1 offsets into blob_
  std::span<const std::uint32_t> values_;        // size
  std::span<const std::uint32_t> list_offsets_;  // size + 1 offsets into pool_
  std::span<const std::uint32_t> pool_;
  std::string_view blob_;
};

// The files Load needs, relative to <data>/lexicons (what scripts/fetch-lexicons installs).
std::span<const std::string_view> RequiredLexiconFiles();

class Lexicons {
 public:
  Lexicons(const Lexicons&) = delete;
  Lexicons& operator=(const Lexicons&) = delete;
  ~Lexicons();

  // The lexicons of `data_dir`, loaded (and if needed compiled) at the first call for that
  // directory and shared afterwards. kFailedPrecondition naming the missing file and
  // `scripts/setup` when a lexicon is not installed; kCorruption for unreadable sources.
  static StatusOr<std::shared_ptr<const Lexicons>> Load(std::string_view data_dir);
  // Compiles the sources of `lexicon_dir` (a <data>/lexicons directory) into memory, neither
  // reading nor writing the cache file. For tests of the compiler on small fixtures.
  static StatusOr<std::shared_ptr<const Lexicons>> CompileInMemory(std::string_view lexicon_dir);

  // VADER valence of a (lower-case) token, e.g. "good" -> 1.9.
  std::optional<float> Valence(std::string_view token) const;
  // Part of speech of a word (any case); found = false when the lexicon does not know it.
  PosInfo Pos(std::string_view word) const;
  // True when WordNet has `lemma` (any case, spaces or underscores) with that part of speech.
  bool HasLemma(std::string_view lemma, WordNetPos pos) const;
  // WordNet's base form of a word (morphy: exception lists, then suffix rules, keeping only
  // forms WordNet knows); the lower-cased word itself when it is a lemma or nothing applies.
  std::string Lemma(std::string_view word, WordNetPos pos) const;
  // Lemmas sharing a synset with `lemma` (any part of speech), sorted, without `lemma`.
  std::vector<std::string> Synonyms(std::string_view lemma) const;
  // NameClass bits of a normalised name ("new york"); 0 when unknown.
  std::uint32_t NameClasses(std::string_view normalized) const;

  // First names and places as a text::Gazetteer (see lexicon.cc for the precedence rules: a
  // country is a place; a first name, region or city that is also a common English word is not
  // listed, so "Will", "Mark" or "Reading" stay to the capitalisation heuristics).
  const text::Gazetteer& gazetteer() const;

  // Sizes, for tests and diagnostics.
  std::size_t vader_entries() const { return vader_.size(); }
  std::size_t pos_entries() const { return pos_.size(); }
  std::size_t wordnet_lemmas() const { return lemmas_.size(); }
  std::size_t names() const { return names_.size(); }
  // True when the tables came from compiled.bin rather than from compiling the sources.
  bool from_cache() const { return from_cache_; }

 private:
  struct Storage;
  class NameGazetteer;
  Lexicons();
  static StatusOr<std::shared_ptr<const Lexicons>> FromStorage(std::unique_ptr<Storage> storage,
                                                               bool from_cache);

  std::unique_ptr<Storage> storage_;
  std::unique_ptr<NameGazetteer> gazetteer_;
  StringTable vader_;
  StringTable pos_;
  StringTable lemmas_;
  StringTable exceptions_;
  StringTable names_;
  bool from_cache_ = false;
};

}  // namespace engram::lexicon

#endif  // ENGRAM_LEXICON_LEXICON_H_

// Lexicon loading, compiling and lookups (see lexicon.h).
//
// compiled.bin layout (32-bit little-endian words of the host; the endian marker refuses a file
// from another byte order): magic "ENGL" "EX01", format version, endian marker 0x01020304, the
// 32-byte fingerprint (SHA-256 over the format name and the installed SHA256SUMS), the table count,
// then the tables vader, pos, lemmas, exceptions, names. A table is: count, blob bytes, pool
// items, key offsets (count + 1), values (count), list offsets (count + 1), pool items, the key
// blob padded to a whole word.
#include "lexicon/lexicon.h"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>

#include "core/compiled_file.h"
#include "core/files.h"
#include "core/sha256.h"
#include "text/normalize.h"

namespace engram::lexicon {
namespace {

constexpr std::uint32_t kMagic0 = 0x4c474e45;  // "ENGL"
constexpr std::uint32_t kMagic1 = 0x31305845;  // "EX01"
constexpr std::uint32_t kFormatVersion = 1;
constexpr std::uint32_t kEndianMarker = 0x01020304;
constexpr std::uint32_t kTableCount = 5;
constexpr std::size_t kHeaderWords = 4 + 8 + 1;
constexpr std::size_t kMaxSynonyms = 64;
constexpr std::string_view kCacheFile = "compiled.bin";

constexpr std::string_view kVaderFile = "vader_lexicon.txt";
constexpr std::string_view kPosFile = "pos_lexicon.tsv";
constexpr std::string_view kMaleFile = "first_names_male.txt";
constexpr std::string_view kFemaleFile = "first_names_female.txt";
constexpr std::string_view kCitiesFile = "places_cities.txt";
constexpr std::string_view kRegionsFile = "places_regions.txt";
constexpr std::string_view kCountriesFile = "places_countries.txt";
constexpr std::array<std::string_view, 4> kWordNetPosNames = {"noun", "verb", "adj", "adv"};

constexpr std::array<std::string_view, 16> kRequiredFiles = {
    "SHA256SUMS",         kVaderFile,          kPosFile,           kMaleFile,
    kFemaleFile,          kCitiesFile,         kRegionsFile,       kCountriesFile,
    "wordnet/data.noun",  "wordnet/data.verb", "wordnet/data.adj", "wordnet/data.adv",
    "wordnet/noun.exc",   "wordnet/verb.exc",  "wordnet/adj.exc",  "wordnet/adv.exc",
};

std::string Join(std::string_view dir, std::string_view name) {
  std::string path(dir);
  if (!path.empty() && path.back() != '/') path += '/';
  path += name;
  return path;
}

bool FileExists(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

StatusOr<std::string> ReadLexiconFile(const std::string& path) {
  StatusOr<std::string> contents = core::ReadWholeFile(path, "lexicon file");
  if (!contents.ok()) {
    return Status::FailedPrecondition("cannot read lexicon file " + path +
                                      "; run scripts/setup to install the lexicons");
  }
  return contents;
}

// Calls `line` for every line of `text` (without the line break; a trailing '\r' is dropped).
template <typename Fn>
void ForEachLine(std::string_view text, Fn&& line) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view current = text.substr(start, end - start);
    if (!current.empty() && current.back() == '\r') current.remove_suffix(1);
    line(current);
    start = end + 1;
  }
}

bool IsAscii(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

// NormalizeForIndex, with a fast path for ASCII (where it is lower-casing).
std::string Key(std::string_view word) {
  if (IsAscii(word)) {
    std::string key(word);
    for (char& c : key) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return key;
  }
  return text::NormalizeForIndex(word);
}

// WordNet lemma spelling: underscores are spaces, lower case, adjective markers "(a)" dropped.
std::string WordNetKey(std::string_view word) {
  if (const std::size_t paren = word.find('('); paren != std::string_view::npos) {
    word = word.substr(0, paren);
  }
  std::string spaced(word);
  std::replace(spaced.begin(), spaced.end(), '_', ' ');
  return Key(spaced);
}

WordClass ClassOfTag(std::string_view tag) {
  if (tag == "NN" || tag == "NNS") return WordClass::kNoun;
  if (tag == "NNP" || tag == "NNPS") return WordClass::kProperNoun;
  if (tag.starts_with("VB")) return WordClass::kVerb;
  if (tag == "JJ" || tag == "JJR" || tag == "JJS") return WordClass::kAdjective;
  if (tag == "RB" || tag == "RBR" || tag == "RBS" || tag == "WRB") return WordClass::kAdverb;
  if (tag == "CD") return WordClass::kNumber;
  if (tag == "MD") return WordClass::kModal;
  if (tag == "UH") return WordClass::kInterjection;
  static constexpr std::array<std::string_view, 14> kFunctionTags = {
      "DT", "IN", "CC", "PRP", "PRP$", "WP", "WP$", "WDT", "TO", "EX", "PDT", "POS", "RP", "LS"};
  if (std::find(kFunctionTags.begin(), kFunctionTags.end(), tag) != kFunctionTags.end()) {
    return WordClass::kFunction;
  }
  if (tag == "FW") return WordClass::kNoun;
  return WordClass::kSymbol;
}

constexpr std::uint32_t kPosCommonBit = 1u << 24;

// A table under construction: sorted keys with a value and a list each.
struct TableBuilder {
  struct Entry {
    std::uint32_t value = 0;
    std::vector<std::uint32_t> list;
  };
  std::map<std::string, Entry, std::less<>> entries;

  void AppendTo(std::vector<std::uint32_t>& words) const {
    std::uint32_t blob_bytes = 0;
    std::uint32_t pool_items = 0;
    for (const auto& [key, entry] : entries) {
      blob_bytes += static_cast<std::uint32_t>(key.size());
      pool_items += static_cast<std::uint32_t>(entry.list.size());
    }
    words.push_back(static_cast<std::uint32_t>(entries.size()));
    words.push_back(blob_bytes);
    words.push_back(pool_items);
    std::uint32_t offset = 0;
    words.push_back(0);
    for (const auto& [key, entry] : entries) {
      offset += static_cast<std::uint32_t>(key.size());
      words.push_back(offset);
    }
    for (const auto& [key, entry] : entries) words.push_back(entry.value);
    offset = 0;
    words.push_back(0);
    for (const auto& [key, entry] : entries) {
      offset += static_cast<std::uint32_t>(entry.list.size());
      words.push_back(offset);
    }
    for (const auto& [key, entry] : entries) {
      words.insert(words.end(), entry.list.begin(), entry.list.end());
    }
    std::string blob;
    blob.reserve(blob_bytes + 4);
    for (const auto& [key, entry] : entries) blob += key;
    while (blob.size() % 4 != 0) blob.push_back('\0');
    const std::size_t first = words.size();
    words.resize(first + blob.size() / 4);
    std::memcpy(words.data() + first, blob.data(), blob.size());
  }
};

}  // namespace

std::span<const std::string_view> RequiredLexiconFiles() { return kRequiredFiles; }

// ---------------------------------------------------------------------------------------------
// StringTable

std::string_view StringTable::Key(std::size_t index) const {
  return blob_.substr(key_offsets_[index], key_offsets_[index + 1] - key_offsets_[index]);
}

std::span<const std::uint32_t> StringTable::List(std::size_t index) const {
  return pool_.subspan(list_offsets_[index], list_offsets_[index + 1] - list_offsets_[index]);
}

std::int64_t StringTable::Find(std::string_view key) const {
  std::size_t low = 0;
  std::size_t high = values_.size();
  while (low < high) {
    const std::size_t mid = low + (high - low) / 2;
    const int order = Key(mid).compare(key);
    if (order == 0) return static_cast<std::int64_t>(mid);
    if (order < 0) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  return -1;
}

// Reads tables out of a word buffer, checking every bound.
struct TableReader {
  std::span<const std::uint32_t> words;
  std::size_t at = 0;

  StatusOr<std::span<const std::uint32_t>> Take(std::size_t count) {
    if (count > words.size() - at) return Status::Corruption("lexicon cache is truncated");
    std::span<const std::uint32_t> taken = words.subspan(at, count);
    at += count;
    return taken;
  }

  StatusOr<StringTable> Read() {
    ASSIGN_OR_RETURN(const std::span<const std::uint32_t> sizes, Take(3));
    const std::size_t count = sizes[0];
    const std::size_t blob_bytes = sizes[1];
    const std::size_t pool_items = sizes[2];
    StringTable table;
    ASSIGN_OR_RETURN(table.key_offsets_, Take(count + 1));
    ASSIGN_OR_RETURN(table.values_, Take(count));
    ASSIGN_OR_RETURN(table.list_offsets_, Take(count + 1));
    ASSIGN_OR_RETURN(table.pool_, Take(pool_items));
    ASSIGN_OR_RETURN(const std::span<const std::uint32_t> blob, Take((blob_bytes + 3) / 4));
    table.blob_ = std::string_view(reinterpret_cast<const char*>(blob.data()), blob_bytes);
    for (std::size_t index = 0; index < count; ++index) {
      if (table.key_offsets_[index] > table.key_offsets_[index + 1] ||
          table.list_offsets_[index] > table.list_offsets_[index + 1]) {
        return Status::Corruption("lexicon cache has decreasing offsets");
      }
    }
    if (table.key_offsets_[0] != 0 || table.key_offsets_[count] != blob_bytes ||
        table.list_offsets_[0] != 0 || table.list_offsets_[count] != pool_items) {
      return Status::Corruption("lexicon cache offsets do not match their sizes");
    }
    return table;
  }
};

// Memory behind the tables: a read-only mapping of compiled.bin or a buffer compiled in memory.
struct Lexicons::Storage {
  std::vector<std::uint32_t> buffer;
  std::optional<core::MappedFile> mapped;  // its size a whole number of words

  std::span<const std::uint32_t> words() const {
    if (mapped.has_value()) {
      return {reinterpret_cast<const std::uint32_t*>(mapped->bytes().data()),
              mapped->bytes().size() / 4};
    }
    return buffer;
  }
};

class Lexicons::NameGazetteer final : public text::Gazetteer {
 public:
  explicit NameGazetteer(const Lexicons& lexicons) : lexicons_(lexicons) {}

  std::optional<text::EntityKind> Lookup(std::string_view normalized) const override {
    const std::uint32_t classes = lexicons_.NameClasses(normalized);
    if (classes == 0) return std::nullopt;
    if ((classes & kCountry) != 0) return text::EntityKind::kPlace;
    if (normalized.size() < 2) return std::nullopt;
    // "Will", "Mark", "Reading", "Nice": common words are left to the capitalisation rules.
    if (const std::int64_t pos = lexicons_.pos_.Find(normalized);
        pos >= 0 && (lexicons_.pos_.Value(static_cast<std::size_t>(pos)) & kPosCommonBit) != 0) {
      return std::nullopt;
    }
    if ((classes & (kMaleFirstName | kFemaleFirstName)) != 0) return text::EntityKind::kPerson;
    return text::EntityKind::kPlace;
  }

  // An interjection that is no common noun ("Hi", though the first-name list has it), or a word
  // the POS lexicon tags as an adjective that WordNet also lists as one ("Thai", "English": the
  // language / nationality adjectives; the city list's "English" does not outweigh it). A
  // country stays a place; a first name ("Rose", "Frank") stays a name unless an interjection.
  bool IsNonNameWord(std::string_view normalized) const override {
    const std::uint32_t classes = lexicons_.NameClasses(normalized);
    if ((classes & kCountry) != 0) return false;
    const PosInfo pos = lexicons_.Pos(normalized);
    if (!pos.found) return false;
    if (pos.Has(WordClass::kInterjection) && !pos.Has(WordClass::kNoun)) return true;
    if ((classes & (kMaleFirstName | kFemaleFirstName)) != 0) return false;
    return pos.Has(WordClass::kAdjective) && lexicons_.HasLemma(normalized, WordNetPos::kAdjective);
  }

  bool IsSentenceStarter(std::string_view normalized) const override {
    if (lexicons_.NameClasses(normalized) != 0) return false;  // a first name, place or country
    const PosInfo pos = lexicons_.Pos(normalized);
    if (!pos.found || !pos.common) return false;
    switch (pos.primary) {
      case WordClass::kVerb:
      case WordClass::kAdverb:
      case WordClass::kModal:
      case WordClass::kFunction:
      case WordClass::kInterjection:
        return true;
      default:
        return false;
    }
  }

 private:
  const Lexicons& lexicons_;
};

Lexicons::Lexicons() = default;
Lexicons::~Lexicons() = default;

const text::Gazetteer& Lexicons::gazetteer() const { return *gazetteer_; }

// ---------------------------------------------------------------------------------------------
// Compiling the sources

namespace {

Status AddNames(std::string_view dir, std::string_view file, std::uint32_t name_class,
                TableBuilder& names) {
  ASSIGN_OR_RETURN(const std::string text, ReadLexiconFile(Join(dir, file)));
  ForEachLine(text, [&](std::string_view line) {
    if (line.empty()) return;
    std::string key = Key(line);
    if (!key.empty()) names.entries[std::move(key)].value |= name_class;
  });
  return Status::Ok();
}

StatusOr<std::vector<std::uint32_t>> Compile(std::string_view dir,
                                             const std::array<std::uint8_t, 32>& fingerprint) {
  TableBuilder vader;
  TableBuilder pos;
  TableBuilder lemmas;
  TableBuilder exceptions;
  TableBuilder names;

  {
    ASSIGN_OR_RETURN(const std::string text, ReadLexiconFile(Join(dir, kVaderFile)));
    ForEachLine(text, [&](std::string_view line) {
      const std::size_t tab = line.find('\t');
      if (tab == std::string_view::npos || tab == 0) return;
      const std::size_t tab2 = line.find('\t', tab + 1);
      const std::string number(line.substr(tab + 1, tab2 - tab - 1));
      char* end = nullptr;
      const float valence = std::strtof(number.c_str(), &end);
      if (end == number.c_str()) return;
      vader.entries[std::string(line.substr(0, tab))].value = std::bit_cast<std::uint32_t>(valence);
    });
    if (vader.entries.empty()) {
      return Status::Corruption("lexicon file " + Join(dir, kVaderFile) + " has no entries");
    }
  }
  {
    ASSIGN_OR_RETURN(const std::string text, ReadLexiconFile(Join(dir, kPosFile)));
    std::set<std::string, std::less<>> from_lower_case;  // keys whose primary came from the
                                                         // lower-case spelling
    ForEachLine(text, [&](std::string_view line) {
      const std::size_t tab = line.find('\t');
      if (tab == std::string_view::npos || tab == 0) return;
      const std::string_view word = line.substr(0, tab);
      const std::string_view tags = line.substr(tab + 1);
      std::string key = Key(word);
      if (key.empty()) return;
      std::uint32_t classes = 0;
      WordClass first = WordClass::kUnknown;
      bool common = false;
      std::size_t start = 0;
      while (start <= tags.size()) {
        std::size_t bar = tags.find('|', start);
        if (bar == std::string_view::npos) bar = tags.size();
        const std::string_view tag = tags.substr(start, bar - start);
        if (!tag.empty()) {
          const WordClass word_class = ClassOfTag(tag);
          if (first == WordClass::kUnknown) first = word_class;
          classes |= 1u << static_cast<unsigned>(word_class);
          if (word_class != WordClass::kProperNoun) common = true;
        }
        start = bar + 1;
      }
      if (first == WordClass::kUnknown) return;
      const bool lower_case = word == key;
      TableBuilder::Entry& entry = pos.entries[key];
      const bool fresh = entry.value == 0;
      if (fresh || (lower_case && !from_lower_case.contains(key))) {
        entry.value = (entry.value & ~0xffu) | static_cast<std::uint32_t>(first);
        if (lower_case) from_lower_case.insert(key);
      }
      entry.value |= classes << 8;
      if (lower_case && common) entry.value |= kPosCommonBit;
    });
    if (pos.entries.empty()) {
      return Status::Corruption("lexicon file " + Join(dir, kPosFile) + " has no entries");
    }
  }
  RETURN_IF_ERROR(AddNames(dir, kMaleFile, kMaleFirstName, names));
  RETURN_IF_ERROR(AddNames(dir, kFemaleFile, kFemaleFirstName, names));
  RETURN_IF_ERROR(AddNames(dir, kCitiesFile, kCity, names));
  RETURN_IF_ERROR(AddNames(dir, kRegionsFile, kRegion, names));
  RETURN_IF_ERROR(AddNames(dir, kCountriesFile, kCountry, names));

  // WordNet: every synset's words from the data files.
  std::vector<std::vector<std::string>> synsets;
  for (std::size_t pos_idx = 0; pos_idx < kWordNetPosNames.size(); ++pos_idx) {
    const std::string path = Join(dir, "wordnet/data." + std::string(kWordNetPosNames[pos_idx]));
    ASSIGN_OR_RETURN(const std::string text, ReadLexiconFile(path));
    ForEachLine(text, [&](std::string_view line) {
      if (line.empty() || line.front() == ' ') return;  // licence header
      // offset lex_filenum ss_type w_cnt(hex) word lex_id ...
      std::istringstream fields{std::string(line.substr(0, std::min<std::size_t>(line.size(), 4096)))};
      std::string offset, lex_filenum, ss_type, count_hex;
      if (!(fields >> offset >> lex_filenum >> ss_type >> count_hex)) return;
      const unsigned long count = std::strtoul(count_hex.c_str(), nullptr, 16);
      std::vector<std::string> words;
      for (unsigned long word_idx = 0; word_idx < count; ++word_idx) {
        std::string word, lex_id;
        if (!(fields >> word >> lex_id)) break;
        std::string key = WordNetKey(word);
        if (key.empty()) continue;
        lemmas.entries[key].value |= 1u << pos_idx;
        words.push_back(std::move(key));
      }
      if (words.size() > 1) synsets.push_back(std::move(words));
    });
  }
  if (lemmas.entries.empty()) {
    return Status::Corruption("lexicon directory " + std::string(dir) +
                              " has no WordNet lemmas in wordnet/data.*");
  }
  std::map<std::string_view, std::uint32_t> lemma_index;
  {
    std::uint32_t index = 0;
    for (const auto& [key, entry] : lemmas.entries) lemma_index.emplace(key, index++);
  }
  {
    std::map<std::string_view, std::set<std::uint32_t>> synonyms;
    for (const std::vector<std::string>& words : synsets) {
      for (const std::string& word : words) {
        std::set<std::uint32_t>& set = synonyms[word];
        for (const std::string& other : words) {
          if (other != word) set.insert(lemma_index.at(other));
        }
      }
    }
    for (auto& [key, entry] : lemmas.entries) {
      const auto found = synonyms.find(key);
      if (found == synonyms.end()) continue;
      for (const std::uint32_t index : found->second) {
        if (entry.list.size() >= kMaxSynonyms) break;
        entry.list.push_back(index);
      }
    }
  }
  for (std::size_t pos_idx = 0; pos_idx < kWordNetPosNames.size(); ++pos_idx) {
    const std::string path = Join(dir, "wordnet/" + std::string(kWordNetPosNames[pos_idx]) + ".exc");
    ASSIGN_OR_RETURN(const std::string text, ReadLexiconFile(path));
    ForEachLine(text, [&](std::string_view line) {
      std::istringstream fields{std::string(line)};
      std::string inflected;
      if (!(fields >> inflected)) return;
      std::string base;
      while (fields >> base) {
        const auto found = lemma_index.find(WordNetKey(base));
        if (found == lemma_index.end()) continue;
        TableBuilder::Entry& entry = exceptions.entries[WordNetKey(inflected)];
        entry.value |= 1u << pos_idx;
        entry.list.push_back((found->second << 2) | static_cast<std::uint32_t>(pos_idx));
      }
    });
  }

  std::vector<std::uint32_t> words = {kMagic0, kMagic1, kFormatVersion, kEndianMarker};
  for (std::size_t word_idx = 0; word_idx < 8; ++word_idx) {
    std::uint32_t value = 0;
    std::memcpy(&value, fingerprint.data() + 4 * word_idx, 4);
    words.push_back(value);
  }
  words.push_back(kTableCount);
  for (const TableBuilder* table : {&vader, &pos, &lemmas, &exceptions, &names}) {
    table->AppendTo(words);
  }
  return words;
}

StatusOr<std::array<std::uint8_t, 32>> Fingerprint(std::string_view dir) {
  ASSIGN_OR_RETURN(const std::string sums, ReadLexiconFile(Join(dir, "SHA256SUMS")));
  core::Sha256 hash;
  hash.Update("engram-lexicons-v" + std::to_string(kFormatVersion) + "\n");
  hash.Update(sums);
  return hash.Finish();
}

bool HeaderMatches(std::span<const std::uint32_t> words,
                   const std::array<std::uint8_t, 32>& fingerprint) {
  if (words.size() < kHeaderWords) return false;
  if (words[0] != kMagic0 || words[1] != kMagic1 || words[2] != kFormatVersion ||
      words[3] != kEndianMarker || words[12] != kTableCount) {
    return false;
  }
  return std::memcmp(words.data() + 4, fingerprint.data(), 32) == 0;
}

Status CheckInstalled(std::string_view dir) {
  for (const std::string_view name : kRequiredFiles) {
    const std::string path = Join(dir, name);
    if (!FileExists(path)) {
      return Status::FailedPrecondition("lexicon file " + path +
                                        " is missing; run scripts/setup (or scripts/fetch-lexicons)"
                                        " to install the lexicons");
    }
  }
  return Status::Ok();
}

}  // namespace

StatusOr<std::shared_ptr<const Lexicons>> Lexicons::FromStorage(std::unique_ptr<Storage> storage,
                                                                bool from_cache) {
  std::shared_ptr<Lexicons> lexicons(new Lexicons());
  TableReader reader{storage->words(), kHeaderWords};
  ASSIGN_OR_RETURN(lexicons->vader_, reader.Read());
  ASSIGN_OR_RETURN(lexicons->pos_, reader.Read());
  ASSIGN_OR_RETURN(lexicons->lemmas_, reader.Read());
  ASSIGN_OR_RETURN(lexicons->exceptions_, reader.Read());
  ASSIGN_OR_RETURN(lexicons->names_, reader.Read());
  if (reader.at != reader.words.size()) {
    return Status::Corruption("lexicon cache has trailing data");
  }
  for (std::size_t index = 0; index < lexicons->lemmas_.size(); ++index) {
    for (const std::uint32_t synonym : lexicons->lemmas_.List(index)) {
      if (synonym >= lexicons->lemmas_.size()) {
        return Status::Corruption("lexicon cache has a synonym out of range");
      }
    }
  }
  for (std::size_t index = 0; index < lexicons->exceptions_.size(); ++index) {
    for (const std::uint32_t item : lexicons->exceptions_.List(index)) {
      if ((item >> 2) >= lexicons->lemmas_.size()) {
        return Status::Corruption("lexicon cache has an exception out of range");
      }
    }
  }
  lexicons->storage_ = std::move(storage);
  lexicons->from_cache_ = from_cache;
  lexicons->gazetteer_ = std::make_unique<NameGazetteer>(*lexicons);
  return std::shared_ptr<const Lexicons>(std::move(lexicons));
}

StatusOr<std::shared_ptr<const Lexicons>> Lexicons::CompileInMemory(std::string_view lexicon_dir) {
  RETURN_IF_ERROR(CheckInstalled(lexicon_dir));
  ASSIGN_OR_RETURN(const auto fingerprint, Fingerprint(lexicon_dir));
  auto storage = std::make_unique<Storage>();
  ASSIGN_OR_RETURN(storage->buffer, Compile(lexicon_dir, fingerprint));
  return FromStorage(std::move(storage), /*from_cache=*/false);
}

StatusOr<std::shared_ptr<const Lexicons>> Lexicons::Load(std::string_view data_dir) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const Lexicons>, std::less<>> loaded;
  std::lock_guard lock(mutex);
  if (const auto found = loaded.find(data_dir); found != loaded.end()) return found->second;

  const std::string dir = Join(data_dir, "lexicons");
  RETURN_IF_ERROR(CheckInstalled(dir));
  ASSIGN_OR_RETURN(const auto fingerprint, Fingerprint(dir));
  const std::string cache_path = Join(dir, kCacheFile);

  std::shared_ptr<const Lexicons> result;
  std::optional<core::MappedFile> mapped =
      core::MappedFile::Open(cache_path, core::MappedFile::Pages::kOnDemand);
  if (mapped.has_value() && mapped->bytes().size() % 4 == 0) {
    auto storage = std::make_unique<Storage>();
    storage->mapped = std::move(mapped);
    if (HeaderMatches(storage->words(), fingerprint)) {
      StatusOr<std::shared_ptr<const Lexicons>> from_cache =
          FromStorage(std::move(storage), /*from_cache=*/true);
      if (from_cache.ok()) result = std::move(from_cache).value();
    }
  }
  if (result == nullptr) {
    auto storage = std::make_unique<Storage>();
    ASSIGN_OR_RETURN(storage->buffer, Compile(dir, fingerprint));
    // A failure (a read-only directory) leaves the tables in memory only.
    (void)core::WriteFileAtomically(cache_path, std::as_bytes(std::span(storage->buffer)));
    ASSIGN_OR_RETURN(result, FromStorage(std::move(storage), /*from_cache=*/false));
  }
  loaded.emplace(std::string(data_dir), result);
  return result;
}

// ---------------------------------------------------------------------------------------------
// Lookups

std::optional<float> Lexicons::Valence(std::string_view token) const {
  const std::int64_t index = vader_.Find(token);
  if (index < 0) return std::nullopt;
  return std::bit_cast<float>(vader_.Value(static_cast<std::size_t>(index)));
}

PosInfo Lexicons::Pos(std::string_view word) const {
  const std::int64_t index = pos_.Find(Key(word));
  if (index < 0) return {};
  const std::uint32_t value = pos_.Value(static_cast<std::size_t>(index));
  PosInfo info;
  info.found = true;
  info.primary = static_cast<WordClass>(value & 0xffu);
  info.classes = static_cast<std::uint16_t>((value >> 8) & 0xffffu);
  info.common = (value & kPosCommonBit) != 0;
  return info;
}

bool Lexicons::HasLemma(std::string_view lemma, WordNetPos pos) const {
  const std::int64_t index = lemmas_.Find(WordNetKey(lemma));
  return index >= 0 && (lemmas_.Value(static_cast<std::size_t>(index)) &
                        (1u << static_cast<unsigned>(pos))) != 0;
}

std::string Lexicons::Lemma(std::string_view word, WordNetPos pos) const {
  const std::string key = WordNetKey(word);
  if (const std::int64_t index = exceptions_.Find(key); index >= 0) {
    for (const std::uint32_t item : exceptions_.List(static_cast<std::size_t>(index))) {
      if ((item & 3u) == static_cast<std::uint32_t>(pos)) {
        return std::string(lemmas_.Key(item >> 2));
      }
    }
  }
  if (HasLemma(key, pos)) return key;
  struct Rule {
    std::string_view suffix;
    std::string_view replacement;
  };
  // WordNet's detachment rules per part of speech.
  static constexpr Rule kNounRules[] = {{"s", ""},    {"ses", "s"}, {"xes", "x"},  {"zes", "z"},
                                        {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"}};
  static constexpr Rule kVerbRules[] = {{"s", ""},   {"ies", "y"}, {"es", "e"},  {"es", ""},
                                        {"ed", "e"}, {"ed", ""},   {"ing", "e"}, {"ing", ""}};
  static constexpr Rule kAdjectiveRules[] = {{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"}};
  std::span<const Rule> rules;
  switch (pos) {
    case WordNetPos::kNoun: rules = kNounRules; break;
    case WordNetPos::kVerb: rules = kVerbRules; break;
    case WordNetPos::kAdjective: rules = kAdjectiveRules; break;
    case WordNetPos::kAdverb: break;
  }
  for (const Rule& rule : rules) {
    if (key.size() <= rule.suffix.size() || !key.ends_with(rule.suffix)) continue;
    std::string candidate = key.substr(0, key.size() - rule.suffix.size());
    candidate += rule.replacement;
    if (HasLemma(candidate, pos)) return candidate;
  }
  return key;
}

std::vector<std::string> Lexicons::Synonyms(std::string_view lemma) const {
  std::vector<std::string> synonyms;
  const std::int64_t index = lemmas_.Find(WordNetKey(lemma));
  if (index < 0) return synonyms;
  for (const std::uint32_t other : lemmas_.List(static_cast<std::size_t>(index))) {
    synonyms.emplace_back(lemmas_.Key(other));
  }
  std::sort(synonyms.begin(), synonyms.end());
  return synonyms;
}

std::uint32_t Lexicons::NameClasses(std::string_view normalized) const {
  const std::int64_t index = names_.Find(normalized);
  return index < 0 ? 0 : names_.Value(static_cast<std::size_t>(index));
}

}  // namespace engram::lexicon

// The entity resolver (see entities.h).
#include "write/entities.h"

#include "write/entities_match.h"

namespace engram::write {
namespace {

std::string_view FirstWord(std::string_view key) { return key.substr(0, key.find(' ')); }

bool IsMultiWord(std::string_view key) { return key.find(' ') != std::string_view::npos; }

// The first code point's bytes.
std::string_view FirstLetter(std::string_view key) {
  if (key.empty()) return key;
  const auto lead = static_cast<unsigned char>(key[0]);
  std::size_t length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return key.substr(0, std::min(length, key.size()));
}

// True when `candidate` beats `best` (higher score, then smaller id).
bool Better(double score, const std::string& id, double best_score, const std::string* best_id) {
  if (best_id == nullptr) return true;
  if (score != best_score) return score > best_score;
  return id < *best_id;
}

}  // namespace

std::string_view EntityKindName(text::EntityKind kind) {
  switch (kind) {
    case text::EntityKind::kPerson: return "person";
    case text::EntityKind::kPlace: return "place";
    case text::EntityKind::kOrganization: return "organization";
  }
  return "person";
}

std::string_view ResolveTierName(ResolveTier tier) {
  switch (tier) {
    case ResolveTier::kNew: return "new";
    case ResolveTier::kExact: return "exact";
    case ResolveTier::kAlias: return "alias";
    case ResolveTier::kFuzzy: return "fuzzy";
    case ResolveTier::kPhonetic: return "phonetic";
  }
  return "new";
}

void EntityRoster::Add(RosterEntry entry) {
  entry.phonetic = PhoneticKey(entry.key);
  entry.first_phonetic = PhoneticKey(FirstWord(entry.key));
  exact_.emplace(std::make_pair(static_cast<int>(entry.kind), entry.key), entries_.size());
  entries_.push_back(std::move(entry));
}

Resolution EntityRoster::Resolve(text::EntityKind kind, std::string_view key,
                                 const ResolverOptions& options) const {
  Resolution result;
  if (const auto found = exact_.find(std::make_pair(static_cast<int>(kind), std::string(key)));
      found != exact_.end()) {
    result.match = static_cast<std::ptrdiff_t>(found->second);
    result.tier = ResolveTier::kExact;
    result.score = 1.0;
    return result;
  }

  // Alias: first words of persons.
  std::ptrdiff_t alias = -1;
  std::size_t alias_count = 0;
  std::ptrdiff_t alias_proposal = -1;
  if (kind == text::EntityKind::kPerson) {
    for (std::size_t index = 0; index < entries_.size(); ++index) {
      const RosterEntry& entry = entries_[index];
      if (entry.kind != kind) continue;
      if (!IsMultiWord(key) && IsMultiWord(entry.key) && FirstWord(entry.key) == key) {
        if (alias < 0 || entry.id < entries_[static_cast<std::size_t>(alias)].id) {
          alias = static_cast<std::ptrdiff_t>(index);
        }
        ++alias_count;
      }
      if (IsMultiWord(key) && !IsMultiWord(entry.key) && FirstWord(key) == entry.key &&
          (alias_proposal < 0 || entry.id < entries_[static_cast<std::size_t>(alias_proposal)].id)) {
        alias_proposal = static_cast<std::ptrdiff_t>(index);
      }
    }
    if (alias_count == 1) {
      result.match = alias;
      result.tier = ResolveTier::kAlias;
      result.score = 1.0;
      return result;
    }
  }

  // Fuzzy and phonetic over the block.
  const std::string_view letter = FirstLetter(key);
  const std::string phonetic = PhoneticKey(key);
  const std::string first_phonetic = PhoneticKey(FirstWord(key));
  std::ptrdiff_t fuzzy = -1;
  double fuzzy_score = 0.0;
  std::ptrdiff_t sounds = -1;
  double sounds_score = 0.0;
  for (std::size_t index = 0; index < entries_.size(); ++index) {
    const RosterEntry& entry = entries_[index];
    if (entry.kind != kind) continue;
    const bool same_letter = FirstLetter(entry.key) == letter;
    const bool same_sound =
        !first_phonetic.empty() && entry.first_phonetic == first_phonetic;
    if (!same_letter && !same_sound) continue;
    const double score = JaroWinkler(key, entry.key);
    if (Better(score, entry.id, fuzzy_score,
               fuzzy < 0 ? nullptr : &entries_[static_cast<std::size_t>(fuzzy)].id)) {
      fuzzy = static_cast<std::ptrdiff_t>(index);
      fuzzy_score = score;
    }
    // A one-word person mention also sounds like a person's first name ("Filip" / "Phillip
    // Jones").
    const bool sounds_like =
        !phonetic.empty() &&
        (entry.phonetic == phonetic || (kind == text::EntityKind::kPerson && !IsMultiWord(key) &&
                                        entry.first_phonetic == phonetic));
    if (sounds_like &&
        Better(score, entry.id, sounds_score,
               sounds < 0 ? nullptr : &entries_[static_cast<std::size_t>(sounds)].id)) {
      sounds = static_cast<std::ptrdiff_t>(index);
      sounds_score = score;
    }
  }
  if (fuzzy >= 0 && fuzzy_score >= options.accept) {
    result.match = fuzzy;
    result.tier = ResolveTier::kFuzzy;
    result.score = fuzzy_score;
    return result;
  }
  if (fuzzy >= 0 && fuzzy_score >= options.propose) {
    result.propose_to = fuzzy;
    result.propose_tier = ResolveTier::kFuzzy;
    result.propose_score = fuzzy_score;
  } else if (sounds >= 0) {
    result.propose_to = sounds;
    result.propose_tier = ResolveTier::kPhonetic;
    result.propose_score = sounds_score;
  } else if (alias_proposal >= 0) {
    result.propose_to = alias_proposal;
    result.propose_tier = ResolveTier::kAlias;
    result.propose_score = JaroWinkler(key, entries_[static_cast<std::size_t>(alias_proposal)].key);
  }
  return result;
}

}  // namespace engram::write

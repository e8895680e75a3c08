// The entity resolver (see entities.h).
#include "write/entities.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "embed/embedder.h"
#include "text/normalize.h"
#include "text/similarity.h"

namespace engram::write {
namespace {

bool IsMultiWord(std::string_view key) { return key.find(' ') != std::string_view::npos; }

// The first code point's bytes.
std::string_view FirstLetter(std::string_view key) {
  if (key.empty()) return key;
  const auto lead = static_cast<unsigned char>(key[0]);
  std::size_t length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return key.substr(0, std::min(length, key.size()));
}

bool Subset(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  return std::all_of(a.begin(), a.end(), [&](std::string_view word) {
    return std::find(b.begin(), b.end(), word) != b.end();
  });
}

// Two names of several words with the same last word whose other words differ ("north carolina"
// / "south carolina", "united airlines" / "american airlines"): different members of one class.
bool ContrastiveModifiers(std::string_view a, std::string_view b) {
  const std::vector<std::string_view> words_a = text::KeyWords(a);
  const std::vector<std::string_view> words_b = text::KeyWords(b);
  return words_a.size() >= 2 && words_b.size() >= 2 && words_a.back() == words_b.back() &&
         !Subset(words_a, words_b) && !Subset(words_b, words_a);
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
    case text::EntityKind::kPerson:
      return "person";
    case text::EntityKind::kPlace:
      return "place";
    case text::EntityKind::kOrganization:
      return "organization";
  }
  return "person";
}

std::string_view ResolveTierName(ResolveTier tier) {
  switch (tier) {
    case ResolveTier::kNew:
      return "new";
    case ResolveTier::kExact:
      return "exact";
    case ResolveTier::kAlias:
      return "alias";
    case ResolveTier::kFuzzy:
      return "fuzzy";
    case ResolveTier::kPhonetic:
      return "phonetic";
    case ResolveTier::kEmbedding:
      return "embedding";
  }
  return "new";
}

void EntityRoster::Add(RosterEntry entry) {
  entry.phonetic = text::PhoneticKey(entry.key);
  entry.first_phonetic = text::PhoneticKey(text::FirstKeyWord(entry.key));
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
      if (!IsMultiWord(key) && IsMultiWord(entry.key) && text::FirstKeyWord(entry.key) == key) {
        if (alias < 0 || entry.id < entries_[static_cast<std::size_t>(alias)].id) {
          alias = static_cast<std::ptrdiff_t>(index);
        }
        ++alias_count;
      }
      if (IsMultiWord(key) && !IsMultiWord(entry.key) && text::FirstKeyWord(key) == entry.key &&
          (alias_proposal < 0 ||
           entry.id < entries_[static_cast<std::size_t>(alias_proposal)].id)) {
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
  const std::string phonetic = text::PhoneticKey(key);
  const std::string first_phonetic = text::PhoneticKey(text::FirstKeyWord(key));
  std::ptrdiff_t fuzzy = -1;
  double fuzzy_score = 0.0;
  std::ptrdiff_t sounds = -1;
  double sounds_score = 0.0;
  for (std::size_t index = 0; index < entries_.size(); ++index) {
    const RosterEntry& entry = entries_[index];
    if (entry.kind != kind) continue;
    const bool same_letter = FirstLetter(entry.key) == letter;
    const bool same_sound = !first_phonetic.empty() && entry.first_phonetic == first_phonetic;
    if (!same_letter && !same_sound) continue;
    const double score = text::JaroWinkler(key, entry.key);
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
    result.propose_score =
        text::JaroWinkler(key, entries_[static_cast<std::size_t>(alias_proposal)].key);
  }
  return result;
}

void EntityRoster::ProposeByEmbedding(text::EntityKind kind, std::string_view key,
                                      std::span<const float> mention,
                                      std::span<const NameVector> entry_vectors,
                                      const ResolverOptions& options,
                                      Resolution& resolution) const {
  if (resolution.match >= 0 || resolution.propose_to >= 0 || options.embed_propose <= 0.0 ||
      mention.empty()) {
    return;
  }
  std::ptrdiff_t best = -1;
  double best_score = 0.0;
  for (std::size_t index = 0; index < entries_.size() && index < entry_vectors.size(); ++index) {
    const RosterEntry& entry = entries_[index];
    const NameVector& vector = entry_vectors[index];
    if (entry.kind != kind || vector == nullptr || vector->size() != mention.size() ||
        ContrastiveModifiers(key, entry.key)) {
      continue;
    }
    // Rounded so that the comparison does not hinge on the last bits of a float sum.
    const double score = std::round(embed::Dot(mention, *vector) * 10000.0) / 10000.0;
    if (Better(score, entry.id, best_score,
               best < 0 ? nullptr : &entries_[static_cast<std::size_t>(best)].id)) {
      best = static_cast<std::ptrdiff_t>(index);
      best_score = score;
    }
  }
  if (best >= 0 && best_score >= options.embed_propose) {
    resolution.propose_to = best;
    resolution.propose_tier = ResolveTier::kEmbedding;
    resolution.propose_score = best_score;
  }
}

StatusOr<std::vector<NameVector>> NameVectorCache::Get(embed::Embedder& embedder,
                                                       std::span<const std::string> keys) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (const std::string model = embedder.model_id(); model != model_id_) {
    vectors_.clear();
    model_id_ = model;
  }
  std::vector<NameVector> result(keys.size());
  std::vector<std::string> missing;
  std::map<std::string_view, std::vector<std::size_t>> missing_at;  // key -> positions in keys
  for (std::size_t index = 0; index < keys.size(); ++index) {
    if (const auto found = vectors_.find(keys[index]); found != vectors_.end()) {
      result[index] = found->second;
      continue;
    }
    auto& positions = missing_at[keys[index]];
    if (positions.empty()) missing.push_back(keys[index]);
    positions.push_back(index);
  }
  if (!missing.empty()) {
    ASSIGN_OR_RETURN(std::vector<std::vector<float>> computed, embedder.Embed(missing));
    if (computed.size() != missing.size()) {
      return Status::Internal("entity name embedding: the embedder returned " +
                              std::to_string(computed.size()) + " vectors for " +
                              std::to_string(missing.size()) + " names");
    }
    if (vectors_.size() + missing.size() > capacity_) vectors_.clear();
    for (std::size_t index = 0; index < missing.size(); ++index) {
      auto vector = std::make_shared<const std::vector<float>>(std::move(computed[index]));
      for (const std::size_t position : missing_at[missing[index]]) result[position] = vector;
      vectors_[missing[index]] = std::move(vector);
    }
  }
  return result;
}

}  // namespace engram::write

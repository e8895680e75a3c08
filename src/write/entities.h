// The entity resolver (WorldDB §3.1): decides which entity of a scope a name mention means.
//
// Tiers, tried in order, over the scope's roster of entities of the same kind (person, place,
// organisation):
//   1. exact    the normalised name (text::NormalizeForIndex) equals an entity's key;
//   2. alias    a one-word person mention equals the first word of exactly one multi-word person
//               ("Caroline" -> "Caroline Smith"), accepted; a multi-word mention whose first word
//               is a one-word person is only proposed;
//   3. fuzzy    Jaro–Winkler over keys, blocked to entities that share the first letter or the
//               phonetic key of the first word; at or above `accept` it is the entity;
//   4. phonetic an equal PhoneticKey ("Phillip" / "Filip"; a one-word person mention also
//               against the first word of a person: "Filip" / "Phillip Jones");
//   5. tiebreak the best score within a tier wins, equal scores the smaller entity id.
// A mention that is accepted by no tier makes a new entity; when a fuzzy match scored at least
// `propose`, or a phonetic key matched, the new entity carries a pending same_as proposal to the
// existing one (the engine never merges silently; see Engine::AcceptProposal).
//   6. embedding when no string tier proposed anything and an embedder is configured, the entity
//               of the same kind whose name embedding is nearest (cosine, ties: smaller id) is
//               proposed when the cosine is at least `embed_propose` ("new york" / "new york
//               city" 0.89 with USE-lite). This tier never accepts: a sentence encoder does not
//               separate short names well ("laura" / "maria" 0.79, "bob smith" / "robert smith"
//               0.79); names of several words that share the last word and differ in the
//               others ("north carolina" / "south carolina") are skipped.
//               Name vectors come from a NameVectorCache shared by derivation calls.
//
// Thread-safety: EntityRoster is not thread-safe (one roster per derivation call);
// NameVectorCache is.
#ifndef ENGRAM_WRITE_ENTITIES_H_
#define ENGRAM_WRITE_ENTITIES_H_

#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engram/status.h"
#include "text/signals.h"

namespace engram::embed {
class Embedder;
}  // namespace engram::embed

namespace engram::write {

std::string_view EntityKindName(text::EntityKind kind);  // "person", "place", "organization"

enum class ResolveTier { kNew, kExact, kAlias, kFuzzy, kPhonetic, kEmbedding };
// "new", "exact", "alias", "fuzzy", "phonetic", "embedding"
std::string_view ResolveTierName(ResolveTier tier);

struct ResolverOptions {
  double accept = 0.95;   // Jaro–Winkler at or above: the existing entity
  double propose = 0.85;  // at or above (below accept): a new entity with a same_as proposal
  // Cosine of name embeddings at or above which tier 6 proposes; 0 switches the tier off.
  double embed_propose = 0.85;
};

using NameVector = std::shared_ptr<const std::vector<float>>;

struct RosterEntry {
  std::string id;  // entity node id
  text::EntityKind kind = text::EntityKind::kPerson;
  std::string key;   // normalised name
  std::string name;  // as first written
  // Filled by EntityRoster::Add: PhoneticKey of the key and of its first word.
  std::string phonetic;
  std::string first_phonetic;
};

struct Resolution {
  // Index into the roster of the matched entity; -1 when the mention needs a new entity.
  std::ptrdiff_t match = -1;
  ResolveTier tier = ResolveTier::kNew;
  double score = 0.0;  // 1 for exact / alias; the similarity otherwise
  // For a new entity: the roster index it should be proposed as same_as to (-1: none), and why.
  std::ptrdiff_t propose_to = -1;
  ResolveTier propose_tier = ResolveTier::kNew;
  double propose_score = 0.0;
};

class EntityRoster {
 public:
  // Adds an entity; its (kind, key) must not be in the roster yet.
  void Add(RosterEntry entry);
  const RosterEntry& at(std::size_t index) const { return entries_[index]; }
  std::size_t size() const { return entries_.size(); }

  // Resolves a mention with normalised name `key` (see the tiers above).
  Resolution Resolve(text::EntityKind kind, std::string_view key,
                     const ResolverOptions& options) const;

  // Tier 6: when `resolution` has no match and no proposal, proposes the entry of `kind` whose
  // name vector (`entry_vectors[i]` for entry i; null or missing: none) has the highest dot
  // product with `mention`, the vector of the mention's normalised name `key`, if at least
  // options.embed_propose (> 0). Entries that share only the last word with `key`, their other
  // words differing ("north carolina" / "south carolina"), are never proposed.
  void ProposeByEmbedding(text::EntityKind kind, std::string_view key,
                          std::span<const float> mention, std::span<const NameVector> entry_vectors,
                          const ResolverOptions& options, Resolution& resolution) const;

 private:
  std::vector<RosterEntry> entries_;
  std::map<std::pair<int, std::string>, std::size_t, std::less<>> exact_;
};

// Embeddings of entity names (normalised keys) by one embedder, kept across derivation calls so
// that a roster is embedded once per process, not once per mention. Holds at most `capacity`
// names; when full it starts over (vectors are deterministic, so that changes no result).
class NameVectorCache {
 public:
  explicit NameVectorCache(std::size_t capacity = 50000) : capacity_(capacity) {}

  // One vector per key, in order; the keys not cached are embedded in one batch. Vectors of a
  // different embedder (model_id) are dropped first.
  StatusOr<std::vector<NameVector>> Get(embed::Embedder& embedder,
                                        std::span<const std::string> keys);

 private:
  std::mutex mutex_;
  std::size_t capacity_;
  std::string model_id_;
  std::unordered_map<std::string, NameVector> vectors_;
};

}  // namespace engram::write

#endif  // ENGRAM_WRITE_ENTITIES_H_

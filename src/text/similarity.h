// String similarity: Jaro–Winkler (the entity resolver's fuzzy tier, WorldDB §3.1, and the soft
// term matches of the fragment route, KeyMem Path C) and a Soundex-style phonetic key with
// digraph rewrites (the resolver's phonetic tier).
//
//   JaroWinkler("martha", "marhta");   // 0.9611 (Winkler's reference pair)
//   PhoneticKey("Phillip") == PhoneticKey("Filip");  // "F410": PH is rewritten to F
//
// Both work on Unicode code points of their (already normalised) input, so "josé" has four.
//
// Thread-safety: pure functions.
#ifndef ENGRAM_TEXT_SIMILARITY_H_
#define ENGRAM_TEXT_SIMILARITY_H_

#include <string>
#include <string_view>

namespace engram::text {

// Winkler's prefix scale ("p" in Winkler 1990): how much a common prefix (at most 4 code points)
// raises the Jaro similarity; and the Jaro similarity above which the prefix bonus applies.
inline constexpr double kWinklerPrefixScale = 0.1;
inline constexpr double kWinklerBoostThreshold = 0.7;

// Jaro similarity in [0, 1]: matches within max(|a|, |b|) / 2 - 1 positions, half-transpositions.
// 1 for two empty strings, 0 when only one is empty.
double Jaro(std::string_view a, std::string_view b);
// Jaro–Winkler: jaro + l * p * (1 - jaro) for a common prefix of l <= 4 code points, when
// jaro > kWinklerBoostThreshold.
double JaroWinkler(std::string_view a, std::string_view b);

// Soundex-style key of a name, per word joined by spaces ("new york" -> "N000 Y620"). Before
// coding, ASCII letters are upper-cased and the digraphs PH -> F, CK -> K, KN -> N, WR -> R
// rewritten; non-ASCII letters are dropped. Empty when the name has no ASCII letter.
std::string PhoneticKey(std::string_view name);

}  // namespace engram::text

#endif  // ENGRAM_TEXT_SIMILARITY_H_

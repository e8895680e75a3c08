// Integer dot products of int8 word-vector codes, for the word-vector neighbour search's first
// pass (word_vectors.h, VocabularyVectors): each vocabulary row against each query row.
//
// Vocabulary rows are stored in panels of kPanelRows rows, interleaved by groups of kGroup
// dimensions (panel p, dimension group g, row k of the panel: bytes [g·64 + 4k, g·64 + 4k + 4) of
// the panel), so one 64-byte load holds a group of 16 rows and one broadcast query group meets
// them all: the sums of a panel's rows land in 16 lanes, no horizontal sum per pair.
//
// Codes lie in [-127, 127], so every sum is exact in int32 (|Σ| ≤ 1024 · 127² < 2³¹) and no path
// can saturate. Three paths compute the same sums — AVX-512 VNNI (vpdpbusd on the query codes
// offset to unsigned, the offset taken back through each row's code sum), AVX2 (vpmaddubsw on
// |query| and the row codes with the query's signs, then vpmaddwd) and portable C++ — and
// integer addition is exact in any order, so every path gives the same bits (tested path against
// path). The path is chosen once per process from the CPU's features.
#ifndef ENGRAM_LEXICON_CODE_DOT_H_
#define ENGRAM_LEXICON_CODE_DOT_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/simd_path.h"

namespace engram::lexicon::internal {

inline constexpr std::size_t kPanelRows = 16;
inline constexpr std::size_t kGroup = 4;  // dimensions per interleaved group; widths are multiples

// The byte of row `k` of a panel, dimension `i`, from the panel's start (`width` codes a row).
inline std::size_t PanelOffset(std::size_t k, std::size_t i) {
  return (i / kGroup) * kGroup * kPanelRows + k * kGroup + i % kGroup;
}

// out[(p · query_count + q) · kPanelRows + k] = Σ_i queries[q · width + i] · (row k of panel p,
// dimension i), for every panel p < panel_count, query q < query_count and k < kPanelRows.
// `width` is a multiple of kGroup; a panel is width · kPanelRows bytes; codes in [-127, 127]
// (rows past the vocabulary's end all zeros); `row_sums[p · kPanelRows + k]` = Σ_i of that row's
// codes (the VNNI path's offset). `path` must be supported.
void PanelDots(SimdPath path, const std::int8_t* queries, std::size_t query_count,
               const std::int8_t* panels, const std::int32_t* row_sums, std::size_t panel_count,
               std::size_t width, std::int32_t* out);

}  // namespace engram::lexicon::internal

#endif  // ENGRAM_LEXICON_CODE_DOT_H_

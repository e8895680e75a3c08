// USE-lite's SentencePiece unigram segmentation (see sentencepiece.h for the algorithm and quirks).
#include "embed/sentencepiece.h"

#include <utf8proc.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <nlohmann/json.hpp>
#include <utility>

namespace engram::embed {
namespace {

constexpr char32_t kReplacementCharacter = U'\uFFFD';
constexpr char32_t kWordBoundary = U'\u2581';  // "▁", SentencePiece's space marker
constexpr char32_t kSpace = U' ';

// Decodes UTF-8, replacing each invalid or truncated sequence by U+FFFD (one per bad lead byte).
std::u32string DecodeUtf8Lenient(std::string_view text) {
  std::u32string code_points;
  code_points.reserve(text.size());
  std::size_t index = 0;
  while (index < text.size()) {
    const auto lead = static_cast<unsigned char>(text[index]);
    std::size_t length = 0;
    char32_t code_point = 0;
    char32_t minimum = 0;
    if (lead < 0x80) {
      length = 1;
      code_point = lead;
    } else if ((lead & 0xE0) == 0xC0) {
      length = 2;
      code_point = lead & 0x1F;
      minimum = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3;
      code_point = lead & 0x0F;
      minimum = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4;
      code_point = lead & 0x07;
      minimum = 0x10000;
    }
    bool valid = length > 0 && index + length <= text.size();
    for (std::size_t offset = 1; valid && offset < length; ++offset) {
      const auto continuation = static_cast<unsigned char>(text[index + offset]);
      if ((continuation & 0xC0) != 0x80) {
        valid = false;
      } else {
        code_point = (code_point << 6) | (continuation & 0x3F);
      }
    }
    if (valid && length > 1) {
      valid = code_point >= minimum && code_point <= 0x10FFFF &&
              !(code_point >= 0xD800 && code_point <= 0xDFFF);
    }
    if (valid) {
      code_points.push_back(code_point);
      index += length;
    } else {
      code_points.push_back(kReplacementCharacter);
      index += 1;
    }
  }
  return code_points;
}

void AppendUtf8(char32_t code_point, std::string& out) {
  if (code_point < 0x80) {
    out.push_back(static_cast<char>(code_point));
  } else if (code_point < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code_point >> 6)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else if (code_point < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code_point >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code_point >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  }
}

// Number of UTF-16 code units of a code point sequence (JavaScript's String.length).
std::uint32_t Utf16Length(const std::u32string& code_points) {
  std::uint32_t length = 0;
  for (char32_t code_point : code_points) length += code_point > 0xFFFF ? 2 : 1;
  return length;
}

}  // namespace

std::u32string NormalizeNfkc(std::string_view text) {
  const std::u32string decoded = DecodeUtf8Lenient(text);
  if (decoded.empty()) return decoded;
  std::string valid_utf8;
  valid_utf8.reserve(text.size());
  for (char32_t code_point : decoded) AppendUtf8(code_point, valid_utf8);

  utf8proc_uint8_t* normalized = nullptr;
  const utf8proc_ssize_t normalized_length = utf8proc_map(
      reinterpret_cast<const utf8proc_uint8_t*>(valid_utf8.data()),
      static_cast<utf8proc_ssize_t>(valid_utf8.size()), &normalized,
      static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT));
  if (normalized_length < 0 || normalized == nullptr) {
    std::free(normalized);
    return decoded;  // cannot happen for valid UTF-8; keep the text rather than drop it
  }
  std::u32string result = DecodeUtf8Lenient(std::string_view(
      reinterpret_cast<const char*>(normalized), static_cast<std::size_t>(normalized_length)));
  std::free(normalized);
  return result;
}

StatusOr<SentencePieceTokenizer> SentencePieceTokenizer::FromVocabJson(
    std::string_view vocab_json) {
  nlohmann::json vocabulary;
  try {
    vocabulary = nlohmann::json::parse(vocab_json);
  } catch (const std::exception& error) {
    return Status::Corruption(std::string("vocabulary is not valid JSON: ") + error.what());
  }
  if (!vocabulary.is_array() || vocabulary.size() <= static_cast<std::size_t>(kReservedCount)) {
    return Status::Corruption("vocabulary must be a JSON array of [piece, score] pairs");
  }
  SentencePieceTokenizer tokenizer;
  tokenizer.nodes_.emplace_back();  // root
  tokenizer.piece_lengths_.reserve(vocabulary.size());
  for (std::size_t index = 0; index < vocabulary.size(); ++index) {
    const nlohmann::json& entry = vocabulary[index];
    if (!entry.is_array() || entry.size() < 2 || !entry[0].is_string() ||
        !(entry[1].is_number() || entry[1].is_null())) {
      return Status::Corruption("vocabulary entry " + std::to_string(index) +
                                " is not a [piece, score] pair");
    }
    const std::u32string piece = DecodeUtf8Lenient(entry[0].get_ref<const std::string&>());
    tokenizer.piece_lengths_.push_back(Utf16Length(piece));
    if (static_cast<std::int32_t>(index) >= kReservedCount) {
      // USE-lite's vocab.json has null scores for the 7 pieces containing ':'; the reference
      // adds them as JavaScript does (null + x == x), i.e. as 0.
      const double score = entry[1].is_null() ? 0.0 : entry[1].get<double>();
      tokenizer.Insert(piece, score, static_cast<std::int32_t>(index));
    }
  }
  if (tokenizer.piece_lengths_[kUnknownId] == 0) {
    return Status::Corruption("vocabulary entry 0 (the unknown piece) is empty");
  }
  return tokenizer;
}

void SentencePieceTokenizer::Insert(const std::u32string& piece, double score,
                                    std::int32_t piece_id) {
  if (piece.empty()) return;
  std::int32_t node = 0;
  for (char32_t code_point : piece) {
    const std::uint64_t key = (static_cast<std::uint64_t>(node) << 21) | code_point;
    auto [child, inserted] = children_.try_emplace(key, static_cast<std::int32_t>(nodes_.size()));
    if (inserted) nodes_.emplace_back();
    node = child->second;
  }
  nodes_[static_cast<std::size_t>(node)].piece_id = piece_id;  // a later duplicate wins
  nodes_[static_cast<std::size_t>(node)].score = score;
}

std::int32_t SentencePieceTokenizer::Child(std::int32_t node, char32_t code_point) const {
  const auto child = children_.find((static_cast<std::uint64_t>(node) << 21) | code_point);
  return child == children_.end() ? -1 : child->second;
}

std::vector<std::int32_t> SentencePieceTokenizer::Encode(std::string_view text) const {
  std::u32string symbols = NormalizeNfkc(text);
  if (symbols.empty()) return {};
  std::replace(symbols.begin(), symbols.end(), kSpace, kWordBoundary);
  symbols.insert(symbols.begin(), kWordBoundary);
  const std::size_t symbol_count = symbols.size();

  // Lattice: every piece that starts at each position, generated in start order.
  std::vector<Candidate> candidates;
  candidates.reserve(symbol_count * 4);
  for (std::size_t start = 0; start < symbol_count; ++start) {
    bool matched = false;
    std::int32_t node = 0;
    for (std::size_t position = start; position < symbol_count; ++position) {
      node = Child(node, symbols[position]);
      if (node < 0) break;
      const TrieNode& trie_node = nodes_[static_cast<std::size_t>(node)];
      if (trie_node.piece_id >= 0) {
        candidates.push_back({static_cast<std::uint32_t>(start),
                              static_cast<std::uint32_t>(position - start + 1), trie_node.piece_id,
                              trie_node.score});
        matched = true;
      }
    }
    if (!matched) {
      candidates.push_back({static_cast<std::uint32_t>(start), 1, kUnknownId, 0.0});
    }
  }
  // Visit candidates by end position, then start position (a stable sort keeps start order).
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) {
                     return a.start + a.length < b.start + b.length;
                   });

  // best[e]: best total score of a segmentation of symbols[0, e); 0 doubles as "unset", exactly as
  // in the reference. piece_at_end[e]: the last piece of that segmentation.
  std::vector<double> best(symbol_count + 1, 0.0);
  std::vector<std::int32_t> piece_at_end(symbol_count + 1, kUnknownId);
  for (const Candidate& candidate : candidates) {
    const std::size_t end = candidate.start + candidate.length;
    const double total = candidate.score + best[candidate.start];
    if (best[end] == 0.0 || total >= best[end]) {
      best[end] = total;
      piece_at_end[end] = candidate.piece_id;
    }
  }

  // Read the path back from the end, stepping over each piece's UTF-16 length as the reference
  // does.
  std::vector<std::int32_t> reversed;
  std::int64_t position = static_cast<std::int64_t>(symbol_count);
  while (position > 0) {
    const std::int32_t piece_id = piece_at_end[static_cast<std::size_t>(position)];
    reversed.push_back(piece_id);
    position -= piece_lengths_[static_cast<std::size_t>(piece_id)];
  }
  std::vector<std::int32_t> ids;
  ids.reserve(reversed.size());
  bool previous_unknown = false;
  for (std::int32_t piece_id : reversed) {
    if (!(previous_unknown && piece_id == kUnknownId)) ids.push_back(piece_id);
    previous_unknown = piece_id == kUnknownId;
  }
  std::reverse(ids.begin(), ids.end());
  return ids;
}

}  // namespace engram::embed

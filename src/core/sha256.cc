// SHA-256 after FIPS 180-4 §6.2.
#include "core/sha256.h"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace engram::core {
namespace {

constexpr std::uint32_t kRound[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr std::uint32_t Rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

constexpr std::array<std::uint32_t, 8> kInitial = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

void CompressPortable(std::uint32_t* state, const std::uint8_t* block, std::size_t count) {
  for (; count > 0; --count, block += 64) {
    std::uint32_t w[64];
    for (int t = 0; t < 16; ++t) {
      w[t] = (std::uint32_t{block[t * 4]} << 24) | (std::uint32_t{block[t * 4 + 1]} << 16) |
             (std::uint32_t{block[t * 4 + 2]} << 8) | std::uint32_t{block[t * 4 + 3]};
    }
    for (int t = 16; t < 64; ++t) {
      const std::uint32_t s0 = Rotr(w[t - 15], 7) ^ Rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
      const std::uint32_t s1 = Rotr(w[t - 2], 17) ^ Rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
      w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    std::uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    std::uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (int t = 0; t < 64; ++t) {
      const std::uint32_t s1 = Rotr(e, 6) ^ Rotr(e, 11) ^ Rotr(e, 25);
      const std::uint32_t choose = (e & f) ^ (~e & g);
      const std::uint32_t t1 = h + s1 + choose + kRound[t] + w[t];
      const std::uint32_t s0 = Rotr(a, 2) ^ Rotr(a, 13) ^ Rotr(a, 22);
      const std::uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
      const std::uint32_t t2 = s0 + majority;
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
    state[5] += f;
    state[6] += g;
    state[7] += h;
  }
}

#if defined(__x86_64__)
bool CpuHasShaExtensions() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
  const bool sse41 = (ecx & (1u << 19)) != 0;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
  return sse41 && (ebx & (1u << 29)) != 0;
}

// SHA256RNDS2 does two rounds on a state held as ABEF and CDGH (A in the highest lane); each
// group of four rounds adds its four message words and constants at once, and SHA256MSG1/MSG2
// extend the message four words at a time: W[i] from W[i-4], W[i-3], W[i-2], W[i-1] (groups).
__attribute__((target("sha,sse4.1"))) void CompressShaExtensions(std::uint32_t* state,
                                                                 const std::uint8_t* block,
                                                                 std::size_t count) {
  const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
  const __m128i dcba = _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(state)),
                                         0xB1);  // lanes b a d c
  const __m128i hgfe = _mm_shuffle_epi32(
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(state + 4)), 0x1B);  // lanes h g f e
  __m128i abef = _mm_alignr_epi8(dcba, hgfe, 8);
  __m128i cdgh = _mm_blend_epi16(hgfe, dcba, 0xF0);
  for (; count > 0; --count, block += 64) {
    const __m128i abef_before = abef;
    const __m128i cdgh_before = cdgh;
    __m128i w[4];  // the last four groups of message words, group i at w[i % 4]
    for (int i = 0; i < 16; ++i) {
      __m128i words;
      if (i < 4) {
        words = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 16 * i)),
                                 byte_swap);
      } else {
        words = _mm_sha256msg1_epu32(w[i % 4], w[(i + 1) % 4]);
        words = _mm_add_epi32(words, _mm_alignr_epi8(w[(i + 3) % 4], w[(i + 2) % 4], 4));
        words = _mm_sha256msg2_epu32(words, w[(i + 3) % 4]);
      }
      w[i % 4] = words;
      __m128i added =
          _mm_add_epi32(words, _mm_loadu_si128(reinterpret_cast<const __m128i*>(kRound + 4 * i)));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, added);
      added = _mm_shuffle_epi32(added, 0x0E);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, added);
    }
    abef = _mm_add_epi32(abef, abef_before);
    cdgh = _mm_add_epi32(cdgh, cdgh_before);
  }
  const __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  const __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state), _mm_blend_epi16(feba, dchg, 0xF0));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state + 4), _mm_alignr_epi8(dchg, feba, 8));
}
#endif

}  // namespace

bool Sha256::Supported(Path path) {
  if (path == Path::kPortable) return true;
#if defined(__x86_64__)
  static const bool kShaExtensions = CpuHasShaExtensions();
  return kShaExtensions;
#else
  return false;
#endif
}

Sha256::Sha256()
    : Sha256(Supported(Path::kShaExtensions) ? Path::kShaExtensions : Path::kPortable) {}

Sha256::Sha256(Path path) : path_(Supported(path) ? path : Path::kPortable), state_(kInitial) {}

void Sha256::Compress(const std::uint8_t* blocks, std::size_t count) {
#if defined(__x86_64__)
  if (path_ == Path::kShaExtensions) return CompressShaExtensions(state_.data(), blocks, count);
#endif
  CompressPortable(state_.data(), blocks, count);
}

void Sha256::Update(std::string_view data) {
  if (data.empty()) return;  // (an empty view's data() may be null: no memcpy from it)
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(data.data());
  std::size_t size = data.size();
  total_bytes_ += size;
  if (buffered_ > 0) {
    const std::size_t take = std::min(size, buffer_.size() - buffered_);
    std::memcpy(buffer_.data() + buffered_, bytes, take);
    buffered_ += take;
    bytes += take;
    size -= take;
    if (buffered_ < buffer_.size()) return;
    Compress(buffer_.data(), 1);
    buffered_ = 0;
  }
  // Whole blocks straight from the input; the rest waits in the buffer.
  const std::size_t whole = size / buffer_.size();
  if (whole > 0) Compress(bytes, whole);
  bytes += whole * buffer_.size();
  size -= whole * buffer_.size();
  std::memcpy(buffer_.data(), bytes, size);
  buffered_ = size;
}

std::array<std::uint8_t, 32> Sha256::Finish() {
  // 0x80, zeros up to 56 bytes into a block, the message's length in bits (big-endian).
  const std::uint64_t bit_length = total_bytes_ * 8;
  std::uint8_t padding[72] = {0x80};
  const std::size_t zeros = (buffered_ < 56 ? 56 : 120) - buffered_ - 1;
  for (int i = 0; i < 8; ++i) {
    padding[1 + zeros + i] = static_cast<std::uint8_t>(bit_length >> (56 - 8 * i));
  }
  Update(std::string_view(reinterpret_cast<const char*>(padding), 1 + zeros + 8));
  std::array<std::uint8_t, 32> digest;
  for (int i = 0; i < 8; ++i) {
    digest[i * 4] = static_cast<std::uint8_t>(state_[i] >> 24);
    digest[i * 4 + 1] = static_cast<std::uint8_t>(state_[i] >> 16);
    digest[i * 4 + 2] = static_cast<std::uint8_t>(state_[i] >> 8);
    digest[i * 4 + 3] = static_cast<std::uint8_t>(state_[i]);
  }
  return digest;
}

std::string Sha256Hex(std::string_view data) {
  Sha256 hasher;
  hasher.Update(data);
  const auto digest = hasher.Finish();
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(64);
  for (const std::uint8_t byte : digest) {
    out += kHex[byte >> 4];
    out += kHex[byte & 0xF];
  }
  return out;
}

}  // namespace engram::core

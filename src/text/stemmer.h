// Stemmer: the Snowball "english" (Porter2) stemmer from libstemmer, over UTF-8 words.
//
// Stemming maps inflected forms to one index term ("running", "runs" -> "run"; "studies" ->
// "studi"), so a query word finds a turn that used another form of it. Input words are expected to
// be normalised already (text/normalize.h: lower case, NFKC).
//
//   ASSIGN_OR_RETURN(engram::text::Stemmer stemmer, engram::text::Stemmer::Create("english"));
//   std::string stem = stemmer.Stem("running");  // "run"
//
// Thread-safety: a Stemmer is NOT thread-safe (libstemmer keeps per-instance scratch state, and
// Stem() writes it): give each thread its own instance. StemEnglish() does exactly that with a
// thread_local instance and is safe to call from any thread.
#ifndef ENGRAM_TEXT_STEMMER_H_
#define ENGRAM_TEXT_STEMMER_H_

#include <memory>
#include <string>
#include <string_view>

#include "engram/status.h"

struct sb_stemmer;

namespace engram::text {

class Stemmer {
 public:
  // A stemmer for a libstemmer algorithm name ("english", "porter", "german", ...), UTF-8
  // encoding. kInvalidArgument if libstemmer does not know the algorithm.
  static StatusOr<Stemmer> Create(std::string_view algorithm);

  Stemmer(Stemmer&&) noexcept = default;
  Stemmer& operator=(Stemmer&&) noexcept = default;
  Stemmer(const Stemmer&) = delete;
  Stemmer& operator=(const Stemmer&) = delete;
  ~Stemmer() = default;

  // The stem of one word. Empty input gives empty output; a word libstemmer cannot process
  // (out of memory) is returned unchanged.
  std::string Stem(std::string_view word);

  const std::string& algorithm() const { return algorithm_; }

 private:
  struct Deleter {
    void operator()(sb_stemmer* stemmer) const;
  };
  Stemmer(std::string algorithm, std::unique_ptr<sb_stemmer, Deleter> stemmer);

  std::string algorithm_;
  std::unique_ptr<sb_stemmer, Deleter> stemmer_;  // never null
};

// Stem with a thread_local "english" Stemmer (one per calling thread, created on first use).
std::string StemEnglish(std::string_view word);

}  // namespace engram::text

#endif  // ENGRAM_TEXT_STEMMER_H_

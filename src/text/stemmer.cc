// Stemmer: RAII wrapper around libstemmer's sb_stemmer.
#include "text/stemmer.h"

#include <libstemmer.h>

#include <climits>
#include <utility>

namespace engram::text {

void Stemmer::Deleter::operator()(sb_stemmer* stemmer) const { sb_stemmer_delete(stemmer); }

Stemmer::Stemmer(std::string algorithm, std::unique_ptr<sb_stemmer, Deleter> stemmer)
    : algorithm_(std::move(algorithm)), stemmer_(std::move(stemmer)) {}

StatusOr<Stemmer> Stemmer::Create(std::string_view algorithm) {
  std::string name(algorithm);
  std::unique_ptr<sb_stemmer, Deleter> stemmer(sb_stemmer_new(name.c_str(), "UTF_8"));
  if (stemmer == nullptr) {
    return Status::InvalidArgument("stemmer: libstemmer has no algorithm '" + name +
                                   "' for UTF-8 (try \"english\")");
  }
  return Stemmer(std::move(name), std::move(stemmer));
}

std::string Stemmer::Stem(std::string_view word) {
  if (word.empty() || word.size() > static_cast<std::size_t>(INT_MAX)) return std::string(word);
  const sb_symbol* stem =
      sb_stemmer_stem(stemmer_.get(), reinterpret_cast<const sb_symbol*>(word.data()),
                      static_cast<int>(word.size()));
  if (stem == nullptr) return std::string(word);
  const int length = sb_stemmer_length(stemmer_.get());
  if (length < 0) return std::string(word);
  return std::string(reinterpret_cast<const char*>(stem), static_cast<std::size_t>(length));
}

std::string StemEnglish(std::string_view word) {
  // libstemmer always ships "english"; failure here means a broken installation.
  thread_local StatusOr<Stemmer> stemmer = Stemmer::Create("english");
  if (!stemmer.ok()) return std::string(word);
  return stemmer->Stem(word);
}

}  // namespace engram::text
